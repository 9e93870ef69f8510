"""jax.numpy.arange: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testArange, testArangeTypes for its dtype checks and testArangeOnFloats for fractional steps). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, canonical_dtype

pytestmark = pytest.mark.function("jax.numpy.arange", decile=100, top20=True,
                                  backward="its arguments are Python numbers (start, stop, step), no array to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testArange": [
        "test_arange_integer_args", "test_arange_dtype", "test_arange_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testArangeTypes": ["test_arange_dtype"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testArangeOnFloats": ["test_arange_float_steps"],
}


def _check(result, expected, tol=0):
    # With 64-bit types disabled (JAX's default), Python ints and floats map to 32-bit types.
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == canonical_dtype(expected.dtype)
    host = as_numpy(result)
    np.testing.assert_allclose(host, expected.astype(host.dtype), rtol=tol, atol=tol)


# The dask-inspired argument lists of testArange: stop only, start/stop, steps of both signs,
# and an empty range (a negative step from a smaller start).
@pytest.mark.parametrize("args", [(77,), (2, 13), (4, 21, 9), (53, 5, -3), (0, 1, -0.5), (0,), (-5, 5)])
def test_arange_integer_args(bench, device, args):
    result = bench(jnp.arange, *args)
    _check(result, np.arange(*args))


@pytest.mark.parametrize("args,dtype", [
    ((77,), float), ((2, 13), int), ((10,), np.float16), ((10,), jnp.bfloat16),
    ((1, 11, 2), np.uint8), ((5,), np.complex64), ((-3, 3), np.int16),
])
def test_arange_dtype(bench, device, args, dtype):
    result = bench(jnp.arange, *args, dtype=dtype)
    expected = np.arange(*args, dtype=np.float32 if dtype is jnp.bfloat16 else dtype)
    if dtype is jnp.bfloat16:
        assert np.dtype(result.dtype) == jnp.bfloat16
        np.testing.assert_array_equal(np.asarray(result).astype(np.float32), expected)
    else:
        _check(result, expected)


@pytest.mark.parametrize("args", [(0.0, 1.0, 0.1), (1.5, 4.5), (-1.0, 1.0, 0.25), (10.0, 0.0, -1.5)])
def test_arange_float_steps(bench, device, args):
    # Fractional steps: the length is ceil((stop - start) / step) and values start + i * step.
    result = bench(jnp.arange, *args)
    _check(result, np.arange(*args), tol=1e-6)


def test_arange_large(bench, device):
    result = bench(jnp.arange, 1 << 20)
    _check(result, np.arange(1 << 20))
