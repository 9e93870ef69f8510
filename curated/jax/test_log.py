"""jax.numpy.log: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "log", inputs from rand_positive) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for log: order 2, order 1 on TPU, rand_positive inputs, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_uniform, tolerances

pytestmark = pytest.mark.function("jax.numpy.log", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_log_dtypes", "test_log_shapes", "test_log_special_values", "test_log_complex_branch", "test_log_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_log_backward"],
}

# check_unary applies upstream's default tolerance table (the "log" record sets no override).


def _positive(rng, shape, dtype):
    """Like upstream's rand_positive: values in (0, 10) (integers 1..10, complex with positive parts)."""
    return rand_uniform(rng, shape, dtype, 0.1, 10, ints=(1, 11), imag=(0.1, 10))


@pytest.mark.parametrize("dtype,out_dtype", UNARY_DTYPES)
def test_log_dtypes(bench, device, dtype, out_dtype):
    x = _positive(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.log, jax.device_put(x, device))
    check_unary(result, np.log, x, out_dtype, device)


@pytest.mark.parametrize("shape", UNARY_SHAPES)
def test_log_shapes(bench, device, shape):
    x = _positive(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    check_unary(result, np.log, x, np.float32, device)


def test_log_special_values(bench, device):
    # log(1) = 0, log(0) = -inf, negative -> nan, +inf -> inf, tiny and huge arguments.
    x = np.array([1.0, 0.0, -0.0, -1.0, np.inf, np.nan, 1e-30, 1e30, np.e], np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    check_unary(result, np.log, x, np.float32, device)


def test_log_complex_branch(bench, device):
    # Negative reals take the principal branch: log(-x) = log(x) + i*pi.
    x = np.array([-1.0 + 0j, -2.5 + 0j, 1j, -1j], np.complex64)
    result = bench(jnp.log, jax.device_put(x, device))
    check_unary(result, np.log, x, np.complex64, device)


def test_log_large(bench, device):
    x = _positive(np.random.default_rng(2), (1024, 1024), np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    check_unary(result, np.log, x, np.float32, device)


# testOpGrad (lax.log): the gradient 1 / x times the cotangent and its derivative, on positive inputs, in the inexact
# dtypes a device trains in, against the CPU's float64 gradient. Order 2, except on TPU, where upstream checks order 1
# (its second derivative is imprecise there); bfloat16 within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2, complex64=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_log_backward(backward, device, dtype):
    x = jax.device_put(_positive(np.random.default_rng(4), (3, 4), dtype), device)
    grads = backward(jnp.log, x)
    order = 1 if device.platform == "tpu" else 2
    check_gradients(grads, jnp.log, (x,), tol=_GRAD_TOL[np.dtype(dtype)], order=order)
