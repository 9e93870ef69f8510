"""jax.numpy.average: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testAverage: axis, weights of the input's or the axis's shape, returned, keepdims)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_near_reference, rand_default, rand_uniform, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.average", decile=40, top20=False)

# testAverage's tolerances per (result) dtype.
_TOL = tolerances(bfloat16=2e-1, float16=1e-2, float32=1e-5, complex64=1e-5)


def _weights(rng, shape, dtype):
    """Positive weights (upstream draws rand_default and skips ZeroDivision; positive weights keep
    the weight sum away from zero so the relative tolerance stays meaningful)."""
    return rand_uniform(rng, shape, dtype, 0.5, 2.0)


def _result_dtype(dtype):
    # average is inexact: integers promote to the default float, floats keep their type.
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if np.issubdtype(dtype, np.integer) else dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64])
def test_average_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.average, jax.device_put(x, device), 1)
    assert_near_reference(result, np.average(wide(x), 1), _result_dtype(dtype), _TOL)


@pytest.mark.parametrize("shape,axis", [
    ((), None), ((4,), 0), ((3, 4), None), ((3, 4), -1), ((2, 1, 4), 0),
    ((2, 3, 4), 1), ((2, 3, 4), (0, 2)), ((2, 3, 4), (0, 1, 2)),
])
@pytest.mark.parametrize("keepdims", [False, True])
def test_average_unweighted(bench, device, shape, axis, keepdims):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.average, jax.device_put(x, device), axis, keepdims=keepdims)
    assert_near_reference(result, np.average(wide(x), axis, keepdims=keepdims), np.float32, _TOL)


# weights_shape is either the input's shape or, for a single axis, that axis's length.
@pytest.mark.parametrize("shape,axis,weights_shape", [
    ((4,), 0, (4,)), ((3, 4), None, (3, 4)), ((3, 4), 0, (3,)), ((3, 4), -1, (4,)),
    ((2, 3, 4), 1, (3,)), ((2, 3, 4), 1, (2, 3, 4)), ((2, 3, 4), (0, 2), (2, 3, 4)),
])
def test_average_weighted(bench, device, shape, axis, weights_shape):
    rng = np.random.default_rng(2)
    x, w = rand_default(rng, shape, np.float32), _weights(rng, weights_shape, np.float32)
    result = bench(jnp.average, jax.device_put(x, device), axis, jax.device_put(w, device))
    assert_near_reference(result, np.average(wide(x), axis, wide(w)), np.float32, _TOL)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
def test_average_returned(bench, device, weighted, keepdims):
    # returned=True also gives the sum of the weights (the element count when unweighted),
    # broadcast to the shape of the average.
    rng = np.random.default_rng(3)
    x = rand_default(rng, (3, 5), np.float32)
    w = _weights(rng, (5,), np.float32) if weighted else None
    w_dev = None if w is None else jax.device_put(w, device)
    avg, total = bench(jnp.average, jax.device_put(x, device), 1, w_dev, returned=True, keepdims=keepdims)
    exp_avg, exp_total = np.average(wide(x), 1, None if w is None else wide(w), returned=True, keepdims=keepdims)
    assert_near_reference(avg, exp_avg, np.float32, _TOL)
    assert_near_reference(total, exp_total, np.float32, _TOL)


def test_average_large(bench, device):
    rng = np.random.default_rng(4)
    x, w = rand_default(rng, (1024, 512), np.float32), _weights(rng, (512,), np.float32)
    result = bench(jnp.average, jax.device_put(x, device), -1, jax.device_put(w, device))
    assert_near_reference(result, np.average(wide(x), -1, wide(w)), np.float32, _TOL)
