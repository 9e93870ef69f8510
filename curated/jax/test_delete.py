"""jax.numpy.delete: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testDeleteInteger, testDeleteSlice, testDeleteIndexArray, testDeleteUniqueIndices, testDeleteMaskArray) and tests/lax_autodiff_test.py (LaxAutodiffTest.testSliceGrad and testGatherGrad: the slices an integer or slice obj lowers to, the gather an index array or mask lowers to, order 2, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here.

An index-array obj must be concrete, so those calls are timed eagerly by the harness (compiled=False);
integer and slice objs are static and compile."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.delete", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testDeleteInteger": ["test_delete_int", "test_delete_dtypes", "test_delete_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testDeleteSlice": ["test_delete_slice"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testDeleteIndexArray": ["test_delete_index_array"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testDeleteUniqueIndices": "checks assume_unique_indices=True, a flag the study's calls leave at its "
                                    "default",
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testDeleteMaskArray": ["test_delete_mask_array"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testSliceGrad": ["test_delete_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testGatherGrad": ["test_delete_index_backward"],
}

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


# testSliceGrad: an integer or slice obj keeps slices of the input; their cotangents go back in place, zeros where
# entries were deleted, to order 2, in the floating dtypes a device trains in.
@pytest.mark.parametrize("obj,axis", [(1, 0), (-2, 1), (slice(1, 3), 1), (slice(None, None, 2), None)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_delete_backward(backward, device, dtype, obj, axis):
    x = jax.device_put(rand_default(np.random.default_rng(6), (3, 4), dtype), device)
    fn = lambda a: jnp.delete(a, obj, axis)  # noqa: E731
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), order=2)


# testGatherGrad: an index array or boolean mask obj keeps the other entries through a gather; its transpose
# scatters the cotangent back, to order 2, in the floating dtypes a device trains in. The obj is not differentiated.
@pytest.mark.parametrize("obj", [np.array([0, 2], np.int32), np.array([True, False, False, True])])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_delete_index_backward(backward, device, dtype, obj):
    x = jax.device_put(rand_default(np.random.default_rng(7), (3, 4), dtype), device)
    grads = backward(jnp.delete, x, jax.device_put(obj, device), 1)
    check_gradients(grads, jnp.delete, (x, jax.device_put(obj, device), 1), order=2)
