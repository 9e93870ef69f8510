"""jax.numpy.split: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testSplitStaticInt: shapes (3,), (2, 3), (6, 5, 4) with a section count along each axis; testSplitStaticArray-style index lists; testSplitTypeError), checked exactly against np.split."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.split", decile=100, top20=True)


def _rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _np(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _check(parts, expected, dtype):
    assert isinstance(parts, (list, tuple)) and len(parts) == len(expected)
    for p, e in zip(parts, expected):
        assert p.shape == e.shape and np.dtype(p.dtype) == np.dtype(dtype)
        np.testing.assert_array_equal(_np(p), _np(e))


@pytest.mark.parametrize("shape,sections,axis", [
    ((3,), 1, 0), ((3,), 3, 0), ((2, 3), 3, 1), ((2, 3), 2, 0),
    ((6, 5, 4), 2, 0), ((6, 5, 4), 5, 1), ((6, 5, 4), 4, -1),
])
def test_split_sections(bench, device, shape, sections, axis):
    x = _rand(np.random.default_rng(0), shape, np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), sections, axis)
    _check(parts, np.split(x, sections, axis), np.float32)


@pytest.mark.parametrize("indices", [[1], [1, 3], [0, 2, 2, 5], [3, 6], [2, 4]])
def test_split_indices(bench, device, indices):
    # Index lists give uneven parts (empty where indices repeat or reach the end).
    x = _rand(np.random.default_rng(1), (6, 2), np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), indices)
    _check(parts, np.split(x, indices), np.float32)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_split_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(2), (4, 6), dtype)
    parts = bench(jnp.split, jax.device_put(x, device), 3, 1)
    _check(parts, np.split(x, 3, 1), dtype)


def test_split_large(bench, device):
    x = _rand(np.random.default_rng(3), (1024, 1024), np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), 8, 0)
    _check(parts, np.split(x, 8, 0), np.float32)
