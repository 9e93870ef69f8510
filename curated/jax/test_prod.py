"""jax.numpy.prod: cases adapted from tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests.testReducer, testReducerInitial, testReducerWhere and testReducerPromoteInt for "prod", inputs from rand_small_positive) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReduceGrad for lax.mul, the reduction jnp.prod lowers to: order 2, rand_default values of scale 1, the floating dtypes; upstream skips it on TPU as unimplemented); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_uniform, tolerances, wide

pytestmark = pytest.mark.function("jax.numpy.prod", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducer": [
        "test_prod_dtypes", "test_prod_axis_keepdims", "test_prod_empty", "test_prod_large"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerInitial": ["test_prod_initial"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhere": ["test_prod_where"],
    "tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerPromoteInt": ["test_prod_promote_integers"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReduceGrad": ["test_prod_backward"],
}

_TOL = tolerances(float32=1e-3, float16=1e-2, bfloat16=3e-2, complex64=1e-3)


def _small_positive(rng, shape, dtype):
    """Like upstream's rand_small_positive: values in (0, 2) (1 or 2 for integer types)."""
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.8
    return rand_uniform(rng, shape, dtype, 0.5, 1.5, ints=(1, 3), imag=(-0.5, 0.5))


@pytest.mark.parametrize("dtype,out", [
    (np.float32, np.float32), (np.float16, np.float16), (jnp.bfloat16, jnp.bfloat16),
    (np.complex64, np.complex64),
    # Narrow integer (and bool) products are promoted to the default integer type.
    (np.int32, np.int32), (np.int8, np.int32), (np.uint8, np.uint32), (np.bool_, np.int32),
])
def test_prod_dtypes(bench, device, dtype, out):
    if jax.config.jax_enable_x64:
        pytest.skip("the default integer types are 64-bit in x64 mode")
    x = _small_positive(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.prod, jax.device_put(x, device))
    assert result.shape == () and np.dtype(result.dtype) == np.dtype(out)
    tol = _TOL.get(np.dtype(dtype), 0)
    np.testing.assert_allclose(wide(result), np.prod(wide(x)), rtol=tol, atol=tol)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_prod_axis_keepdims(bench, device, axis, keepdims):
    x = _small_positive(np.random.default_rng(1), (2, 3, 4), np.float32)
    result = bench(jnp.prod, jax.device_put(x, device), axis, keepdims=keepdims)
    expected = np.prod(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("initial", [0, 1, 2])
def test_prod_initial(bench, device, initial):
    x = _small_positive(np.random.default_rng(2), (3, 4), np.float32)
    result = bench(jnp.prod, jax.device_put(x, device), 1, initial=initial)
    np.testing.assert_allclose(np.asarray(result), np.prod(x.astype(np.float64), axis=1, initial=initial),
                               rtol=1e-3, atol=1e-3)


def test_prod_where(bench, device):
    rng = np.random.default_rng(3)
    x = _small_positive(rng, (4, 5), np.float32)
    mask = rng.random((4, 5)) < 0.5
    result = bench(jnp.prod, jax.device_put(x, device), 0, where=jax.device_put(mask, device))
    np.testing.assert_allclose(np.asarray(result), np.prod(x.astype(np.float64), axis=0, where=mask),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("promote_integers,out", [(True, np.int32), (False, np.int8)])
def test_prod_promote_integers(bench, device, promote_integers, out):
    if jax.config.jax_enable_x64:
        pytest.skip("the default integer type is int64 in x64 mode")
    x = _small_positive(np.random.default_rng(4), (2, 3), np.int8)
    result = bench(jnp.prod, jax.device_put(x, device), 1, promote_integers=promote_integers)
    assert np.dtype(result.dtype) == np.dtype(out)
    np.testing.assert_array_equal(np.asarray(result), np.prod(x.astype(np.int64), axis=1).astype(out))


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 4), 0), ((3, 0), 1)])
def test_prod_empty(bench, device, shape, axis):
    # The empty product is 1.
    x = np.zeros(shape, np.float32)
    result = bench(jnp.prod, jax.device_put(x, device), axis)
    expected = np.prod(x, axis=axis)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(result), expected)


def test_prod_large(bench, device):
    # Values close to 1 keep a 1024-term product finite.
    x = np.random.default_rng(5).uniform(0.999, 1.001, (1024, 1024)).astype(np.float32)
    result = bench(jnp.prod, jax.device_put(x, device), 0)
    assert result.shape == (1024,) and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), np.prod(x.astype(np.float64), axis=0), rtol=1e-3)


# testReduceGrad (lax.mul): each factor's gradient is the product of the others times the cotangent, and, to order 2,
# its derivative; values of scale 1 (upstream's rand_default(scale=1)) over several dims, in the dtypes a device trains
# in, against the CPU's float64 gradient; bfloat16 within upstream's 16-bit gradient tolerance.
_GRAD_TOL = tolerances(float32=1e-5, bfloat16=5e-2)


@pytest.mark.parametrize("shape, axis", [((3, 4), None), ((3, 4, 5), 0), ((3, 4, 5), (1, 2)), ((3, 1), 1)],
                         ids=["all", "axis0", "axes12", "3x1_axis1"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_prod_backward(backward, device, dtype, shape, axis):
    x = jax.device_put(np.random.default_rng(6).standard_normal(shape).astype(dtype), device)
    grads = backward(jnp.prod, x, axis)
    check_gradients(grads, jnp.prod, (x, axis), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
