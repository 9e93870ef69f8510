"""jax.numpy.sum: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducer, testReducerInitial, testReducerWhere for "sum") and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.add, the reduction jnp.sum lowers to: shapes (3, 4, 5) and (3, 1) over several dims, order 2, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import as_numpy, rand_default, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.sum", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducer": [
        "test_sum_dtypes", "test_sum_axis_keepdims", "test_sum_out_dtype", "test_sum_empty", "test_sum_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerInitial": ["test_sum_initial"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhere": ["test_sum_where"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_sum_backward"],
}

# testReducer's tol_spec (bfloat16 falls back to the default 1e-2; integers must match exactly).
_TOL = tolerances(float32=1e-3, float16=1e-2, bfloat16=1e-2, complex64=1e-3)


def _check(result, expected, tol_dtype):
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    tol = _TOL.get(np.dtype(tol_dtype), 0)
    np.testing.assert_allclose(as_numpy(result).astype(expected.dtype), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_sum_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.sum, jax.device_put(x, device))
    if dtype is np.bool_:
        # bool sums count the True entries in the default integer type.
        assert np.issubdtype(result.dtype, np.integer)
    else:
        assert np.dtype(result.dtype) == np.dtype(dtype)
    # Reference accumulates in double precision; upstream's 1e-2 for 16-bit floats absorbs
    # the rounding of jnp's 16-bit result.
    _check(result, np.sum(wide(x)), dtype)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_axis_keepdims(bench, device, axis, keepdims):
    x = rand_default(np.random.default_rng(1), (2, 3, 4), np.float32)
    result = bench(jnp.sum, jax.device_put(x, device), axis, keepdims=keepdims)
    assert result.dtype == np.float32
    _check(result, np.sum(x, axis=axis, keepdims=keepdims), np.float32)


@pytest.mark.parametrize("dtype,out_dtype", [
    (np.float16, np.float32),   # accumulate half precision input in float32
    (np.int32, np.float32),
    (np.float32, jnp.bfloat16),
])
def test_sum_out_dtype(bench, device, dtype, out_dtype):
    x = rand_default(np.random.default_rng(2), (4, 5), dtype)
    result = bench(jnp.sum, jax.device_put(x, device), 1, dtype=out_dtype)
    assert np.dtype(result.dtype) == np.dtype(out_dtype)
    expected = np.sum(x.astype(np.float64), axis=1)
    # Upstream: a 16-bit out_dtype accumulates in 16 bits in JAX, so it uses tol 1e-1.
    tol = 1e-1 if np.dtype(out_dtype).itemsize == 2 else _TOL[np.dtype(np.float32)]
    np.testing.assert_allclose(as_numpy(result).astype(np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 4), 0), ((3, 0), 1), ((3, 0), 0)])
def test_sum_empty(bench, device, shape, axis):
    x = np.zeros(shape, np.float32)
    result = bench(jnp.sum, jax.device_put(x, device), axis)
    _check(result, np.sum(x, axis=axis), np.float32)


@pytest.mark.parametrize("initial", [0, 1])
def test_sum_initial(bench, device, initial):
    x = rand_default(np.random.default_rng(3), (3, 4), np.float32)
    result = bench(jnp.sum, jax.device_put(x, device), -1, initial=initial)
    _check(result, np.sum(x, axis=-1, initial=initial), np.float32)


def test_sum_where(bench, device):
    rng = np.random.default_rng(4)
    x = rand_default(rng, (3, 4), np.float32)
    mask = rng.random((3, 4)) < 0.5
    # The mask is an array, so it goes positionally through a thin wrapper around jnp.sum.
    result = bench(lambda a, m: jnp.sum(a, axis=1, where=m),
                   jax.device_put(x, device), jax.device_put(mask, device))
    _check(result, np.sum(x, axis=1, where=mask), np.float32)


@pytest.mark.parametrize("axis", [None, 0])
def test_sum_large(bench, device, axis):
    # Non-negative inputs keep the relative tolerance meaningful for a million-term sum.
    x = np.random.default_rng(5).random((1024, 1024), dtype=np.float32)
    result = bench(jnp.sum, jax.device_put(x, device), axis)
    assert result.dtype == np.float32
    _check(result, np.sum(x.astype(np.float64), axis=axis), np.float32)


# testReduceGrad (lax.add): the gradient of a sum is the cotangent broadcast back over the reduced dims; to order 2
# (zero: sum is linear), in the dtypes a device trains in, against the CPU's float64 gradient.
@pytest.mark.parametrize("shape, axis", [((3, 4, 5), None), ((3, 4, 5), 0), ((3, 4, 5), (1, 2)), ((3, 1), 1)],
                         ids=["all", "axis0", "axes12", "3x1_axis1"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_sum_backward(backward, device, dtype, shape, axis):
    x = jax.device_put(rand_default(np.random.default_rng(6), shape, dtype), device)
    grads = backward(jnp.sum, x, axis)
    check_gradients(grads, jnp.sum, (x, axis), order=2)
