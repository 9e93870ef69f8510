"""jax.numpy.sqrt: cases adapted from tests/lax_numpy_operators_test.py (the "sqrt" op record: float and complex dtypes, rand_positive inputs, all shapes, default tolerances) and tests/lax_test.py (LaxTest.testOpAgainstNumpy for "sqrt": special values against NumPy; FunctionAccuracyTest.testSuccessOnComplexPlane for "sqrt": the principal branch) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for sqrt: order 2, rand_positive inputs for the floating dtypes, rand_default for the complex ones); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import DEFAULT_TOL, rand_default, rand_uniform, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.sqrt", decile=100, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_sqrt_dtypes", "test_sqrt_integer_promotes", "test_sqrt_shapes", "test_sqrt_large"],
    "tests/lax_test.py::LaxTest::testOpAgainstNumpy": ["test_sqrt_special_values"],
    "tests/lax_test.py::FunctionAccuracyTest::testSuccessOnComplexPlane": ["test_sqrt_complex_negative_real"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_sqrt_backward"],
}

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


def test_sqrt_large(bench, device):
    x = np.random.default_rng(3).random((1024, 1024), dtype=np.float32)
    result = bench(jnp.sqrt, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.sqrt(x), rtol=1e-6, atol=1e-6)


# testOpGrad (lax.sqrt): the gradient 1 / (2 sqrt(x)) times the cotangent and, to order 2, its derivative, on
# upstream's inputs (positive reals; complex values from rand_default, off the branch cut), in the dtypes a device
# trains in, against the CPU's float64 gradient; bfloat16 within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2, complex64=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_sqrt_backward(backward, device, dtype):
    rng = np.random.default_rng(4)
    x = rand_default(rng, (3, 4), dtype) if dtype is np.complex64 else _positive(rng, (3, 4), dtype)
    x = jax.device_put(x, device)
    grads = backward(jnp.sqrt, x)
    check_gradients(grads, jnp.sqrt, (x,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
