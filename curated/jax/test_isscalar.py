"""jax.numpy.isscalar: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testIsScalar: Python and NumPy scalars are scalars; testIsNotScalar: lists and non-0-d arrays are not). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

JAX's answer for 0-d arrays changed over versions (NumPy says False, recent JAX says True), so 0-d arrays
are left out. Under jit the Python bool becomes a 0-d bool array; both forms are accepted."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.isscalar", decile=60, top20=False,
                                  backward="returns a Python bool: nothing to differentiate")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIsScalar": [
        "test_isscalar_python_scalars", "test_isscalar_numpy_scalars", "test_isscalar_arrays"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testIsNotScalar": [
        "test_isscalar_sequences", "test_isscalar_numpy_arrays"],
}


def _check(result, expected):
    host = np.asarray(result)
    assert host.shape == () and host.dtype == np.bool_
    assert bool(host) is expected


@pytest.mark.parametrize("value", [0, 1, -7, 1.5, float("nan"), 2 + 3j, True, False])
def test_isscalar_python_scalars(bench, device, value):
    result = bench(jnp.isscalar, value)
    _check(result, True)


@pytest.mark.parametrize("value", [np.float32(1), np.int8(-3), np.bool_(True), np.complex64(1j), np.uint32(7)])
def test_isscalar_numpy_scalars(bench, device, value):
    result = bench(jnp.isscalar, value)
    _check(result, True)


@pytest.mark.parametrize("value", [[1], (1.0,), [], [[1, 2]]])
def test_isscalar_sequences(bench, device, value):
    # Lists and tuples are not scalars, whatever their length.
    result = bench(jnp.isscalar, value)
    _check(result, False)


@pytest.mark.parametrize("shape,dtype", [((1,), np.float32), ((3,), np.int32), ((2, 2), np.bool_), ((0,), np.float32)])
def test_isscalar_arrays(bench, device, shape, dtype):
    # Arrays with at least one dimension are never scalars (even with a single element).
    x = jax.device_put(np.zeros(shape, dtype), device)
    result = bench(jnp.isscalar, x)
    _check(result, False)


@pytest.mark.parametrize("shape", [(1,), (4, 4)])
def test_isscalar_numpy_arrays(bench, device, shape):
    result = bench(jnp.isscalar, np.ones(shape, np.float32))
    _check(result, False)
