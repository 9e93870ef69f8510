"""jax.numpy.tril: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTriLU with op="tril")."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.tril", decile=50, top20=False)


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
    # tril only selects entries or writes zeros: the comparison is exact.
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    host = np.asarray(result)
    if expected.dtype == jnp.bfloat16:   # compare bfloat16 through an exact float32 view
        host, expected = host.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(host, expected)


@pytest.mark.parametrize("k", list(range(-3, 3)))
def test_tril_k(bench, device, k):
    x = _rand(np.random.default_rng(0), (3, 4), np.float32)
    result = bench(jnp.tril, jax.device_put(x, device), k=k)
    _check(result, np.tril(x, k=k))


# Upstream's shapes with at least two dims: non-square, degenerate, batched and empty.
@pytest.mark.parametrize("shape", [(3, 1), (1, 4), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_tril_shapes(bench, device, shape):
    x = _rand(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.tril, jax.device_put(x, device), k=-1)
    _check(result, np.tril(x, k=-1))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_tril_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(2), (4, 5), dtype)
    result = bench(jnp.tril, jax.device_put(x, device), k=1)
    _check(result, np.tril(x, k=1))


def test_tril_large(bench, device):
    x = _rand(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.tril, jax.device_put(x, device))
    _check(result, np.tril(x))
