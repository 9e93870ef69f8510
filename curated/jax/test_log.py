"""jax.numpy.log: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "log", inputs from rand_positive) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for log)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_uniform

pytestmark = pytest.mark.function("jax.numpy.log", decile=100, top20=True)

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


def test_log_grad(bench, device):
    # d/dx log(x) = 1 / x.
    x = _positive(np.random.default_rng(3), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.log(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), 1 / x.astype(np.float64), rtol=1e-5, atol=1e-6)
