"""jax.scipy.special.gammaln: cases adapted from tests/lax_scipy_special_functions_test.py (LaxScipySpecialFunctionsTest.testScipySpecialFun with op "gammaln": rand_positive inputs, the floating dtypes; its record leaves the gradient check out for gammaln's error, but training calls it, so the cases check digamma, gammaln's gradient, at upstream's gradient tolerance and eps); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_uniform, tolerances

pytestmark = pytest.mark.function("jax.scipy.special.gammaln", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_scipy_special_functions_test.py::LaxScipySpecialFunctionsTest::testScipySpecialFun": [
        "test_gammaln_shapes", "test_gammaln_half_precision", "test_gammaln_integer_input",
        "test_gammaln_special_points", "test_gammaln_large", "test_gammaln_backward"],
}

# testScipySpecialFun compares against SciPy with atol = rtol = 1e-3 (upstream notes gammaln
# has slightly high error); 16-bit inputs use the looser default tolerance of their dtype.
_TOL = tolerances(float32=1e-3, float16=1e-3, bfloat16=1e-2)


def _scipy_gammaln(x):
    from scipy import special  # SciPy is the reference, as upstream (imported lazily)
    return special.gammaln(x)


def _check(result, x, out_dtype):
    assert_near_reference(result, _scipy_gammaln(np.asarray(x).astype(np.float64)), out_dtype, _TOL)


def _positive(rng, shape, low=0.1, high=10.0):
    """Positive arguments (upstream uses rand_positive), over a few orders of magnitude."""
    return rand_uniform(rng, shape, np.float32, low, high)


# Upstream's all_shapes for special functions.
@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (3, 1), (1, 4), (2, 1, 4)])
def test_gammaln_shapes(bench, device, shape):
    x = _positive(np.random.default_rng(0), shape)
    result = bench(jax.scipy.special.gammaln, jax.device_put(x, device))
    _check(result, x, np.float32)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_gammaln_half_precision(bench, device, dtype):
    x = _positive(np.random.default_rng(1), (3, 4)).astype(dtype)
    result = bench(jax.scipy.special.gammaln, jax.device_put(x, device))
    _check(result, x, dtype)


def test_gammaln_integer_input(bench, device):
    # Integer arguments promote to the default float; gammaln(n) = log((n - 1)!).
    x = np.arange(1, 13, dtype=np.int32)
    result = bench(jax.scipy.special.gammaln, jax.device_put(x, device))
    _check(result, x, np.float32)


def test_gammaln_special_points(bench, device):
    # Zeros at 1 and 2, the pole at 0 (+inf), tiny and huge arguments, and negative
    # non-integers where gammaln is log|Gamma(x)|.
    x = np.array([1.0, 2.0, 0.0, 1e-3, 0.5, 1e3, 1e6, -0.5, -2.5], np.float32)
    result = bench(jax.scipy.special.gammaln, jax.device_put(x, device))
    _check(result, x, np.float32)


def test_gammaln_large(bench, device):
    x = _positive(np.random.default_rng(2), (512, 512), low=1e-3, high=1e3)
    result = bench(jax.scipy.special.gammaln, jax.device_put(x, device))
    _check(result, x, np.float32)


# The gradient, digamma(x) times the cotangent, on positive arguments, in the floating dtypes a device trains in;
# against the CPU's float64 gradient at testScipySpecialFun's gradient tolerance (1e-3 absolute; bfloat16 wider),
# with check_grads' eps of 1e-3 in float64 on the CPU.
_GRAD_TOL = tolerances(float32=1e-3, bfloat16=5e-2)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_gammaln_backward(backward, device, dtype):
    x = jax.device_put(_positive(np.random.default_rng(3), (8,), low=0.5, high=5.0).astype(dtype), device)
    grads = backward(jax.scipy.special.gammaln, x)
    check_gradients(grads, jax.scipy.special.gammaln, (x,), tol=_GRAD_TOL[np.dtype(dtype)], eps=1e-3)
