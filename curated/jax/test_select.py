"""jax.lax.select: cases adapted from tests/lax_test.py (LaxTest.testSelect and testSelectScalarPred: shapes (), (2,), (2, 3) and larger, default dtypes, array or scalar boolean predicate, checked against np.where exactly) and tests/lax_autodiff_test.py (gradients flow only to the selected branch)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.select", decile=90, top20=False)


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


def test_select_grad_goes_to_selected(bench, device):
    # Autodiff: the cotangent goes to on_true where pred, to on_false elsewhere.
    rng = np.random.default_rng(4)
    pred = rng.random(6) < 0.5
    t, f = rand_default(rng, (6,), np.float32), rand_default(rng, (6,), np.float32)
    _run(bench, device, pred, t, f)
    gt, gf = jax.grad(lambda a, b: lax.select(jnp.asarray(pred), a, b).sum(), argnums=(0, 1))(t, f)
    np.testing.assert_array_equal(np.asarray(gt), pred.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(gf), (~pred).astype(np.float32))


def test_select_large(bench, device):
    rng = np.random.default_rng(5)
    shape = (1024, 1024)
    pred, t, f = rng.random(shape) < 0.5, rand_default(rng, shape, np.float32), rand_default(rng, shape, np.float32)
    _run(bench, device, pred, t, f)
