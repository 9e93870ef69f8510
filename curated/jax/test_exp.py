"""jax.numpy.exp: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "exp", inputs from rand_small_positive/rand_default) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for exp)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.exp", decile=100, top20=False)

# Upstream's default tolerance table (the "exp" record sets no override).
_TOL = {
    np.dtype(np.float32): 1e-6,
    np.dtype(np.float16): 1e-3,
    np.dtype(jnp.bfloat16): 1e-2,
    np.dtype(np.complex64): 1e-6,
}


def _rand(rng, shape, dtype):
    """Like upstream's rand_default: normal values scaled by 3 (small ints for int types)."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _f32_if_bf16(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _reference(x, out_dtype):
    # Computed in double precision and rounded to the jnp result dtype (promote_like_jnp).
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(_f32_if_bf16(x).astype(wide)).astype(out_dtype)


def _check(result, expected, device):
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    tol = _TOL[expected.dtype]
    if device.platform == "tpu":
        tol = max(tol, 1e-4)  # upstream loosens transcendental ops on TPU
    np.testing.assert_allclose(_f32_if_bf16(result), _f32_if_bf16(expected), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,out_dtype", [
    (np.float32, np.float32),
    (np.float16, np.float16),
    (jnp.bfloat16, jnp.bfloat16),
    (np.complex64, np.complex64),
    (np.int32, np.float32),        # exp is inexact: integers promote to the default float
])
def test_exp_dtypes(bench, device, dtype, out_dtype):
    x = _rand(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.exp, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(out_dtype)), device)


@pytest.mark.parametrize("shape", [(), (4,), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_exp_shapes(bench, device, shape):
    x = _rand(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_exp_special_values(bench, device):
    # exp(0) = 1, overflow to inf past ~88.7, underflow to 0 (and subnormals), inf/-inf/nan.
    x = np.array([0.0, -0.0, 1.0, 88.0, 89.0, -87.0, -103.0, -110.0, np.inf, -np.inf, np.nan], np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    expected = _reference(x, np.dtype(np.float32))
    assert result.shape == expected.shape and result.dtype == np.float32
    host = np.asarray(result)
    # Relative tolerance as upstream; subnormal results are compared absolutely (flush-to-zero
    # devices may return 0 there).
    np.testing.assert_allclose(host[:6], expected[:6], rtol=1e-6, atol=0)
    np.testing.assert_allclose(host[6:8], expected[6:8], rtol=0, atol=1e-37)
    np.testing.assert_array_equal(host[8:], expected[8:])


def test_exp_large(bench, device):
    x = _rand(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.exp, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_exp_grad(bench, device):
    # d/dx exp(x) = exp(x).
    x = _rand(np.random.default_rng(4), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.exp(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), np.exp(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
