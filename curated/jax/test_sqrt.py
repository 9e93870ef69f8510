"""jax.numpy.sqrt: cases adapted from tests/lax_numpy_operators_test.py (the "sqrt" op record: float and complex dtypes, rand_positive inputs, all shapes, default tolerances) and tests/lax_test.py / lax_autodiff_test.py (sqrt of special values and its gradient 1/(2 sqrt x))."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import DEFAULT_TOL, rand_uniform, wide

pytestmark = pytest.mark.function("jax.numpy.sqrt", decile=100, top20=False)

# Tolerances: JAX's default test tolerances per dtype (DEFAULT_TOL).


def _positive(rng, shape, dtype):
    """Like upstream's rand_positive: values in (0.1, 4) (integers 1..9; complex with imaginary parts in (-4, 4))."""
    return rand_uniform(rng, shape, dtype, 0.1, 4, ints=(1, 10), imag=(-4, 4))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.complex64])
def test_sqrt_dtypes(bench, device, dtype):
    x = _positive(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    assert result.shape == (3, 4) and np.dtype(result.dtype) == np.dtype(dtype)
    tol = DEFAULT_TOL[np.dtype(dtype)]
    # Rounding the 16-bit input/output: compare to the reference rounded the same way.
    np.testing.assert_allclose(wide(result), wide(np.sqrt(wide(x)).astype(x.dtype)), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_sqrt_integer_promotes(bench, device, dtype):
    if jax.config.jax_enable_x64:
        pytest.skip("the default float type is float64 in x64 mode")
    x = _positive(np.random.default_rng(1), (5,), np.int32).astype(dtype)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    # Integers promote to the default float (bool and uint8 promote to it as well in JAX).
    assert np.issubdtype(result.dtype, np.floating)
    np.testing.assert_allclose(wide(result), np.sqrt(x.astype(np.float64)), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shape", [(), (1,), (4,), (2, 3, 4), (0, 3)])
def test_sqrt_shapes(bench, device, shape):
    x = _positive(np.random.default_rng(2), shape, np.float32)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    assert result.shape == shape
    np.testing.assert_allclose(np.asarray(result), np.sqrt(x), rtol=1e-6, atol=1e-6)


def test_sqrt_special_values(bench, device):
    x = np.array([0.0, -0.0, 1.0, 4.0, np.inf, -1.0, np.nan], np.float32)
    result = np.asarray(bench(jnp.sqrt, jax.device_put(x, device)))
    with np.errstate(invalid="ignore"):  # NumPy warns on sqrt(-1); NaN is the expected value
        expected = np.sqrt(x)
    np.testing.assert_array_equal(result, expected)
    assert np.signbit(result[1])  # sqrt(-0) = -0


def test_sqrt_complex_negative_real(bench, device):
    # Complex sqrt takes the principal branch: sqrt(-4 + 0j) = 2j.
    x = np.array([-4 + 0j, -1 + 0j, 3 + 4j, -3 - 4j], np.complex64)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.sqrt(x.astype(np.complex128)), rtol=1e-6, atol=1e-6)


def test_sqrt_grad(bench, device):
    x = np.linspace(0.5, 4, 8, dtype=np.float32)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.sqrt(x), rtol=1e-6)
    g = jax.vmap(jax.grad(jnp.sqrt))(x)
    np.testing.assert_allclose(np.asarray(g), 0.5 / np.sqrt(x.astype(np.float64)), rtol=1e-5)


def test_sqrt_large(bench, device):
    x = np.random.default_rng(3).random((1024, 1024), dtype=np.float32)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.sqrt(x), rtol=1e-6, atol=1e-6)
