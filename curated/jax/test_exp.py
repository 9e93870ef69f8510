"""jax.numpy.exp: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "exp", inputs from rand_small_positive/rand_default) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for exp)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_default, unary_reference

pytestmark = pytest.mark.function("jax.numpy.exp", decile=100, top20=False)

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


def test_exp_grad(bench, device):
    # d/dx exp(x) = exp(x).
    x = rand_default(np.random.default_rng(4), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.exp(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.exp(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
