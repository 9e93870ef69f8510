"""jax.numpy.max: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducerNoDtype, testReducerInitial, testReducerWhere and testReducerNoInitialZeroDims for "max")."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, rand_default

pytestmark = pytest.mark.function("jax.numpy.max", decile=100, top20=True)


# max selects one of its inputs: the result is exact for every dtype.
@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.int8, np.uint8, np.bool_])
def test_max_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.max, jax.device_put(x, device))
    assert result.shape == () and np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(as_numpy(result), np.max(as_numpy(x)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_max_axis_keepdims(bench, device, axis, keepdims):
    x = rand_default(np.random.default_rng(1), (2, 3, 4), np.float32)
    result = bench(jnp.max, jax.device_put(x, device), axis, keepdims=keepdims)
    expected = np.max(x, axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("initial", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_max_initial(bench, device, initial, dtype):
    x = rand_default(np.random.default_rng(2), (3, 4), dtype)
    result = bench(jnp.max, jax.device_put(x, device), -1, initial=initial)
    expected = np.max(x, axis=-1, initial=initial)
    assert np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("axis", [None, 1])
def test_max_where(bench, device, axis):
    rng = np.random.default_rng(3)
    x = rand_default(rng, (3, 4), np.float32)
    mask = rng.random((3, 4)) < 0.5
    # where needs an initial value (an empty selection has no maximum).
    result = bench(jnp.max, jax.device_put(x, device), axis, initial=-10.0,
                   where=jax.device_put(mask, device))
    expected = np.max(x, axis=axis, initial=-10.0, where=mask)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(result), expected.astype(np.float32))


@pytest.mark.parametrize("shape,axis", [((0, 4), 1), ((3, 0), 0)])
def test_max_zero_size_nonreduced_axis(bench, device, shape, axis):
    # testReducerNoInitialZeroDims: reducing a non-empty axis of an empty array is fine.
    x = np.zeros(shape, np.float32)
    result = bench(jnp.max, jax.device_put(x, device), axis)
    assert result.shape == np.max(x, axis=axis).shape == (0,)


def test_max_nan_propagates(bench, device):
    # Like NumPy, a NaN anywhere in the reduced slice gives NaN.
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]], np.float32)
    result = bench(jnp.max, jax.device_put(x, device), 1)
    np.testing.assert_array_equal(np.asarray(result), np.array([np.nan, 5.0], np.float32))


def test_max_large(bench, device):
    x = np.random.default_rng(5).standard_normal((1024, 1024)).astype(np.float32)
    result = bench(jnp.max, jax.device_put(x, device), 0)
    assert result.shape == (1024,)
    np.testing.assert_array_equal(np.asarray(result), np.max(x, axis=0))
