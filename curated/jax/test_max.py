"""jax.numpy.max: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducerNoDtype, testReducerInitial, testReducerWhere and testReducerNoInitialZeroDims for "max") and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.max, the reduction jnp.max lowers to: order 2, distinct values (rand_unique_int), its shapes and dims, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import REDUCE_GRAD_IDS, REDUCE_GRAD_SHAPES, as_numpy, rand_default

pytestmark = pytest.mark.function("jax.numpy.max", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerNoDtype": [
        "test_max_dtypes", "test_max_axis_keepdims", "test_max_nan_propagates", "test_max_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerInitial": ["test_max_initial"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhere": ["test_max_where"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerNoInitialZeroDims": [
        "test_max_zero_size_nonreduced_axis"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_max_backward"],
}


# max selects one of its inputs: the result is exact for every dtype.
@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.int8, np.uint8, np.bool_])
def test_max_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.max, jax.device_put(x, device))
    assert result.shape == () and np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(as_numpy(result), np.max(as_numpy(x)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_max_axis_keepdims(bench, device, axis, keepdims):
    x = rand_default(np.random.default_rng(1), (2, 3, 4), np.float32)
    result = bench(jnp.max, jax.device_put(x, device), axis, keepdims=keepdims)
    expected = np.max(x, axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("initial", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_max_initial(bench, device, initial, dtype):
    x = rand_default(np.random.default_rng(2), (3, 4), dtype)
    result = bench(jnp.max, jax.device_put(x, device), -1, initial=initial)
    expected = np.max(x, axis=-1, initial=initial)
    assert np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("axis", [None, 1])
def test_max_where(bench, device, axis):
    rng = np.random.default_rng(3)
    x = rand_default(rng, (3, 4), np.float32)
    mask = rng.random((3, 4)) < 0.5
    # where needs an initial value (an empty selection has no maximum).
    result = bench(jnp.max, jax.device_put(x, device), axis, initial=-10.0,
                   where=jax.device_put(mask, device))
    expected = np.max(x, axis=axis, initial=-10.0, where=mask)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(result), expected.astype(np.float32))


@pytest.mark.parametrize("shape,axis", [((0, 4), 1), ((3, 0), 0)])
def test_max_zero_size_nonreduced_axis(bench, device, shape, axis):
    # testReducerNoInitialZeroDims: reducing a non-empty axis of an empty array is fine.
    x = np.zeros(shape, np.float32)
    result = bench(jnp.max, jax.device_put(x, device), axis)
    assert result.shape == np.max(x, axis=axis).shape == (0,)


def test_max_nan_propagates(bench, device):
    # Like NumPy, a NaN anywhere in the reduced slice gives NaN.
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]], np.float32)
    result = bench(jnp.max, jax.device_put(x, device), 1)
    np.testing.assert_array_equal(np.asarray(result), np.array([np.nan, 5.0], np.float32))


def test_max_large(bench, device):
    x = np.random.default_rng(5).standard_normal((1024, 1024)).astype(np.float32)
    result = bench(jnp.max, jax.device_put(x, device), 0)
    assert result.shape == (1024,)
    np.testing.assert_array_equal(np.asarray(result), np.max(x, axis=0))


# testReduceGrad (lax.max): the cotangent goes to the position of each maximum, zeros elsewhere; to order 2 (zero:
# piecewise linear), on distinct values (a permuted range, exact in bfloat16) so that no tie splits it, in the dtypes a
# device trains in, against the CPU's float64 gradient; check_grads steps by upstream's eps for 32-bit types, well
# inside the gap between values.
@pytest.mark.parametrize("shape, axis", REDUCE_GRAD_SHAPES, ids=REDUCE_GRAD_IDS)
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_max_backward(backward, device, dtype, shape, axis):
    values = np.random.default_rng(6).permutation(np.prod(shape)).reshape(shape) - np.prod(shape) // 2
    x = jax.device_put(values.astype(dtype), device)
    grads = backward(jnp.max, x, axis)
    check_gradients(grads, jnp.max, (x, axis), order=2, eps=1e-2)
