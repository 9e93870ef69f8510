"""jax.numpy.power: cases adapted from tests/lax_numpy_operators_test.py (the "power" op record: positive bases from rand_positive, broadcasting shapes, default tolerances) and tests/lax_numpy_test.py (testIntegerPower with static integer exponents, testIntegerPowerOverflow, power of negative bases and integer dtypes)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import DEFAULT_TOL, rand_uniform, wide

pytestmark = pytest.mark.function("jax.numpy.power", decile=80, top20=False)

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
