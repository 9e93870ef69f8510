"""jax.lax.all_gather: cases adapted from tests/pmap_test.py (PythonPmapTest.testGather and its all_gather cases with axis and tiled) and tests/batching_test.py (collectives under vmap with an axis_name).

A collective needs a named axis: the sampled call is wrapped in jax.vmap(..., axis_name="i") (or a one-device
jax.pmap on the cell's device), and that wrapper is what bench times."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.lax.all_gather", decile=70, top20=False)


def _rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _gather_vmap(**kwargs):
    return jax.vmap(partial(lax.all_gather, axis_name="i", **kwargs), axis_name="i")


def _reference(x, axis=0, tiled=False):
    """Every member of the named (leading) axis receives all members' values, stacked at `axis`
    of the per-member value (or concatenated along it when tiled)."""
    n = x.shape[0]
    members = [x[j] for j in range(n)]
    gathered = np.concatenate(members, axis=axis) if tiled else np.stack(members, axis=axis)
    return np.broadcast_to(gathered, (n,) + gathered.shape)


def _check(result, expected):
    # all_gather only moves data: exact, same dtype.
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    host, expected = np.asarray(result), np.asarray(expected)
    if expected.dtype == jnp.bfloat16:
        host, expected = host.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(host, expected)


# Upstream's shapes: the leading dimension is the named axis of size n.
@pytest.mark.parametrize("shape", [(4, 4), (3, 2, 5), (1, 7), (6,)])
def test_all_gather_vmap_shapes(bench, device, shape):
    x = _rand(np.random.default_rng(0), shape, np.float32)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    _check(result, _reference(x))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8])
def test_all_gather_vmap_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(1), (4, 3), dtype)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    _check(result, _reference(x))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_all_gather_vmap_axis(bench, device, axis):
    # The gathered dimension may be inserted at any position of the per-member value.
    x = _rand(np.random.default_rng(2), (3, 2, 5), np.float32)
    result = bench(_gather_vmap(axis=axis), jax.device_put(x, device))
    _check(result, _reference(x, axis=axis))


@pytest.mark.parametrize("axis", [0, 1])
def test_all_gather_vmap_tiled(bench, device, axis):
    # testAllGatherTiled: the members are concatenated into an existing dimension.
    x = _rand(np.random.default_rng(3), (4, 2, 3), np.float32)
    result = bench(_gather_vmap(axis=axis, tiled=True), jax.device_put(x, device))
    _check(result, _reference(x, axis=axis, tiled=True))


@pytest.mark.parametrize("tiled", [False, True])
def test_all_gather_pmap_one_device(bench, device, tiled):
    # testGather: under pmap over the cell's single device the gather has one member.
    x = _rand(np.random.default_rng(4), (1, 4, 3), np.float32)
    fn = jax.pmap(partial(lax.all_gather, axis_name="i", tiled=tiled), axis_name="i", devices=[device])
    result = bench(fn, jax.device_put(x, device))
    _check(result, _reference(x, tiled=tiled))


def test_all_gather_large(bench, device):
    x = _rand(np.random.default_rng(5), (16, 256, 64), np.float32)
    result = bench(_gather_vmap(), jax.device_put(x, device))
    _check(result, _reference(x))
