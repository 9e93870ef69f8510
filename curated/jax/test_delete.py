"""jax.numpy.delete: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testDelete, testDeleteSlice, testDeleteIndexArray, testDeleteMaskArray).

An index-array obj must be concrete, so those calls are timed eagerly by the harness (compiled=False);
integer and slice objs are static and compile."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.delete", decile=100, top20=True)

# delete only drops entries: exact values, same dtype (assert_exact).


# testDelete: an integer obj, negative ones included, on every axis (None flattens).
@pytest.mark.parametrize("shape,axis,obj", [
    ((5,), 0, 0), ((5,), 0, -1), ((3, 4), 0, 1), ((3, 4), 1, -2), ((3, 4), None, 7),
    ((2, 3, 4), 2, 3), ((2, 3, 4), -2, 0),
])
def test_delete_int(bench, device, shape, axis, obj):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.delete, jax.device_put(x, device), obj, axis)
    assert_exact(result, np.delete(x, obj, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_delete_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (3, 4), dtype)
    result = bench(jnp.delete, jax.device_put(x, device), 2, 1)
    assert_exact(result, np.delete(x, 2, 1))


# testDeleteSlice: starts, stops and steps of both signs.
@pytest.mark.parametrize("slc", [slice(None), slice(1, 3), slice(None, None, 2), slice(-3, None), slice(None, None, -2), slice(4, 0, -1)])
def test_delete_slice(bench, device, slc):
    x = rand_default(np.random.default_rng(2), (4, 6), np.float32)
    result = bench(jnp.delete, jax.device_put(x, device), slc, 1)
    assert_exact(result, np.delete(x, slc, 1))


# testDeleteIndexArray: repeated and negative indices delete each position once.
@pytest.mark.parametrize("idx,axis", [([0, 2], 1), ([-1, 0, 0], 0), ([], 1), ([1, 3, 5, 7, 9], None)])
def test_delete_index_array(bench, device, idx, axis):
    x = rand_default(np.random.default_rng(3), (3, 4), np.float32)
    obj = np.array(idx, dtype=np.int32)
    result = bench(jnp.delete, jax.device_put(x, device), obj, axis)
    assert_exact(result, np.delete(x, obj, axis))


# testDeleteMaskArray: a boolean obj of the axis length marks the entries to drop.
@pytest.mark.parametrize("axis", [0, 1, None])
def test_delete_mask_array(bench, device, axis):
    rng = np.random.default_rng(4)
    x = rand_default(rng, (3, 4), np.float32)
    n = x.size if axis is None else x.shape[axis]
    mask = rng.random(n) < 0.5
    result = bench(jnp.delete, jax.device_put(x, device), mask, axis)
    assert_exact(result, np.delete(x, mask, axis))


def test_delete_large(bench, device):
    x = rand_default(np.random.default_rng(5), (1024, 1024), np.float32)
    result = bench(jnp.delete, jax.device_put(x, device), slice(100, 200), 0)
    assert_exact(result, np.delete(x, slice(100, 200), 0))
