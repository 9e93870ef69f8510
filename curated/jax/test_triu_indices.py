"""jax.numpy.triu_indices: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTriuIndices: n, offset k and number of columns m, checked exactly against np.triu_indices). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_index_pair

pytestmark = pytest.mark.function("jax.numpy.triu_indices", decile=10, top20=False,
                                  backward="integer output (indices): not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testTriuIndices": [
        "test_triu_indices", "test_triu_indices_columns", "test_triu_indices_selects_upper_triangle",
        "test_triu_indices_large"],
}


@pytest.mark.parametrize("n", [0, 1, 4, 10])
@pytest.mark.parametrize("k", [-3, 0, 2])
def test_triu_indices(bench, device, n, k):
    result = bench(jnp.triu_indices, n, k)
    assert_index_pair(result, np.triu_indices(n, k))


@pytest.mark.parametrize("n,k,m", [(3, 0, 5), (5, 1, 3), (4, -1, 1), (2, 0, 0), (6, 3, 8)])
def test_triu_indices_columns(bench, device, n, k, m):
    result = bench(jnp.triu_indices, n, k, m)
    assert_index_pair(result, np.triu_indices(n, k, m))


def test_triu_indices_selects_upper_triangle(bench, device):
    x = np.arange(25, dtype=np.float32).reshape(5, 5)
    rows, cols = bench(jnp.triu_indices, 5)
    xd = jax.device_put(x, device)
    np.testing.assert_array_equal(np.asarray(xd[rows, cols]), x[np.triu_indices(5)])


def test_triu_indices_large(bench, device):
    assert_index_pair(bench(jnp.triu_indices, 1000, 1), np.triu_indices(1000, 1))
