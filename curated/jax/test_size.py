"""jax.numpy.size: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testNdimShapeSize for op "size": shapes including scalars and empty arrays, checked against np.size, NumPy and jax.Array input; testSizeAlongAxis: each valid axis; Python scalars and NumPy arrays as input). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

jnp.size returns a Python int; under the harness's jit the timed call returns it as a 0-d array, so the
checks compare its integer value."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.size", decile=80, top20=False,
                                  backward="integer output (an element count): not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testNdimShapeSize": [
        "test_size_shapes", "test_size_python_and_numpy_values", "test_size_bfloat16_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testSizeAlongAxis": ["test_size_axis"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testSizeAlongAxisTuple": (
        "a tuple axis is newer than JAX 0.4.8 (the 2023 profile), whose jnp.size takes one int axis: the cases "
        "keep to what every measured release takes"
    ),
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testSizeAlongAxisDuplicate": (
        "checks the error message for a repeated axis"
    ),
}


@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 1, 4), (0,), (0, 4), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_size_shapes(bench, device, shape, dtype):
    x = jax.device_put(np.zeros(shape, dtype), device)
    result = bench(jnp.size, x)
    assert np.ndim(result) == 0 and np.issubdtype(np.asarray(result).dtype, np.integer)
    assert int(result) == np.size(np.zeros(shape))


@pytest.mark.parametrize("shape,axis", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 1, 4), -2), ((0, 4), 1)])
def test_size_axis(bench, device, shape, axis):
    x = jax.device_put(np.ones(shape, np.float32), device)
    result = bench(jnp.size, x, axis)
    assert int(result) == np.size(np.ones(shape), axis) == shape[axis]


@pytest.mark.parametrize("value,expected", [(3.0, 1), (7, 1), (np.arange(3), 3), (np.ones((3, 2), np.int8), 6)])
def test_size_python_and_numpy_values(bench, device, value, expected):
    # Python scalars and host NumPy arrays (lists are deprecated as jnp inputs).
    result = bench(jnp.size, value)
    assert int(result) == expected == np.size(value)


def test_size_bfloat16_large(bench, device):
    x = jax.device_put(np.zeros((1024, 1024), jnp.bfloat16), device)
    result = bench(jnp.size, x)
    assert int(result) == 1024 * 1024
