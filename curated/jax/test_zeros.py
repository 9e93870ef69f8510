"""jax.numpy.zeros: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testZerosOnes: shapes (), (0,), (4,), (3, 4) and int or tuple shape arguments, every dtype and the default one, checked exactly against np.zeros; a negative dimension is rejected, as testOnesWithInvalidShape checks for ones). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax.numpy as jnp
import numpy as np
import pytest
from _support import FILL_DTYPES, FILL_SHAPES, assert_filled, default_float

pytestmark = pytest.mark.function("jax.numpy.zeros", decile=100, top20=True,
                                  backward="no array input: the result depends on a shape and a dtype only")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testZerosOnes": [
        "test_zeros_shapes", "test_zeros_dtypes", "test_zeros_on_cell_device", "test_zeros_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testOnesWithInvalidShape": ["test_zeros_negative_dim_raises"],
}


@pytest.mark.parametrize("shape", FILL_SHAPES)
def test_zeros_shapes(bench, device, shape):
    result = bench(jnp.zeros, shape)
    assert_filled(result, shape, default_float(), 0)


@pytest.mark.parametrize("dtype", FILL_DTYPES)
def test_zeros_dtypes(bench, device, dtype):
    result = bench(jnp.zeros, (3, 4), dtype)
    assert_filled(result, (3, 4), dtype, 0)


def test_zeros_on_cell_device(bench, device):
    # Under the cell's default device the array is created there.
    result = bench(jnp.zeros, (2, 2), np.float32)
    assert_filled(result, (2, 2), np.float32, 0)
    assert set(result.devices()) == {device}


def test_zeros_negative_dim_raises(bench, device):
    result = bench(jnp.zeros, (1,), np.int32)
    assert_filled(result, (1,), np.int32, 0)
    with pytest.raises((ValueError, TypeError)):
        jnp.zeros((-1, 2))


def test_zeros_large(bench, device):
    result = bench(jnp.zeros, (1024, 1024), np.float32)
    assert_filled(result, (1024, 1024), np.float32, 0)
