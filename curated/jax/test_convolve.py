"""jax.numpy.convolve: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testConvolutions for op "convolve", modes full/same/valid, one-dimensional shapes, and testConvolutionsPreferredElementType)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.numpy.convolve", decile=30, top20=False)

# testConvolutions' tolerances.
_TOL = {
    np.dtype(np.float16): 2e-1,
    np.dtype(jnp.bfloat16): 2e-1,
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
    # Upstream asks for HIGHEST precision on TPU, where float32 dots default to bfloat16 passes.
    return lax.Precision.HIGHEST if device.platform == "tpu" else None


def _wide(x):
    x = np.asarray(x)
    if x.dtype == jnp.bfloat16:
        x = x.astype(np.float32)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _check(result, x, y, mode, dtype):
    dtype = np.dtype(dtype)
    expected = np.convolve(_wide(x), _wide(y), mode=mode)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == dtype
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(np.asarray(result), expected.astype(dtype))
        return
    tol = _TOL[dtype]
    np.testing.assert_allclose(_wide(result), expected, rtol=tol, atol=tol)


# Upstream's one_dim_array_shapes for both operands, every mode.
@pytest.mark.parametrize("xshape,yshape", [((1,), (1,)), ((6,), (1,)), ((6,), (12,)), ((12,), (6,)), ((12,), (12,))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_modes(bench, device, xshape, yshape, mode):
    rng = np.random.default_rng(0)
    x, y = _rand(rng, xshape, np.float32), _rand(rng, yshape, np.float32)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   mode=mode, precision=_precision(device))
    _check(result, x, y, mode, np.float32)


# convolve is inexact: integer operands promote to the default float (as promote_like_jnp).
@pytest.mark.parametrize("dtype,out_dtype", [
    (np.float16, np.float16), (jnp.bfloat16, jnp.bfloat16), (np.int32, np.float32), (np.complex64, np.complex64),
])
def test_convolve_dtypes(bench, device, dtype, out_dtype):
    rng = np.random.default_rng(1)
    x, y = _rand(rng, (12,), dtype), _rand(rng, (6,), dtype)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   precision=_precision(device))
    _check(result, x, y, "full", out_dtype)


def test_convolve_preferred_element_type(bench, device):
    # testConvolutionsPreferredElementType: int8 operands accumulated (and returned) as int32.
    rng = np.random.default_rng(2)
    x, y = _rand(rng, (12,), np.int8), _rand(rng, (6,), np.int8)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   preferred_element_type=np.int32)
    _check(result, x, y, "full", np.int32)


def test_convolve_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = _rand(rng, (100_000,), np.float32), _rand(rng, (64,), np.float32)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   mode="same", precision=_precision(device))
    _check(result, x, y, "same", np.float32)
