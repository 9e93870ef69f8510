"""jax.lax.select: cases adapted from tests/lax_test.py (LaxTest.testSelect and testSelectScalarPred: shapes (), (2,), (2, 3) and larger, default dtypes, array or scalar boolean predicate, checked against np.where exactly; the scalar predicate is one of testSelect's pred_shapes) and tests/lax_autodiff_test.py (LaxAutodiffTest.testSelectGrad: the cotangent flows to on_true where pred holds and to on_false elsewhere, order 2, shapes (), (3,), (2, 3) with an array or scalar predicate, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import as_numpy, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.select", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testSelect": [
        "test_select_shapes", "test_select_dtypes", "test_select_scalar_pred", "test_select_all_true_all_false",
        "test_select_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testSelectGrad": ["test_select_backward"],
}


def _run(bench, device, pred, t, f):
    put = lambda a: jax.device_put(a, device)  # noqa: E731
    result = bench(lax.select, put(pred), put(t), put(f))
    expected = np.where(pred, as_numpy(t), as_numpy(f))
    assert result.shape == np.shape(t) and np.dtype(result.dtype) == np.dtype(t.dtype)
    np.testing.assert_array_equal(as_numpy(result), expected)  # select only moves values: exact


@pytest.mark.parametrize("shape", [(), (2,), (2, 3), (4, 5, 6)])
def test_select_shapes(bench, device, shape):
    rng = np.random.default_rng(0)
    pred, t, f = rng.random(shape) < 0.5, rand_default(rng, shape, np.float32), rand_default(rng, shape, np.float32)
    _run(bench, device, pred, t, f)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.int8, np.uint8, np.bool_, np.complex64])
def test_select_dtypes(bench, device, dtype):
    rng = np.random.default_rng(1)
    pred, t, f = rng.random((3, 4)) < 0.5, rand_default(rng, (3, 4), dtype), rand_default(rng, (3, 4), dtype)
    _run(bench, device, pred, t, f)


@pytest.mark.parametrize("pred", [True, False])
def test_select_scalar_pred(bench, device, pred):
    # testSelectScalarPred: a scalar predicate picks a whole operand.
    rng = np.random.default_rng(2)
    _run(bench, device, np.bool_(pred), rand_default(rng, (2, 3), np.float32), rand_default(rng, (2, 3), np.float32))


def test_select_all_true_all_false(bench, device):
    rng = np.random.default_rng(3)
    t, f = rand_default(rng, (5, 5), np.float32), rand_default(rng, (5, 5), np.float32)
    pred = np.eye(5, dtype=bool)
    _run(bench, device, pred, t, f)


def test_select_large(bench, device):
    rng = np.random.default_rng(5)
    shape = (1024, 1024)
    pred, t, f = rng.random(shape) < 0.5, rand_default(rng, shape, np.float32), rand_default(rng, shape, np.float32)
    _run(bench, device, pred, t, f)


# testSelectGrad: each branch's gradient is the cotangent where it was selected and zero elsewhere; to order 2 (zero:
# select is linear in its branches), in the dtypes a device trains in, against the CPU's float64 gradient. The
# predicate is an argument too (a boolean: never differentiated).
@pytest.mark.parametrize("pred_shape,arg_shape", [((), ()), ((), (3,)), ((3,), (3,)), ((2, 3), (2, 3))],
                         ids=["scalar", "scalar_pred", "vector", "matrix"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_select_backward(backward, device, dtype, pred_shape, arg_shape):
    rng = np.random.default_rng(4)
    pred = jax.device_put(np.asarray(rng.random(pred_shape) < 0.5), device)
    t = jax.device_put(rand_default(rng, arg_shape, dtype), device)
    f = jax.device_put(rand_default(rng, arg_shape, dtype), device)
    grads = backward(lax.select, pred, t, f)
    check_gradients(grads, lax.select, (pred, t, f), order=2)
    chosen = np.broadcast_to(np.asarray(pred), arg_shape)
    assert not np.asarray(grads[0], np.float32)[~chosen].any() and not np.asarray(grads[1], np.float32)[chosen].any()
