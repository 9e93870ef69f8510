"""jax.scipy.special.i0: cases adapted from tests/lax_scipy_special_functions_test.py (LaxScipySpecialFunctionsTest.testScipySpecialFun with op "i0", rand_default inputs, SciPy as the reference, and its gradient check: order 1, eps 1e-3, atol 1e-3, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, tolerances

pytestmark = pytest.mark.function("jax.scipy.special.i0", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_scipy_special_functions_test.py::LaxScipySpecialFunctionsTest::testScipySpecialFun": [
        "test_i0_shapes", "test_i0_half_precision", "test_i0_integer_input", "test_i0_special_points",
        "test_i0_large", "test_i0_backward"],
}

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


# testScipySpecialFun's gradient check: i1(x) times the cotangent, in the floating dtypes a device trains in; against
# the CPU's float64 gradient at upstream's gradient tolerance, with check_grads' eps of 1e-3 on the CPU.
_GRAD_TOL = tolerances(float32=1e-3, bfloat16=5e-2)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_i0_backward(backward, device, dtype):
    x = jax.device_put(rand_default(np.random.default_rng(2), (8,), dtype), device)
    grads = backward(jax.scipy.special.i0, x)
    check_gradients(grads, jax.scipy.special.i0, (x,), tol=_GRAD_TOL[np.dtype(dtype)], eps=1e-3)


def test_i0_large(bench, device):
    x = rand_default(np.random.default_rng(3), (512, 512), np.float32)
    result = bench(jax.scipy.special.i0, jax.device_put(x, device))
    _check(result, x, np.float32)
