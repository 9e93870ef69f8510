"""jax.lax.pmax: cases adapted from tests/pmap_test.py (PythonPmapTest.testReduceMax: x - pmax(x) over a named axis; testTrees and testCollectivesWithTreesOfDifferentDtypes: pytree operands; VmapPmapCollectivesTest.testCollectivesWithVmap: over a tuple of axes in nested maps) and tests/batching_test.py (BatchingTest.testCommAssocCollective: pmax under vmap over one or several axis names); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A collective needs a named axis: the sampled call is wrapped in jax.vmap(..., axis_name="i") (or a
one-device jax.pmap on the cell's device), and that wrapper is what bench times."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, assert_exact, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.pmax", decile=10, top20=False,
                                  backward="no differentiation rule: JAX raises NotImplementedError "
                                           "(Differentiation rule for 'pmax' not implemented)")

UPSTREAM_TESTS = {
    "tests/pmap_test.py::PythonPmapTest::testReduceMax": ["test_pmax_pmap_one_device", "test_pmax_vmap_shapes",
                                                         "test_pmax_vmap_dtypes", "test_pmax_large"],
    "tests/pmap_test.py::PythonPmapTest::testTrees": ["test_pmax_pytree"],
    "tests/pmap_test.py::PythonPmapTest::testCollectivesWithTreesOfDifferentDtypes": ["test_pmax_pytree"],
    "tests/pmap_test.py::VmapPmapCollectivesTest::testCollectivesWithVmap": ["test_pmax_nested_axes",
                                                                            "test_pmax_inner_axis_only"],
    "tests/batching_test.py::BatchingTest::testCommAssocCollective": [
        "test_pmax_vmap_shapes", "test_pmax_nested_axes", "test_pmax_inner_axis_only"],
}


def _check(result, x, axis=0):
    # Every member of the named axis receives the elementwise maximum over the axis: exact.
    expected = np.broadcast_to(np.max(as_numpy(x), axis=axis, keepdims=True), x.shape).astype(x.dtype)
    assert_exact(result, expected)


@pytest.mark.parametrize("shape", [(4, 4), (3, 2, 5), (1, 7), (8,)])
def test_pmax_vmap_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    f = jax.vmap(partial(lax.pmax, axis_name="i"), axis_name="i")
    result = bench(f, jax.device_put(x, device))
    _check(result, x)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.int8])
def test_pmax_vmap_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (4, 3), dtype)
    f = jax.vmap(partial(lax.pmax, axis_name="i"), axis_name="i")
    result = bench(f, jax.device_put(x, device))
    _check(result, x)


def test_pmax_nested_axes(bench, device):
    # A tuple of axis names reduces over both mapped axes.
    x = rand_default(np.random.default_rng(2), (2, 3, 4), np.float32)
    f = jax.vmap(jax.vmap(partial(lax.pmax, axis_name=("i", "j")), axis_name="j"), axis_name="i")
    result = bench(f, jax.device_put(x, device))
    expected = np.broadcast_to(np.max(x, axis=(0, 1), keepdims=True), x.shape)
    assert result.shape == x.shape
    np.testing.assert_array_equal(np.asarray(result), expected)


def test_pmax_inner_axis_only(bench, device):
    # Reducing over the inner named axis leaves the outer one untouched.
    x = rand_default(np.random.default_rng(3), (2, 3, 4), np.float32)
    f = jax.vmap(jax.vmap(partial(lax.pmax, axis_name="j"), axis_name="j"), axis_name="i")
    result = bench(f, jax.device_put(x, device))
    _check(result, x, axis=1)


def test_pmax_pytree(bench, device):
    rng = np.random.default_rng(4)
    tree = {"a": rand_default(rng, (4, 2), np.float32), "b": rand_default(rng, (4,), np.int32)}
    f = jax.vmap(partial(lax.pmax, axis_name="i"), axis_name="i")
    result = bench(f, jax.device_put(tree, device))
    assert set(result) == {"a", "b"}
    _check(result["a"], tree["a"])
    _check(result["b"], tree["b"])


def test_pmax_pmap_one_device(bench, device):
    # pmap over the cell's one device: a named axis of size 1, so pmax is the identity.
    x = rand_default(np.random.default_rng(5), (1, 6), np.float32)
    f = jax.pmap(partial(lax.pmax, axis_name="i"), axis_name="i", devices=[device])
    result = bench(f, x)
    _check(result, x)


def test_pmax_large(bench, device):
    x = rand_default(np.random.default_rng(6), (8, 128, 1024), np.float32)
    f = jax.vmap(partial(lax.pmax, axis_name="i"), axis_name="i")
    result = bench(f, jax.device_put(x, device))
    _check(result, x)
