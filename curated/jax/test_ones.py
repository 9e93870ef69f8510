"""jax.numpy.ones: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testZerosOnes: shapes (), (0,), (4,), (3, 4) and int or tuple shape arguments, every dtype and the default one, checked exactly against np.ones; a negative dimension is rejected, as testOnesWithInvalidShape checks for ones). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax.numpy as jnp
import numpy as np
import pytest
from _support import FILL_DTYPES, FILL_SHAPES, assert_filled, default_float

pytestmark = pytest.mark.function("jax.numpy.ones", decile=100, top20=True,
                                  backward="no array input: the result depends on a shape and a dtype only")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testZerosOnes": [
        "test_ones_shapes", "test_ones_dtypes", "test_ones_on_cell_device", "test_ones_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testOnesWithInvalidShape": ["test_ones_negative_dim_raises"],
}


@pytest.mark.parametrize("shape", FILL_SHAPES)
def test_ones_shapes(bench, device, shape):
    result = bench(jnp.ones, shape)
    assert_filled(result, shape, default_float(), 1)


@pytest.mark.parametrize("dtype", FILL_DTYPES)
def test_ones_dtypes(bench, device, dtype):
    result = bench(jnp.ones, (3, 4), dtype)
    assert_filled(result, (3, 4), dtype, 1)


def test_ones_on_cell_device(bench, device):
    # Under the cell's default device the array is created there.
    result = bench(jnp.ones, (2, 2), np.float32)
    assert_filled(result, (2, 2), np.float32, 1)
    assert set(result.devices()) == {device}


def test_ones_negative_dim_raises(bench, device):
    result = bench(jnp.ones, (1,), np.int32)
    assert_filled(result, (1,), np.int32, 1)
    with pytest.raises((ValueError, TypeError)):
        jnp.ones((-1, 2))


def test_ones_large(bench, device):
    result = bench(jnp.ones, (1024, 1024), np.float32)
    assert_filled(result, (1024, 1024), np.float32, 1)
