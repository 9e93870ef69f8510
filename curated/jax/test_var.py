"""jax.numpy.var: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testStdOrVar: shapes (5,) and (10, 5), axis None/0/-1, ddof and correction, out dtype with its tolerance; testReducerNoDtype and testReducerWhereNoInitial for "var"; testStdOrVarLargeDdofReturnsNan) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.add, the reductions var is built from: order 2, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.var", decile=80, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testStdOrVar": [
        "test_var_axis_ddof", "test_var_out_dtype_keepdims", "test_var_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerNoDtype": ["test_var_dtypes"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhereNoInitial": ["test_var_where"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testStdOrVarLargeDdofReturnsNan": [
        "test_var_large_ddof_is_nan"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_var_backward"],
}

# testStdOrVar's tolerance per output dtype.
_TOL = tolerances(float16=1e-1, float32=1e-3, complex64=1e-3, bfloat16=1e-1)


@pytest.mark.parametrize("dtype,out", [
    (np.float32, np.float32), (np.float16, np.float16), (jnp.bfloat16, jnp.bfloat16),
    (np.int32, np.float32), (np.bool_, np.float32),
    # The variance of complex values is real.
    (np.complex64, np.float32),
])
def test_var_dtypes(bench, device, dtype, out):
    if jax.config.jax_enable_x64:
        pytest.skip("the default float type is float64 in x64 mode")
    x = rand_default(np.random.default_rng(0), (10, 5), dtype)
    result = bench(jnp.var, jax.device_put(x, device))
    assert result.shape == () and np.dtype(result.dtype) == np.dtype(out)
    tol = _TOL.get(np.dtype(out), 1e-3)
    np.testing.assert_allclose(wide(result), np.var(wide(x)), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(5,), (10, 5)])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("ddof", [0, 1])
def test_var_axis_ddof(bench, device, shape, axis, ddof):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.var, jax.device_put(x, device), axis, ddof=ddof)
    expected = np.var(x.astype(np.float64), axis=axis, ddof=ddof)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("out_dtype", [np.float32, np.float16])
def test_var_out_dtype_keepdims(bench, device, keepdims, out_dtype):
    x = rand_default(np.random.default_rng(2), (10, 5), np.int32)
    result = bench(jnp.var, jax.device_put(x, device), 0, dtype=out_dtype, keepdims=keepdims)
    expected = np.var(x.astype(np.float64), axis=0, keepdims=keepdims)
    assert result.shape == expected.shape and np.dtype(result.dtype) == np.dtype(out_dtype)
    tol = _TOL[np.dtype(out_dtype)]
    np.testing.assert_allclose(wide(result), expected, rtol=tol, atol=tol)


def test_var_where(bench, device):
    rng = np.random.default_rng(3)
    x = rand_default(rng, (4, 6), np.float32)
    mask = rng.random((4, 6)) < 0.7
    mask[:, :2] = True  # at least two values per row
    result = bench(jnp.var, jax.device_put(x, device), 1, where=jax.device_put(mask, device))
    np.testing.assert_allclose(np.asarray(result), np.var(x.astype(np.float64), axis=1, where=mask),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("size", [1, 2])
def test_var_large_ddof_is_nan(bench, device, size):
    # ddof >= the number of values gives NaN (jax issue 21330).
    x = np.arange(size, dtype=np.float32)
    result = bench(jnp.var, jax.device_put(x, device), ddof=size)
    assert result.shape == () and np.isnan(float(result))


def test_var_large(bench, device):
    x = np.random.default_rng(5).standard_normal((1024, 1024)).astype(np.float32)
    result = bench(jnp.var, jax.device_put(x, device), 0)
    assert result.shape == (1024,) and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), np.var(x.astype(np.float64), axis=0), rtol=1e-3, atol=1e-3)


# testReduceGrad (lax.add): var's gradient 2 (x - mean) / (n - ddof) times the cotangent and, to order 2, its
# derivative, over testStdOrVar's axes and ddof, in the dtypes a device trains in (complex: the variance is real),
# against the CPU's float64 gradient; bfloat16 within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-5, bfloat16=5e-2, complex64=1e-5)


@pytest.mark.parametrize("axis,ddof", [(None, 0), (0, 1), (-1, 0)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_var_backward(backward, device, dtype, axis, ddof):
    x = jax.device_put(rand_default(np.random.default_rng(6), (10, 5), dtype), device)
    grads = backward(jnp.var, x, axis, ddof=ddof)
    check_gradients(grads, jnp.var, (x, axis), {"ddof": ddof}, tol=_GRAD_TOL[np.dtype(dtype)], order=2)
