"""jax.numpy.triu_indices: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTriuIndices: n, offset k and number of columns m, checked exactly against np.triu_indices)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.triu_indices", decile=10, top20=False)


def _check(result, expected):
    assert isinstance(result, tuple) and len(result) == 2
    for r, e in zip(result, expected):
        assert r.shape == e.shape and np.issubdtype(r.dtype, np.integer)
        np.testing.assert_array_equal(np.asarray(r), e)


@pytest.mark.parametrize("n", [0, 1, 4, 10])
@pytest.mark.parametrize("k", [-3, 0, 2])
def test_triu_indices(bench, device, n, k):
    result = bench(jnp.triu_indices, n, k)
    _check(result, np.triu_indices(n, k))


@pytest.mark.parametrize("n,k,m", [(3, 0, 5), (5, 1, 3), (4, -1, 1), (2, 0, 0), (6, 3, 8)])
def test_triu_indices_columns(bench, device, n, k, m):
    result = bench(jnp.triu_indices, n, k, m)
    _check(result, np.triu_indices(n, k, m))


def test_triu_indices_selects_upper_triangle(bench, device):
    x = np.arange(25, dtype=np.float32).reshape(5, 5)
    rows, cols = bench(jnp.triu_indices, 5)
    xd = jax.device_put(x, device)
    np.testing.assert_array_equal(np.asarray(xd[rows, cols]), x[np.triu_indices(5)])


def test_triu_indices_large(bench, device):
    _check(bench(jnp.triu_indices, 1000, 1), np.triu_indices(1000, 1))
