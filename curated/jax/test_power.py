"""jax.numpy.power: cases adapted from tests/lax_numpy_operators_test.py (the "power" op record: positive bases from rand_positive, broadcasting shapes, default tolerances) and tests/lax_numpy_test.py (testIntegerPower with static integer exponents, testIntegerPowerOverflow, power of negative bases and integer dtypes) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for lax.pow: order 2, rand_positive operands, the inexact dtypes; testPowSecondDerivative at a zero exponent; testPowIntPowerAtZero and testPowIntPowerAtZero2: static integer exponents, at zero); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import DEFAULT_TOL, rand_uniform, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.power", decile=80, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_power_dtypes", "test_power_broadcasting", "test_power_negative_base", "test_power_special_values",
        "test_power_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIntegerPower": ["test_power_static_integer_exponent"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIntegerPowerOverflow": ["test_power_integer_overflow_wraps"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_power_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testPowSecondDerivative": ["test_power_zero_exponent_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testPowIntPowerAtZero": ["test_power_static_integer_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testPowIntPowerAtZero2": ["test_power_static_integer_backward"],
}

# Tolerances: JAX's default test tolerances per dtype (DEFAULT_TOL).


def _positive(rng, shape, dtype):
    """Like upstream's rand_positive: values in (0, 4] (1..3 for integers; complex parts in (0.1, 2))."""
    high = 2 if np.issubdtype(np.dtype(dtype), np.complexfloating) else 4
    return rand_uniform(rng, shape, dtype, 0.1, high, ints=(1, 4), imag=(0.1, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.complex64, np.int32, np.uint8])
def test_power_dtypes(bench, device, dtype):
    rng = np.random.default_rng(0)
    x, y = _positive(rng, (3, 4), dtype), _positive(rng, (3, 4), dtype)
    result = bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device))
    assert result.shape == (3, 4) and np.dtype(result.dtype) == np.dtype(dtype)
    expected = np.power(wide(x), wide(y))
    if np.issubdtype(np.dtype(dtype), np.integer):
        np.testing.assert_array_equal(wide(result), expected.astype(dtype).astype(np.int64))
    else:
        # Bases and exponents up to 4 give results up to 256: the relative tolerance scales with it.
        tol = 2 * DEFAULT_TOL[np.dtype(dtype)]
        np.testing.assert_allclose(wide(result), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("xshape,yshape", [((3, 4), ()), ((), (5,)), ((2, 1, 4), (3, 1)), ((4,), (3, 4))])
def test_power_broadcasting(bench, device, xshape, yshape):
    rng = np.random.default_rng(1)
    x, y = _positive(rng, xshape, np.float32), _positive(rng, yshape, np.float32)
    result = bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device))
    expected = np.power(x.astype(np.float64), y.astype(np.float64))
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, 7, -1, -3])
def test_power_static_integer_exponent(bench, device, exponent):
    # testIntegerPower: a Python int exponent (static) is computed by repeated multiplication.
    x = np.random.default_rng(2).uniform(-2, 2, (4, 5)).astype(np.float32)
    x[np.abs(x) < 0.2] = 0.5  # keep away from 0 for negative exponents
    result = bench(jnp.power, jax.device_put(x, device), exponent)
    assert result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), np.power(x.astype(np.float64), exponent), rtol=1e-5, atol=1e-6)


def test_power_integer_overflow_wraps(bench, device):
    # testIntegerPowerOverflow: integer powers wrap around like NumPy's.
    x = np.array([2, 3, 10], np.int32)
    y = np.array([31, 20, 10], np.int32)
    result = bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device))
    assert result.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(result), np.power(x, y))


def test_power_negative_base(bench, device):
    # Real negative base: integer-valued exponents are exact, fractional ones give NaN.
    x = np.array([-2.0, -2.0, -8.0, -1.5], np.float32)
    y = np.array([2.0, 3.0, 1.0 / 3.0, 0.5], np.float32)
    result = np.asarray(bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device)))
    np.testing.assert_allclose(result[:2], [4.0, -8.0], rtol=1e-6)
    assert np.isnan(result[2:]).all()


def test_power_special_values(bench, device):
    x = np.array([0.0, 0.0, 1.0, np.inf, np.nan, 2.0], np.float32)
    y = np.array([0.0, 2.0, np.nan, -1.0, 0.0, np.inf], np.float32)
    result = np.asarray(bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device)))
    np.testing.assert_array_equal(result, np.power(x, y))


def test_power_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = _positive(rng, (1024, 1024), np.float32), rng.uniform(-2, 2, (1024, 1024)).astype(np.float32)
    result = bench(jnp.power, jax.device_put(x, device), jax.device_put(y, device))
    np.testing.assert_allclose(np.asarray(result), np.power(x.astype(np.float64), y), rtol=1e-5, atol=1e-6)


# testOpGrad (lax.pow): the gradients y x**(y - 1) and log(x) x**y times the cotangent and, to order 2, their
# derivatives, on positive operands, also broadcast, in the dtypes a device trains in, against the CPU's float64
# gradient (upstream skips this test on TPU as imprecise there; it runs here, and a TPU's divergence is a result).
_GRAD_TOL = tolerances(float32=1e-5, bfloat16=1e-1, complex64=1e-5)


@pytest.mark.parametrize("xshape,yshape", [((3, 4), (3, 4)), ((3, 4), ())], ids=["same", "scalar_exponent"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_power_backward(backward, device, dtype, xshape, yshape):
    rng = np.random.default_rng(4)
    x = jax.device_put(_positive(rng, xshape, dtype), device)
    y = jax.device_put(_positive(rng, yshape, dtype), device)
    grads = backward(jnp.power, x, y)
    check_gradients(grads, jnp.power, (x, y), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


def test_power_zero_exponent_backward(backward, device):
    # testPowSecondDerivative: at y = 0 the first derivatives are 0 (in x) and log(x) (in y), the second 1/x and
    # log(x)**2, and nothing is 0 ** 0.
    x = jax.device_put(np.array([4.0, 0.5, 2.0], np.float32), device)
    y = jax.device_put(np.zeros(3, np.float32), device)
    grads = backward(jnp.power, x, y)
    check_gradients(grads, jnp.power, (x, y), tol=_GRAD_TOL[np.dtype(np.float32)], order=2)


@pytest.mark.parametrize("exponent", [0, 1, 2, 3])
def test_power_static_integer_backward(backward, device, exponent):
    # testPowIntPowerAtZero(2): a Python int exponent (integer_pow) has the gradient n x**(n - 1), 0 at x = 0 for
    # n = 0 and n >= 2 (not nan), 1 for n = 1; the exponent is not differentiated.
    x = jax.device_put(np.array([0.0, 3.14, -1.5, 0.5], np.float32), device)
    grads = backward(jnp.power, x, exponent)
    check_gradients(grads, jnp.power, (x, exponent), order=2)
