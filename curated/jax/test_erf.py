"""jax.lax.erf: cases adapted from tests/lax_test.py (LaxTest.testOp and testOpAgainstNumpy for "erf" over the floating dtypes, with SciPy's erf as the reference) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for erf)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import DEFAULT_TOL, assert_near_reference, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.erf", decile=20, top20=False)

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


def test_erf_grad(bench, device):
    # d/dx erf(x) = 2 / sqrt(pi) * exp(-x**2).
    x = rand_default(np.random.default_rng(2), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(lax.erf(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(result), 2 / np.sqrt(np.pi) * np.exp(-x64 ** 2), rtol=1e-5, atol=1e-6)


def test_erf_large(bench, device):
    x = rand_default(np.random.default_rng(3), (512, 512), np.float32)
    result = bench(lax.erf, jax.device_put(x, device))
    _check(result, x)
