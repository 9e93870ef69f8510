"""jax.numpy.cos: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "cos") and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for cos)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.cos", decile=90, top20=False)

# Upstream's default tolerance table (the "cos" record sets no override).
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
    # Like upstream's promote_like_jnp the answer is rounded to the jnp result dtype; the
    # reference itself is computed in double precision so it carries no error of its own.
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    with np.errstate(invalid="ignore"):  # cos(+-inf) is nan, as expected
        return np.cos(_f32_if_bf16(x).astype(wide)).astype(out_dtype)


def _check(result, expected, device):
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    tol = _TOL[expected.dtype]
    if device.platform == "tpu":
        tol = max(tol, 1e-4)  # upstream's testOp joins 1e-4 for cos on TPU
    np.testing.assert_allclose(_f32_if_bf16(result), _f32_if_bf16(expected), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,out_dtype", [
    (np.float32, np.float32),
    (np.float16, np.float16),
    (jnp.bfloat16, jnp.bfloat16),
    (np.complex64, np.complex64),
    (np.int32, np.float32),        # cos is inexact: integers promote to the default float
])
def test_cos_dtypes(bench, device, dtype, out_dtype):
    x = _rand(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.cos, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(out_dtype)), device)


@pytest.mark.parametrize("shape", [(), (4,), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_cos_shapes(bench, device, shape):
    x = _rand(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_cos_special_values(bench, device):
    # Exact points, large arguments that need careful range reduction, and inf/nan -> nan.
    x = np.array([0.0, -0.0, np.pi, -np.pi / 2, 100.0, -1e4, np.inf, -np.inf, np.nan], np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_cos_large(bench, device):
    x = _rand(np.random.default_rng(2), (512, 512), np.float32)
    result = bench(jnp.cos, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_cos_grad(bench, device):
    # Upstream checks reverse-mode grads; d/dx cos(x) = -sin(x).
    x = _rand(np.random.default_rng(3), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.cos(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    tol = 1e-4 if device.platform == "tpu" else 1e-5
    np.testing.assert_allclose(np.asarray(result), -np.sin(x.astype(np.float64)), rtol=tol, atol=tol)
