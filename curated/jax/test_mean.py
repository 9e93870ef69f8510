"""jax.numpy.mean: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducer and testReducerWhereNoInitial for "mean": inexact reference, tol_spec per dtype) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.add, the reduction jnp.mean divides: order 2, its shapes and dims, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import REDUCE_GRAD_IDS, REDUCE_GRAD_SHAPES, rand_default, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.mean", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducer": [
        "test_mean_dtypes", "test_mean_axis_keepdims", "test_mean_out_dtype", "test_mean_empty_is_nan",
        "test_mean_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhereNoInitial": ["test_mean_where"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_mean_backward"],
}

# testReducer's tol_spec (bfloat16 uses the default tolerance 1e-2); integer and bool inputs, whose
# mean is float32, use the float32 entry.
_TOL = tolerances(float32=1e-3, float16=1e-2, bfloat16=1e-2, complex64=1e-3)


@pytest.mark.parametrize("dtype,out", [
    (np.float32, np.float32), (np.float16, np.float16), (jnp.bfloat16, jnp.bfloat16),
    (np.complex64, np.complex64),
    # Integer and bool inputs give the default float type (float32 without x64).
    (np.int32, np.float32), (np.int16, np.float32), (np.bool_, np.float32),
])
def test_mean_dtypes(bench, device, dtype, out):
    if jax.config.jax_enable_x64:
        pytest.skip("the default float type is float64 in x64 mode")
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.mean, jax.device_put(x, device))
    assert result.shape == () and np.dtype(result.dtype) == np.dtype(out)
    tol = _TOL.get(np.dtype(dtype), 1e-3)
    np.testing.assert_allclose(wide(result), np.mean(wide(x)), rtol=tol, atol=tol)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_axis_keepdims(bench, device, axis, keepdims):
    x = rand_default(np.random.default_rng(1), (2, 3, 4), np.float32)
    result = bench(jnp.mean, jax.device_put(x, device), axis, keepdims=keepdims)
    expected = np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype,out_dtype", [(np.float16, np.float32), (np.int32, np.float32), (np.float32, np.float16)])
def test_mean_out_dtype(bench, device, dtype, out_dtype):
    x = rand_default(np.random.default_rng(2), (4, 5), dtype)
    result = bench(jnp.mean, jax.device_put(x, device), 1, dtype=out_dtype)
    assert np.dtype(result.dtype) == np.dtype(out_dtype)
    # Upstream: a 16-bit out_dtype accumulates in 16 bits in JAX, hence tol 1e-1.
    tol = 1e-1 if np.dtype(out_dtype).itemsize == 2 else 1e-3
    np.testing.assert_allclose(wide(result), np.mean(wide(x), axis=1), rtol=tol, atol=tol)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_mean_where(bench, device, axis):
    rng = np.random.default_rng(3)
    x = rand_default(rng, (4, 5), np.float32)
    mask = rng.random((4, 5)) < 0.7
    mask[:, 0] = mask[0, :] = True  # no empty slice: the mean of nothing is NaN
    result = bench(jnp.mean, jax.device_put(x, device), axis, where=jax.device_put(mask, device))
    expected = np.mean(x.astype(np.float64), axis=axis, where=mask)
    assert result.shape == expected.shape
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-3, atol=1e-3)


def test_mean_empty_is_nan(bench, device):
    # The mean of an empty slice is NaN, as in NumPy.
    x = np.zeros((0, 3), np.float32)
    result = bench(jnp.mean, jax.device_put(x, device), 0)
    assert result.shape == (3,) and np.isnan(np.asarray(result)).all()


@pytest.mark.parametrize("axis", [None, 1])
def test_mean_large(bench, device, axis):
    x = np.random.default_rng(5).random((1024, 1024), dtype=np.float32)
    result = bench(jnp.mean, jax.device_put(x, device), axis)
    assert result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), np.mean(x.astype(np.float64), axis=axis), rtol=1e-3, atol=1e-3)


# testReduceGrad (lax.add): the gradient of a mean is the cotangent broadcast back over the reduced dims and divided by
# their size; to order 2 (zero: mean is linear), in the dtypes a device trains in, against the CPU's float64 gradient.
@pytest.mark.parametrize("shape, axis", REDUCE_GRAD_SHAPES, ids=REDUCE_GRAD_IDS)
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_mean_backward(backward, device, dtype, shape, axis):
    x = jax.device_put(rand_default(np.random.default_rng(6), shape, dtype), device)
    grads = backward(jnp.mean, x, axis)
    check_gradients(grads, jnp.mean, (x, axis), order=2)
