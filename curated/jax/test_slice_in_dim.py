"""jax.lax.slice_in_dim: slice_in_dim is lax.slice along one axis (upstream names no test after it); cases adapted from tests/lax_test.py (LaxTest.testSlice and testSliceAgainstNumpy: start, limit and stride along one axis of shapes like (5, 3) and (7, 5, 3), default dtypes, checked exactly against NumPy slicing; None and negative indices) and tests/lax_autodiff_test.py (LaxAutodiffTest.testSliceGrad: the transpose of a slice pads the cotangent with zeros, order 2, its shapes and strides, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.slice_in_dim", decile=40, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testSlice": [
        "test_slice_in_dim", "test_slice_in_dim_dtypes", "test_slice_in_dim_large"],
    "tests/lax_test.py::LaxTest::testSliceAgainstNumpy": [
        "test_slice_in_dim", "test_slice_in_dim_none_and_negative"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testSliceGrad": ["test_slice_in_dim_backward"],
}

# slice_in_dim only selects entries: every check is exact (assert_exact).


@pytest.mark.parametrize("shape,start,limit,stride,axis", [
    ((5,), 1, 4, 1, 0),
    ((5, 3), 1, 3, 1, 0),
    ((5, 3), 0, 3, 2, 1),
    ((7, 5, 3), 1, 7, 2, 0),
    ((7, 5, 3), 0, 5, 3, 1),
    ((7, 5, 3), 2, 3, 1, 2),
    ((5, 3), 2, 2, 1, 0),  # empty slice
])
def test_slice_in_dim(bench, device, shape, start, limit, stride, axis):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), start, limit, stride, axis)
    index = [slice(None)] * len(shape)
    index[axis] = slice(start, limit, stride)
    assert_exact(result, x[tuple(index)])


@pytest.mark.parametrize("start,limit", [(None, 3), (2, None), (None, None), (-3, -1), (1, -1)])
def test_slice_in_dim_none_and_negative(bench, device, start, limit):
    # None means the start/end of the axis; negative indices count from the end.
    x = rand_default(np.random.default_rng(1), (4, 6), np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), start, limit, axis=1)
    assert_exact(result, x[:, start:limit])


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_slice_in_dim_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (6, 4), dtype)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), 1, 5, 2, 0)
    assert_exact(result, x[1:5:2])


def test_slice_in_dim_large(bench, device):
    x = rand_default(np.random.default_rng(4), (1024, 1024), np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), 100, 900, 3, 1)
    assert_exact(result, x[:, 100:900:3])


# testSliceGrad: the gradient is the cotangent scattered back into the sliced positions, zeros elsewhere; to order 2
# (zero: a slice is linear), in testSliceGrad's shapes and strides along one axis, in the dtypes a device trains in,
# against the CPU's float64 gradient.
@pytest.mark.parametrize("shape,start,limit,stride,axis", [
    ((8,), 2, 7, 2, 0), ((5, 3), 1, 3, 1, 0), ((7, 5, 3), 0, 1, 1, 1), ((3, 3, 5), 0, 5, 2, 2),
])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_slice_in_dim_backward(backward, device, dtype, shape, start, limit, stride, axis):
    x = jax.device_put(rand_default(np.random.default_rng(3), shape, dtype), device)
    grads = backward(lax.slice_in_dim, x, start, limit, stride, axis)
    check_gradients(grads, lax.slice_in_dim, (x, start, limit, stride, axis), order=2)
    index = [slice(None)] * len(shape)
    index[axis] = slice(start, limit, stride)
    outside = np.ones(shape, bool)
    outside[tuple(index)] = False
    assert not np.asarray(grads[0], np.float32)[outside].any()  # zeros where nothing was sliced
