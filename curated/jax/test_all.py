"""jax.numpy.all: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducerNoDtype and testReducerWhereNoInitial for "all", inputs from rand_some_zero); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, assert_exact, rand_some_zero

pytestmark = pytest.mark.function("jax.numpy.all", decile=100, top20=True,
                                  backward="boolean output: not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerNoDtype": [
        "test_all_dtypes", "test_all_axis_keepdims", "test_all_uniform_input", "test_all_nan_is_true",
        "test_all_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhereNoInitial": ["test_all_where"],
}

# all is a logical reduction: always bool, and exact (assert_exact); NumPy cannot test bfloat16
# truthiness directly, so its reference reads an exact float32 view (as_numpy) that keeps zeros zero.


@pytest.mark.parametrize("dtype", [np.bool_, np.float32, np.float16, jnp.bfloat16, np.int32, np.uint8, np.complex64])
def test_all_dtypes(bench, device, dtype):
    x = rand_some_zero(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.all, jax.device_put(x, device), -1)
    assert_exact(result, np.all(as_numpy(x), axis=-1))


# Upstream's all_shapes with every axis and keepdims; a 0-d array and empties included.
@pytest.mark.parametrize("shape,axis", [
    ((), None), ((4,), 0), ((3, 4), None), ((3, 1), 1), ((1, 4), 0),
    ((2, 1, 4), -1), ((2, 3, 4), 1), ((0,), None), ((0, 4), 0), ((3, 0), 1),
])
@pytest.mark.parametrize("keepdims", [False, True])
def test_all_axis_keepdims(bench, device, shape, axis, keepdims):
    x = rand_some_zero(np.random.default_rng(1), shape, np.bool_)
    result = bench(jnp.all, jax.device_put(x, device), axis, keepdims=keepdims)
    assert_exact(result, np.all(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("value", [True, False])
def test_all_uniform_input(bench, device, value):
    # All-true and all-false arrays: the reduction must return exactly that value.
    x = np.full((5, 6), value)
    result = bench(jnp.all, jax.device_put(x, device))
    assert_exact(result, np.bool_(value))


def test_all_nan_is_true(bench, device):
    # NaN is nonzero, so it counts as True (as in NumPy); -0.0 counts as False.
    x = np.array([[np.nan, 1.0, -np.inf], [np.nan, -0.0, 2.0]], np.float32)
    result = bench(jnp.all, jax.device_put(x, device), 1)
    assert_exact(result, np.all(x, axis=1))


@pytest.mark.parametrize("shape,axis", [((3, 4), 1), ((2, 3, 4), (0, 2)), ((3, 4), None)])
def test_all_where(bench, device, shape, axis):
    # testReducerWhereNoInitial: masked-out entries are ignored (an empty selection is True).
    rng = np.random.default_rng(2)
    x = rand_some_zero(rng, shape, np.bool_)
    mask = rng.random(shape) < 0.5
    result = bench(lambda a, m: jnp.all(a, axis=axis, where=m),
                   jax.device_put(x, device), jax.device_put(mask, device))
    assert_exact(result, np.all(x, axis=axis, where=mask))


def test_all_large(bench, device):
    x = np.random.default_rng(3).random((1024, 1024)) < 0.999
    result = bench(jnp.all, jax.device_put(x, device), 0)
    assert_exact(result, np.all(x, axis=0))
