"""jax.scipy.signal.convolve2d: cases adapted from tests/scipy_signal_test.py (LaxBackedScipySignalTests.testConvolutions2D for op "convolve2d", modes full/same/valid) with SciPy as the reference."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.scipy.signal.convolve2d", decile=50, top20=False)

# testConvolutions2D's tolerances.
_TOL = {
    np.dtype(np.float16): 1e-2,
    np.dtype(jnp.bfloat16): 1e-1,
    np.dtype(np.float32): 1e-2,
    np.dtype(np.complex64): 1e-2,
}


def _rand(rng, shape, dtype):
    """Like upstream's rand_default: normal values scaled by 3 (small ints for int types)."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _precision(device):
    return lax.Precision.HIGHEST if device.platform == "tpu" else None


def _wide(x):
    x = np.asarray(x)
    if x.dtype == jnp.bfloat16:
        x = x.astype(np.float32)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _check(result, x, y, mode, dtype):
    from scipy import signal  # SciPy is the reference, as upstream (imported lazily)
    dtype = np.dtype(dtype)
    expected = signal.convolve2d(_wide(x), _wide(y), mode=mode)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == dtype
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(np.asarray(result), expected.astype(dtype))
        return
    tol = _TOL[dtype]
    np.testing.assert_allclose(_wide(result), expected, rtol=tol, atol=tol)


# Upstream's two-dimensional shapes; "valid" needs one operand at least as large in every dim.
@pytest.mark.parametrize("xshape,yshape", [((1, 1), (1, 1)), ((2, 3), (2, 2)), ((3, 4), (2, 3)), ((4, 4), (4, 4)), ((2, 2), (3, 4))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve2d_modes(bench, device, xshape, yshape, mode):
    rng = np.random.default_rng(0)
    x, y = _rand(rng, xshape, np.float32), _rand(rng, yshape, np.float32)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   mode=mode, precision=_precision(device))
    _check(result, x, y, mode, np.float32)


# Integer operands promote to the default float type.
@pytest.mark.parametrize("dtype,out_dtype", [(np.float16, np.float16), (np.int32, np.float32), (np.complex64, np.complex64)])
def test_convolve2d_dtypes(bench, device, dtype, out_dtype):
    rng = np.random.default_rng(1)
    x, y = _rand(rng, (4, 5), dtype), _rand(rng, (3, 2), dtype)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   precision=_precision(device))
    _check(result, x, y, "full", out_dtype)


def test_convolve2d_large(bench, device):
    rng = np.random.default_rng(2)
    x, y = _rand(rng, (512, 512), np.float32), _rand(rng, (5, 5), np.float32)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   mode="same", precision=_precision(device))
    _check(result, x, y, "same", np.float32)
