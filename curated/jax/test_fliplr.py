"""jax.numpy.fliplr: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testFliplr over nonempty shapes of rank >= 2 and the default dtypes)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.fliplr", decile=30, top20=False)


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
    # fliplr reverses the second axis: exact values, same dtype and shape.
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    host = np.asarray(result)
    if expected.dtype == jnp.bfloat16:
        host, expected = host.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(host, expected)


# Upstream's shapes with at least two dimensions; the second axis is the one reversed.
@pytest.mark.parametrize("shape", [(3, 4), (3, 1), (1, 4), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_fliplr_shapes(bench, device, shape):
    x = _rand(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    _check(result, np.fliplr(x))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_fliplr_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(1), (4, 5), dtype)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    _check(result, np.fliplr(x))


def test_fliplr_matches_slice(bench, device):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    _check(result, x[:, ::-1])


def test_fliplr_grad(bench, device):
    rng = np.random.default_rng(2)
    x, w = _rand(rng, (3, 4), np.float32), _rand(rng, (3, 4), np.float32)
    grad_fn = jax.grad(lambda a, b: jnp.sum(b * jnp.fliplr(a)))
    result = bench(grad_fn, jax.device_put(x, device), jax.device_put(w, device))
    np.testing.assert_array_equal(np.asarray(result), np.fliplr(w))


def test_fliplr_large(bench, device):
    x = _rand(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    _check(result, np.fliplr(x))
