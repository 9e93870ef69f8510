"""jax.numpy.zeros: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testZerosOnes: shapes (), (0,), (4,), (3, 4) and int or tuple shape arguments, every dtype and the default one, checked exactly against np.zeros; a negative dimension is rejected)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.zeros", decile=100, top20=True)


def _check(result, shape, dtype):
    assert result.shape == np.empty(shape).shape and np.dtype(result.dtype) == np.dtype(dtype)
    host = np.asarray(result)
    if host.dtype == jnp.bfloat16:
        host = host.astype(np.float32)
    np.testing.assert_array_equal(host, np.full(np.empty(shape).shape, 0, np.float32).astype(host.dtype))


@pytest.mark.parametrize("shape", [(), (0,), (4,), (3, 4), (2, 0, 3), 5, [2, 3]])
def test_zeros_shapes(bench, device, shape):
    result = bench(jnp.zeros, shape)
    default = np.float64 if jax.config.jax_enable_x64 else np.float32
    _check(result, tuple(shape) if isinstance(shape, list) else shape, default)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.int8, np.uint8, np.bool_,
                                   np.complex64])
def test_zeros_dtypes(bench, device, dtype):
    result = bench(jnp.zeros, (3, 4), dtype)
    _check(result, (3, 4), dtype)


def test_zeros_on_cell_device(bench, device):
    # Under the cell's default device the array is created there.
    result = bench(jnp.zeros, (2, 2), np.float32)
    _check(result, (2, 2), np.float32)
    assert set(result.devices()) == {device}


def test_zeros_negative_dim_raises(bench, device):
    result = bench(jnp.zeros, (1,), np.int32)
    _check(result, (1,), np.int32)
    with pytest.raises((ValueError, TypeError)):
        jnp.zeros((-1, 2))


def test_zeros_large(bench, device):
    result = bench(jnp.zeros, (1024, 1024), np.float32)
    _check(result, (1024, 1024), np.float32)
