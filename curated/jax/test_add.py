"""jax.numpy.add: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "add", incl. its Python-scalar operands) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for add)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.add", decile=100, top20=True)

# Upstream's default tolerance table (jtu.default_tolerance); integers and bool are exact.
_TOL = {
    np.dtype(np.float32): 1e-6,
    np.dtype(np.float16): 1e-3,
    np.dtype(jnp.bfloat16): 1e-2,
    np.dtype(np.complex64): 1e-6,
}


def _rand(rng, shape, dtype):
    """Like upstream's rand_default: normal values scaled by 3 (small ints for int types)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _f32_if_bf16(a):
    """NumPy cannot do arithmetic checks on bfloat16; widen it (exactly) to float32."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _check(result, expected):
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    tol = _TOL.get(expected.dtype, 0)
    np.testing.assert_allclose(_f32_if_bf16(result), _f32_if_bf16(expected), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_add_dtypes(bench, device, dtype):
    rng = np.random.default_rng(0)
    x, y = _rand(rng, (3, 4), dtype), _rand(rng, (3, 4), dtype)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    # NumPy adds bfloat16 through float32; rounding the exact f32 sum back gives the bf16 answer.
    expected = np.add(_f32_if_bf16(x), _f32_if_bf16(y)).astype(np.dtype(dtype))
    _check(result, expected)


@pytest.mark.parametrize("x_shape,y_shape", [
    ((), (3, 4)),          # 0-d operand broadcasts
    ((3, 1), (1, 4)),      # both operands broadcast
    ((2, 1, 4), (4,)),     # rank promotion
    ((0, 4), (0, 4)),      # empty
    ((3, 0), (1,)),        # empty with broadcasting
])
def test_add_broadcasting(bench, device, x_shape, y_shape):
    rng = np.random.default_rng(1)
    x, y = _rand(rng, x_shape, np.float32), _rand(rng, y_shape, np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_add_python_scalar(bench, device, dtype):
    # Upstream's PYTHON_SCALAR_SHAPE: a Python scalar is weakly typed and keeps the array dtype.
    rng = np.random.default_rng(2)
    x = _rand(rng, (5,), dtype)
    scalar = 2 if np.issubdtype(dtype, np.integer) else 2.5
    result = bench(jnp.add, jax.device_put(x, device), scalar)
    _check(result, (x + np.asarray(scalar, dtype)).astype(dtype))


def test_add_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = _rand(rng, (1024, 1024), np.float32), _rand(rng, (1024, 1024), np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


def test_add_grad(bench, device):
    # Upstream checks reverse-mode grads of add; with broadcasting the cotangent of the
    # broadcast operand is summed over the broadcast axes.
    rng = np.random.default_rng(4)
    x, y = _rand(rng, (3, 1), np.float32), _rand(rng, (1, 4), np.float32)
    grad_fn = jax.grad(lambda a, b: jnp.sum(jnp.add(a, b)), argnums=(0, 1))
    gx, gy = bench(grad_fn, jax.device_put(x, device), jax.device_put(y, device))
    np.testing.assert_allclose(np.asarray(gx), np.full((3, 1), 4.0, np.float32), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), np.full((1, 4), 3.0, np.float32), rtol=1e-6)
