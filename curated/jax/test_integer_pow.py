"""jax.lax.integer_pow: upstream has no test of the lax function by name; it tests the primitive through JAX NumPy, whose power with a static integer exponent traces to integer_pow (tests/lax_numpy_test.py: LaxBackedNumpyTests.testIntegerPower, testIntegerPowersArePrecise for the exactness of small integer powers, testIntegerPowerOverflow for 0 and +-1 to large powers), and its gradient through x ** n (tests/lax_autodiff_test.py: LaxAutodiffTest.testPowIntPowerAtZero and testPowIntPowerAtZero2, and testIntegerPowLinearizeEliminatesIntegerPow); the cases cover the number dtypes, small exponents of both signs and int32 wraparound, and the gradient in the inexact dtypes. UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, tolerances, wide
from jax import lax

pytestmark = pytest.mark.function("jax.lax.integer_pow", decile=40, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIntegerPower": [
        "test_integer_pow_exponents", "test_integer_pow_dtypes"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIntegerPowersArePrecise": [
        "test_integer_pow_exponents", "test_integer_pow_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIntegerPowerOverflow": [
        "test_integer_pow_overflow", "test_integer_pow_large_exponent"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testPowIntPowerAtZero": [
        "test_integer_pow_backward", "test_integer_pow_at_zero_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testPowIntPowerAtZero2": ["test_integer_pow_at_zero_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testIntegerPowLinearizeEliminatesIntegerPow":
        "checks which primitives a linearized jaxpr contains (a tracing property): no device computation; the "
        "gradient's values are test_integer_pow_backward's",
}

# Upstream's tolerances for repeated multiplication.
_TOL = tolerances(float32=1e-5, float16=1e-2, bfloat16=2e-2, complex64=1e-5)


def _check(result, x, y):
    # integer_pow keeps the operand dtype.
    if np.issubdtype(x.dtype, np.integer):
        # Integer powers wrap around like NumPy's fixed-width multiplication.
        expected = np.power(x, y, dtype=x.dtype)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = wide(x) ** y
    assert_near_reference(result, expected, x.dtype, _TOL)


@pytest.mark.parametrize("y", [-3, -2, -1, 0, 1, 2, 3, 7])
def test_integer_pow_exponents(bench, device, y):
    # Keep the base away from zero so negative powers stay finite.
    rng = np.random.default_rng(0)
    x = rand_default(rng, (5, 7), np.float32)
    x = np.where(np.abs(x) < 0.5, 0.5, x).astype(np.float32)
    result = bench(lax.integer_pow, jax.device_put(x, device), y)
    _check(result, x, y)


@pytest.mark.parametrize("dtype,y", [
    (np.float16, 3), (jnp.bfloat16, 2), (np.complex64, 3), (np.complex64, -2),
    (np.int32, 3), (np.int8, 2), (np.uint8, 2),
])
def test_integer_pow_dtypes(bench, device, dtype, y):
    rng = np.random.default_rng(1)
    x = rand_default(rng, (3, 4), dtype) if not np.issubdtype(np.dtype(dtype), np.unsignedinteger) \
        else rng.integers(0, 16, size=(3, 4)).astype(dtype)
    if y < 0:
        x = np.where(np.abs(x) < 0.5, 1, x).astype(dtype)
    result = bench(lax.integer_pow, jax.device_put(x, device), y)
    _check(result, x, y)


def test_integer_pow_overflow(bench, device):
    # testIntegerPowOverflow: int32 results wrap around instead of saturating.
    x = np.array([46341, -46341, 3, 1 << 16], np.int32)
    result = bench(lax.integer_pow, jax.device_put(x, device), 2)
    _check(result, x, 2)


def test_integer_pow_large_exponent(bench, device):
    # Large exponents of values near 1 (repeated squaring), and 0 ** 0 == 1.
    x = np.array([1.0, -1.0, 1.001, 0.999, 0.0], np.float32)
    result = bench(lax.integer_pow, jax.device_put(x, device), 1000)
    host = np.asarray(result)
    np.testing.assert_allclose(host[:4], wide(x[:4]) ** 1000, rtol=1e-3)
    assert host[4] == 0.0
    zero_pow = lax.integer_pow(jax.device_put(np.zeros(2, np.float32), device), 0)
    np.testing.assert_array_equal(np.asarray(zero_pow), np.ones(2, np.float32))


def test_integer_pow_large(bench, device):
    x = rand_default(np.random.default_rng(2), (1024, 1024), np.float32)
    result = bench(lax.integer_pow, jax.device_put(x, device), 3)
    _check(result, x, 3)


# The gradient y * x**(y - 1) times the cotangent and, to order 2, its derivative, exponents of both signs (the base
# away from zero), in the inexact dtypes a device trains in, against the CPU's float64 gradient; bfloat16 within
# upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-5, bfloat16=5e-2, complex64=1e-5)


@pytest.mark.parametrize("y", [-2, 1, 3])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_integer_pow_backward(backward, device, dtype, y):
    x = rand_default(np.random.default_rng(3), (3, 4), dtype)
    x = jax.device_put(np.where(np.abs(x) < 0.5, 0.5, x).astype(dtype), device)
    grads = backward(lax.integer_pow, x, y)
    check_gradients(grads, lax.integer_pow, (x, y), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


@pytest.mark.parametrize("y", [0, 1, 2])
def test_integer_pow_at_zero_backward(backward, device, y):
    # testPowIntPowerAtZero(2): at x = 0 the gradient is 0 for y = 0 and y = 2 (not nan), 1 for y = 1.
    x = jax.device_put(np.array([0.0, 3.14, -0.7], np.float32), device)
    grads = backward(lax.integer_pow, x, y)
    check_gradients(grads, lax.integer_pow, (x, y), order=2)
