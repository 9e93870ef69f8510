"""jax.numpy.tril_indices_from: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTrilIndicesFrom: square and non-square 2-D shapes with offsets k, checked exactly against np.tril_indices_from; non-2-D input raises). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_index_pair

pytestmark = pytest.mark.function("jax.numpy.tril_indices_from", decile=10, top20=False,
                                  backward="integer output (indices): not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testTrilIndicesFrom": [
        "test_tril_indices_from", "test_tril_indices_from_dtypes",
        "test_tril_indices_from_selects_lower_triangle", "test_tril_indices_from_non_2d_raises",
        "test_tril_indices_from_large"],
}


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (5, 5), (3, 5), (5, 3), (0, 4)])
@pytest.mark.parametrize("k", [-2, 0, 1])
def test_tril_indices_from(bench, device, shape, k):
    x = np.zeros(shape, np.float32)
    result = bench(jnp.tril_indices_from, jax.device_put(x, device), k)
    assert_index_pair(result, np.tril_indices_from(x, k))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float16])
def test_tril_indices_from_dtypes(bench, device, dtype):
    # Only the shape matters, not the dtype or the values.
    x = np.ones((4, 6), dtype)
    result = bench(jnp.tril_indices_from, jax.device_put(x, device))
    assert_index_pair(result, np.tril_indices_from(x))


def test_tril_indices_from_selects_lower_triangle(bench, device):
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    xd = jax.device_put(x, device)
    rows, cols = bench(jnp.tril_indices_from, xd)
    np.testing.assert_array_equal(np.asarray(xd[rows, cols]), x[np.tril_indices(4)])


def test_tril_indices_from_non_2d_raises(bench, device):
    x = jax.device_put(np.zeros((8, 8), np.float32), device)
    assert_index_pair(bench(jnp.tril_indices_from, x, -1), np.tril_indices(8, -1))
    with pytest.raises(ValueError):
        jnp.tril_indices_from(jnp.zeros((2, 2, 2)))


def test_tril_indices_from_large(bench, device):
    x = jax.device_put(np.zeros((1000, 1000), np.float32), device)
    assert_index_pair(bench(jnp.tril_indices_from, x), np.tril_indices(1000))
