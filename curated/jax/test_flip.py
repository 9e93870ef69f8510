"""jax.numpy.flip: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testFlip over shapes, dtypes and every axis incl. None and tuples)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.flip", decile=70, top20=False)


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


def _check(result, expected):
    # flip only moves data: exact values, same dtype and shape.
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    host = np.asarray(result)
    if expected.dtype == jnp.bfloat16:
        host, expected = host.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(host, expected)


@pytest.mark.parametrize("shape,axis", [
    ((4,), 0), ((4,), None), ((3, 4), 0), ((3, 4), -1), ((3, 4), None), ((2, 1, 4), 1),
    ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3, 1)), ((0, 4), 0), ((3, 0), None), ((), None),
])
def test_flip_axes(bench, device, shape, axis):
    x = _rand(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), axis)
    _check(result, np.flip(x, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.complex64, np.bool_])
def test_flip_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(1), (3, 5), dtype)
    result = bench(jnp.flip, jax.device_put(x, device), 1)
    _check(result, np.flip(x, 1))


def test_flip_twice_is_identity(bench, device):
    x = _rand(np.random.default_rng(2), (4, 6), np.float32)
    x_dev = jax.device_put(x, device)
    result = bench(jnp.flip, x_dev)
    _check(jnp.flip(result), x)
    _check(result, x[::-1, ::-1])


def test_flip_grad(bench, device):
    # The cotangent of flip is flipped back: d/dx sum(w * flip(x)) = flip(w).
    rng = np.random.default_rng(3)
    x, w = _rand(rng, (3, 4), np.float32), _rand(rng, (3, 4), np.float32)
    grad_fn = jax.grad(lambda a, b: jnp.sum(b * jnp.flip(a, 0)))
    result = bench(grad_fn, jax.device_put(x, device), jax.device_put(w, device))
    np.testing.assert_array_equal(np.asarray(result), np.flip(w, 0))


def test_flip_large(bench, device):
    x = _rand(np.random.default_rng(4), (1024, 1024), np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), 0)
    _check(result, np.flip(x, 0))
