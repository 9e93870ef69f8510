"""jax.lax.all_gather: cases adapted from tests/pmap_test.py (PythonPmapTest.testGather, testGatherBool, testGatherNegativeAxis, testGatherTiled, testGatherTiledNegativeAxis; testGradOf: the gradient of a gather, order 2) and tests/batching_test.py (BatchingTest.testAllGatherTiled and testAllGatherVjp: collectives under vmap with an axis_name, the VJP sums the members' cotangents); UPSTREAM_TESTS below maps each to the cases here.

A collective needs a named axis: the sampled call is wrapped in jax.vmap(..., axis_name="i") (or a one-device
jax.pmap on the cell's device), and that wrapper is what bench times."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.all_gather", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tests/pmap_test.py::PythonPmapTest::testGather": [
        "test_all_gather_pmap_one_device", "test_all_gather_vmap_shapes", "test_all_gather_vmap_dtypes",
        "test_all_gather_large"],
    "tests/pmap_test.py::PythonPmapTest::testGatherBool": ["test_all_gather_vmap_dtypes"],
    "tests/pmap_test.py::PythonPmapTest::testGatherNegativeAxis": ["test_all_gather_vmap_axis"],
    "tests/pmap_test.py::PythonPmapTest::testGatherTiled": ["test_all_gather_pmap_one_device",
                                                           "test_all_gather_vmap_tiled"],
    "tests/pmap_test.py::PythonPmapTest::testGatherTiledNegativeAxis": ["test_all_gather_vmap_tiled"],
    "tests/pmap_test.py::PythonPmapTest::testGradOf": ["test_all_gather_backward"],
    "tests/pmap_test.py::PythonPmapTest::testGatherReplicaGroups": "axis_index_groups split several devices into "
                                                                  "groups: a cell has one device",
    "tests/batching_test.py::BatchingTest::testAllGatherTiled": ["test_all_gather_vmap_tiled"],
    "tests/batching_test.py::BatchingTest::testAllGatherVjp": ["test_all_gather_backward"],
}

# all_gather only moves data: every check is exact, same dtype (assert_exact).


def _gather_vmap(**kwargs):
    return jax.vmap(partial(lax.all_gather, axis_name="i", **kwargs), axis_name="i")


def _reference(x, axis=0, tiled=False):
    """Every member of the named (leading) axis receives all members' values, stacked at `axis`
    of the per-member value (or concatenated along it when tiled)."""
    n = x.shape[0]
    members = [x[j] for j in range(n)]
    gathered = np.concatenate(members, axis=axis) if tiled else np.stack(members, axis=axis)
    return np.broadcast_to(gathered, (n,) + gathered.shape)


# Upstream's shapes: the leading dimension is the named axis of size n.
@pytest.mark.parametrize("shape", [(4, 4), (3, 2, 5), (1, 7), (6,)])
def test_all_gather_vmap_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    assert_exact(result, _reference(x))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_all_gather_vmap_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (4, 3), dtype)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    assert_exact(result, _reference(x))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_all_gather_vmap_axis(bench, device, axis):
    # The gathered dimension may be inserted at any position of the per-member value.
    x = rand_default(np.random.default_rng(2), (3, 2, 5), np.float32)
    result = bench(_gather_vmap(axis=axis), jax.device_put(x, device))
    assert_exact(result, _reference(x, axis=axis))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_all_gather_vmap_tiled(bench, device, axis):
    # testAllGatherTiled: the members are concatenated into an existing dimension.
    x = rand_default(np.random.default_rng(3), (4, 2, 3), np.float32)
    result = bench(_gather_vmap(axis=axis, tiled=True), jax.device_put(x, device))
    assert_exact(result, _reference(x, axis=axis, tiled=True))


@pytest.mark.parametrize("tiled", [False, True])
def test_all_gather_pmap_one_device(bench, device, tiled):
    # testGather: under pmap over the cell's single device the gather has one member.
    x = rand_default(np.random.default_rng(4), (1, 4, 3), np.float32)
    fn = jax.pmap(partial(lax.all_gather, axis_name="i", tiled=tiled), axis_name="i", devices=[device])
    result = bench(fn, jax.device_put(x, device))
    assert_exact(result, _reference(x, tiled=tiled))


def test_all_gather_large(bench, device):
    x = rand_default(np.random.default_rng(5), (16, 256, 64), np.float32)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    assert_exact(result, _reference(x))


# testAllGatherVjp and testGradOf: each member's gradient is the sum of the cotangents that every member's gathered
# copy of it received; to order 2 (zero: a gather is linear), stacked and tiled, in the dtypes a device trains in,
# against the CPU's float64 gradient. Under vmap's named axis (a pmap over the cell's one device would gather a single
# member, whose gradient is its cotangent alone).
@pytest.mark.parametrize("axis,tiled", [(0, False), (1, False), (0, True)], ids=["stacked", "stacked_axis1", "tiled"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_all_gather_backward(backward, device, dtype, axis, tiled):
    x = jax.device_put(rand_default(np.random.default_rng(6), (3, 4), dtype), device)
    fn = _gather_vmap(axis=axis, tiled=tiled)
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), tol=5e-2 if dtype is jnp.bfloat16 else None, order=2)
