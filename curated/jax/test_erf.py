"""jax.lax.erf: cases adapted from tests/lax_test.py (LaxTest.testOp and testOpAgainstNumpy for "erf" over the floating dtypes, with SciPy's erf as the reference) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for erf: order 2, rand_small inputs, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import DEFAULT_TOL, assert_near_reference, rand_default, rand_uniform, tolerances
from jax import lax

pytestmark = pytest.mark.function("jax.lax.erf", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testOp": ["test_erf_dtypes", "test_erf_shapes", "test_erf_large"],
    "tests/lax_test.py::LaxTest::testOpAgainstNumpy": [
        "test_erf_dtypes", "test_erf_special_values", "test_erf_small_arguments"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_erf_backward"],
}

# Upstream's default tolerances for the floating dtypes (DEFAULT_TOL).


def _scipy_erf(x):
    from scipy import special  # SciPy is the reference, as upstream (imported lazily)
    return special.erf(x)


def _check(result, x):
    assert_near_reference(result, _scipy_erf(x.astype(np.float64)), x.dtype, DEFAULT_TOL)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16])
def test_erf_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(lax.erf, jax.device_put(x, device))
    _check(result, x)


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 1, 4), (0,), (3, 0)])
def test_erf_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(lax.erf, jax.device_put(x, device))
    _check(result, x)


def test_erf_special_values(bench, device):
    # Odd symmetry around 0 (incl. -0.0), saturation to +-1, infinities and NaN.
    x = np.array([0.0, -0.0, 0.5, -0.5, 1e-6, 3.0, -3.0, 10.0, -10.0, np.inf, -np.inf, np.nan], np.float32)
    result = bench(lax.erf, jax.device_put(x, device))
    _check(result, x)
    assert np.signbit(np.asarray(result)[1])  # erf(-0.0) == -0.0


def test_erf_small_arguments(bench, device):
    # Near zero erf(x) ~ 2x/sqrt(pi): the relative error must stay small for tiny inputs.
    x = np.logspace(-30, -1, 32).astype(np.float32)
    result = bench(lax.erf, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result).astype(np.float64), _scipy_erf(x.astype(np.float64)), rtol=1e-5, atol=0)


# testOpGrad: erf's gradient (2 / sqrt(pi) exp(-x**2) times the cotangent) and, to order 2, its derivative, on
# rand_small's inputs (uniform in (-0.1, 0.1) upstream; wider here, so that exp(-x**2) is exercised); bfloat16 within
# upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-6, float16=1e-2, bfloat16=5e-2)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16])
def test_erf_backward(backward, device, dtype):
    x = jax.device_put(rand_uniform(np.random.default_rng(2), (8,), dtype, -2.0, 2.0), device)
    grads = backward(lax.erf, x)
    check_gradients(grads, lax.erf, (x,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


def test_erf_large(bench, device):
    x = rand_default(np.random.default_rng(3), (512, 512), np.float32)
    result = bench(lax.erf, jax.device_put(x, device))
    _check(result, x)
