"""jax.numpy.log: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "log", inputs from rand_positive) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for log)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.log", decile=100, top20=True)

# Upstream's default tolerance table (the "log" record sets no override).
_TOL = {
    np.dtype(np.float32): 1e-6,
    np.dtype(np.float16): 1e-3,
    np.dtype(jnp.bfloat16): 1e-2,
    np.dtype(np.complex64): 1e-6,
}


def _positive(rng, shape, dtype):
    """Like upstream's rand_positive: values in (0, 10) (integers 1..10, complex with positive parts)."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 11, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(0.1, 10, shape) + 1j * rng.uniform(0.1, 10, shape)).astype(dtype)
    return rng.uniform(0.1, 10, size=shape).astype(dtype)


def _f32_if_bf16(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _reference(x, out_dtype):
    # Computed in double precision, rounded to the jnp result dtype (promote_like_jnp).
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(_f32_if_bf16(x).astype(wide)).astype(out_dtype)


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
    (np.int32, np.float32),        # log is inexact: integers promote to the default float
])
def test_log_dtypes(bench, device, dtype, out_dtype):
    x = _positive(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.log, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(out_dtype)), device)


@pytest.mark.parametrize("shape", [(), (4,), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_log_shapes(bench, device, shape):
    x = _positive(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_log_special_values(bench, device):
    # log(1) = 0, log(0) = -inf, negative -> nan, +inf -> inf, tiny and huge arguments.
    x = np.array([1.0, 0.0, -0.0, -1.0, np.inf, np.nan, 1e-30, 1e30, np.e], np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_log_complex_branch(bench, device):
    # Negative reals take the principal branch: log(-x) = log(x) + i*pi.
    x = np.array([-1.0 + 0j, -2.5 + 0j, 1j, -1j], np.complex64)
    result = bench(jnp.log, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.complex64)), device)


def test_log_large(bench, device):
    x = _positive(np.random.default_rng(2), (1024, 1024), np.float32)
    result = bench(jnp.log, jax.device_put(x, device))
    _check(result, _reference(x, np.dtype(np.float32)), device)


def test_log_grad(bench, device):
    # d/dx log(x) = 1 / x.
    x = _positive(np.random.default_rng(3), (8,), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.log(a)))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), 1 / x.astype(np.float64), rtol=1e-5, atol=1e-6)
