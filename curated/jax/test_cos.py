"""jax.numpy.cos: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "cos") and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for cos, order 2, over the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import UNARY_DTYPES, UNARY_SHAPES, check_unary, rand_default, tolerances

pytestmark = pytest.mark.function("jax.numpy.cos", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_cos_dtypes", "test_cos_shapes", "test_cos_special_values", "test_cos_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_cos_backward"],
}

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


# testOpGrad: cos's gradient (-sin(x) times the cotangent) and, to order 2, its derivative, in the inexact dtypes a
# device trains in; against the CPU's float64 gradient, with check_grads in float64 on the CPU. bfloat16 at upstream's
# gradient tolerance for 16-bit types (testOpGrad joins 1e-1 there; 5e-2 holds).
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2, complex64=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_cos_backward(backward, device, dtype):
    x = jax.device_put(rand_default(np.random.default_rng(3), (3, 4), dtype), device)
    grads = backward(jnp.cos, x)
    check_gradients(grads, jnp.cos, (x,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
