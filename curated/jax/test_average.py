"""jax.numpy.average: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testAverage: axis, weights of the input's or the axis's shape, returned, keepdims)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.average", decile=40, top20=False)

# testAverage's tolerances per (result) dtype.
_TOL = {
    np.dtype(jnp.bfloat16): 2e-1,
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 1e-5,
    np.dtype(np.complex64): 1e-5,
}


def _rand(rng, shape, dtype):
    """Like upstream's rand_default: normal values scaled by 3 (small ints for int types)."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _weights(rng, shape, dtype):
    """Positive weights (upstream draws rand_default and skips ZeroDivision; positive weights keep
    the weight sum away from zero so the relative tolerance stays meaningful)."""
    return rng.uniform(0.5, 2.0, size=shape).astype(dtype)


def _wide(x):
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return x.astype(np.complex128)
    return x.astype(np.float64)


def _result_dtype(dtype):
    # average is inexact: integers promote to the default float, floats keep their type.
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if np.issubdtype(dtype, np.integer) else dtype


def _check(result, expected, dtype):
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == dtype
    tol = _TOL[dtype]
    np.testing.assert_allclose(_wide(np.asarray(result).astype(np.float32) if dtype == jnp.bfloat16 else result),
                               expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64])
def test_average_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.average, jax.device_put(x, device), 1)
    host = x.astype(np.float32) if dtype is jnp.bfloat16 else x
    _check(result, np.average(_wide(host), 1), _result_dtype(dtype))


@pytest.mark.parametrize("shape,axis", [
    ((), None), ((4,), 0), ((3, 4), None), ((3, 4), -1), ((2, 1, 4), 0),
    ((2, 3, 4), 1), ((2, 3, 4), (0, 2)), ((2, 3, 4), (0, 1, 2)),
])
@pytest.mark.parametrize("keepdims", [False, True])
def test_average_unweighted(bench, device, shape, axis, keepdims):
    x = _rand(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.average, jax.device_put(x, device), axis, keepdims=keepdims)
    _check(result, np.average(_wide(x), axis, keepdims=keepdims), np.dtype(np.float32))


# weights_shape is either the input's shape or, for a single axis, that axis's length.
@pytest.mark.parametrize("shape,axis,weights_shape", [
    ((4,), 0, (4,)), ((3, 4), None, (3, 4)), ((3, 4), 0, (3,)), ((3, 4), -1, (4,)),
    ((2, 3, 4), 1, (3,)), ((2, 3, 4), 1, (2, 3, 4)), ((2, 3, 4), (0, 2), (2, 3, 4)),
])
def test_average_weighted(bench, device, shape, axis, weights_shape):
    rng = np.random.default_rng(2)
    x, w = _rand(rng, shape, np.float32), _weights(rng, weights_shape, np.float32)
    result = bench(jnp.average, jax.device_put(x, device), axis, jax.device_put(w, device))
    _check(result, np.average(_wide(x), axis, _wide(w)), np.dtype(np.float32))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
def test_average_returned(bench, device, weighted, keepdims):
    # returned=True also gives the sum of the weights (the element count when unweighted),
    # broadcast to the shape of the average.
    rng = np.random.default_rng(3)
    x = _rand(rng, (3, 5), np.float32)
    w = _weights(rng, (5,), np.float32) if weighted else None
    w_dev = None if w is None else jax.device_put(w, device)
    avg, total = bench(jnp.average, jax.device_put(x, device), 1, w_dev, returned=True, keepdims=keepdims)
    exp_avg, exp_total = np.average(_wide(x), 1, None if w is None else _wide(w), returned=True, keepdims=keepdims)
    _check(avg, exp_avg, np.dtype(np.float32))
    _check(total, exp_total, np.dtype(np.float32))


def test_average_large(bench, device):
    rng = np.random.default_rng(4)
    x, w = _rand(rng, (1024, 512), np.float32), _weights(rng, (512,), np.float32)
    result = bench(jnp.average, jax.device_put(x, device), -1, jax.device_put(w, device))
    _check(result, np.average(_wide(x), -1, _wide(w)), np.dtype(np.float32))
