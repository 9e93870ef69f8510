"""jax.numpy.cos: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "cos") and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for cos)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_default

pytestmark = pytest.mark.function("jax.numpy.cos", decile=90, top20=False)

# check_unary applies upstream's default tolerance table (the "cos" record sets no override) and, on TPU,
# the 1e-4 that upstream's testOp joins for cos there; cos(+-inf) is nan, as expected.


@pytest.mark.parametrize("dtype,out_dtype", UNARY_DTYPES)
def test_cos_dtypes(bench, device, dtype, out_dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.cos, jax.device_put(x, device))
    check_unary(result, np.cos, x, out_dtype, device)


@pytest.mark.parametrize("shape", UNARY_SHAPES)
def test_cos_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    check_unary(result, np.cos, x, np.float32, device)


def test_cos_special_values(bench, device):
    # Exact points, large arguments that need careful range reduction, and inf/nan -> nan.
    x = np.array([0.0, -0.0, np.pi, -np.pi / 2, 100.0, -1e4, np.inf, -np.inf, np.nan], np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    check_unary(result, np.cos, x, np.float32, device)


def test_cos_large(bench, device):
    x = rand_default(np.random.default_rng(2), (512, 512), np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    check_unary(result, np.cos, x, np.float32, device)


def test_cos_grad(bench, device):
    # Upstream checks reverse-mode grads; d/dx cos(x) = -sin(x).
    x = rand_default(np.random.default_rng(3), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.cos(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    tol = 1e-4 if device.platform == "tpu" else 1e-5
    np.testing.assert_allclose(np.asarray(result), -np.sin(x.astype(np.float64)), rtol=tol, atol=tol)
