"""jax.numpy.average: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testAverage: axis, weights of the input's or the axis's shape, returned, keepdims) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.add, the reductions a weighted average divides: order 2, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, rand_uniform, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.average", decile=40, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testAverage": [
        "test_average_dtypes", "test_average_unweighted", "test_average_weighted", "test_average_returned",
        "test_average_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_average_backward",
                                                                    "test_average_weighted_backward"],
}

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


# testReduceGrad (lax.add): an unweighted average's gradient is the cotangent spread evenly over the reduced dims; a
# weighted one's, w / sum(w) times the cotangent for the values and (x - average) / sum(w) times it for the weights,
# both differentiated; to order 2, in the dtypes a device trains in, against the CPU's float64 gradient; bfloat16
# within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-5, bfloat16=5e-2, complex64=1e-5)


@pytest.mark.parametrize("axis", [None, 1])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_average_backward(backward, device, dtype, axis):
    x = jax.device_put(rand_default(np.random.default_rng(5), (3, 4), dtype), device)
    grads = backward(jnp.average, x, axis)
    check_gradients(grads, jnp.average, (x, axis), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


@pytest.mark.parametrize("shape,axis,weights_shape", [((3, 4), -1, (4,)), ((2, 3, 4), 1, (2, 3, 4))],
                         ids=["axis_weights", "full_weights"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_average_weighted_backward(backward, device, dtype, shape, axis, weights_shape):
    rng = np.random.default_rng(6)
    x = jax.device_put(rand_default(rng, shape, dtype), device)
    w = jax.device_put(_weights(rng, weights_shape, dtype), device)
    grads = backward(jnp.average, x, axis, w)
    check_gradients(grads, jnp.average, (x, axis, w), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
