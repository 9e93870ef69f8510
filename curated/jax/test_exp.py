"""jax.numpy.exp: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "exp", inputs from rand_small_positive/rand_default) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for exp: order 2, rand_small inputs, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_default, rand_uniform, tolerances, unary_reference

pytestmark = pytest.mark.function("jax.numpy.exp", decile=100, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_exp_dtypes", "test_exp_shapes", "test_exp_special_values", "test_exp_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_exp_backward"],
}

# check_unary applies upstream's default tolerance table (the "exp" record sets no override).


@pytest.mark.parametrize("dtype,out_dtype", UNARY_DTYPES)
def test_exp_dtypes(bench, device, dtype, out_dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.exp, jax.device_put(x, device))
    check_unary(result, np.exp, x, out_dtype, device)


@pytest.mark.parametrize("shape", UNARY_SHAPES)
def test_exp_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    check_unary(result, np.exp, x, np.float32, device)


def test_exp_special_values(bench, device):
    # exp(0) = 1, overflow to inf past ~88.7, underflow to 0 (and subnormals), inf/-inf/nan.
    x = np.array([0.0, -0.0, 1.0, 88.0, 89.0, -87.0, -103.0, -110.0, np.inf, -np.inf, np.nan], np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    expected = unary_reference(np.exp, x, np.float32)
    assert result.shape == expected.shape and result.dtype == np.float32
    host = np.asarray(result)
    # Relative tolerance as upstream; subnormal results are compared absolutely (flush-to-zero
    # devices may return 0 there).
    np.testing.assert_allclose(host[:6], expected[:6], rtol=1e-6, atol=0)
    np.testing.assert_allclose(host[6:8], expected[6:8], rtol=0, atol=1e-37)
    np.testing.assert_array_equal(host[8:], expected[8:])


def test_exp_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    check_unary(result, np.exp, x, np.float32, device)


# testOpGrad (lax.exp): the gradient exp(x) times the cotangent and, to order 2, its derivative, in the inexact dtypes
# a device trains in, against the CPU's float64 gradient. rand_small's inputs are tiny upstream; (-2, 2) here (complex:
# both parts), so that exp's growth shows; bfloat16 within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2, complex64=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_exp_backward(backward, device, dtype):
    x = rand_uniform(np.random.default_rng(4), (3, 4), dtype, -2.0, 2.0, imag=(-2.0, 2.0))
    x = jax.device_put(x, device)
    grads = backward(jnp.exp, x)
    check_gradients(grads, jnp.exp, (x,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
