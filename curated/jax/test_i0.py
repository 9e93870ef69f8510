"""jax.scipy.special.i0: cases adapted from tests/lax_scipy_special_functions_test.py (LaxScipySpcialFunctionsTest.testScipySpecialFun with op "i0", rand_default inputs, SciPy as the reference) and its gradient check."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_near_reference, rand_default, tolerances

pytestmark = pytest.mark.function("jax.scipy.special.i0", decile=20, top20=False)

# testScipySpecialFun compares with SciPy at atol = rtol = 1e-3 for float32; 16-bit inputs use the
# looser default tolerance of their dtype.
_TOL = tolerances(float32=1e-3, float16=1e-2, bfloat16=5e-2)


def _scipy_i0(x):
    from scipy import special  # SciPy is the reference, as upstream (imported lazily)
    return special.i0(x)


def _check(result, x, out_dtype):
    assert_near_reference(result, _scipy_i0(np.asarray(x).astype(np.float64)), out_dtype, _TOL)


# Upstream's all_shapes for special functions.
@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (3, 1), (1, 4), (2, 1, 4), (0,)])
def test_i0_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, np.float32)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_i0_half_precision(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (3, 4), dtype)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, dtype)


def test_i0_integer_input(bench, device):
    # Integer arguments promote to the default float.
    x = np.arange(-5, 6, dtype=np.int32)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, np.float32)


def test_i0_special_points(bench, device):
    # i0(0) = 1, even symmetry, large arguments (exponential growth) and +-inf -> inf.
    x = np.array([0.0, -0.0, 1e-4, 0.5, -0.5, 10.0, -10.0, 50.0, 85.0, np.inf, -np.inf], np.float32)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, np.float32)


def test_i0_grad(bench, device):
    # d/dx i0(x) = i1(x).
    from scipy import special
    x = rand_default(np.random.default_rng(2), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jax.scipy.special.i0(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), special.i1(x.astype(np.float64)), rtol=1e-3, atol=1e-3)


def test_i0_large(bench, device):
    x = rand_default(np.random.default_rng(3), (512, 512), np.float32)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, np.float32)
