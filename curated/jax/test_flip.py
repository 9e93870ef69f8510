"""jax.numpy.flip: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testFlip over shapes, dtypes and every axis incl. None and tuples) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReverseGrad: lax.rev, which flip lowers to, over one and two dimensions, order 2) and tests/sparsify_test.py (SparsifyTest.testSparseRev: lax.rev of a BCOO array over two of its dimensions, through sparsify); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default, rand_some_zero

pytestmark = pytest.mark.function("jax.numpy.flip", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testFlip": [
        "test_flip_axes", "test_flip_dtypes", "test_flip_twice_is_identity", "test_flip_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReverseGrad": ["test_flip_backward"],
    "tests/sparsify_test.py::SparsifyTest::testSparseRev": ["test_flip_sparse"],
}

# flip only moves data: exact values, same dtype and shape (assert_exact).


@pytest.mark.parametrize("shape,axis", [
    ((4,), 0), ((4,), None), ((3, 4), 0), ((3, 4), -1), ((3, 4), None), ((2, 1, 4), 1),
    ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3, 1)), ((0, 4), 0), ((3, 0), None), ((), None),
])
def test_flip_axes(bench, device, shape, axis):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), axis)
    assert_exact(result, np.flip(x, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.complex64, np.bool_])
def test_flip_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (3, 5), dtype)
    result = bench(jnp.flip, jax.device_put(x, device), 1)
    assert_exact(result, np.flip(x, 1))


def test_flip_twice_is_identity(bench, device):
    x = rand_default(np.random.default_rng(2), (4, 6), np.float32)
    x_dev = jax.device_put(x, device)
    result = bench(jnp.flip, x_dev)
    assert_exact(jnp.flip(result), x)
    assert_exact(result, x[::-1, ::-1])


# testReverseGrad: the cotangent of flip is flipped back along the same axes, to order 2, in the floating dtypes a
# device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("shape,axis", [((3,), 0), ((2, 3), (0, 1)), ((3, 4), 0), ((2, 3, 4), None)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_flip_backward(backward, device, dtype, shape, axis):
    x = jax.device_put(rand_default(np.random.default_rng(3), shape, dtype), device)
    grads = backward(jnp.flip, x, axis)
    check_gradients(grads, jnp.flip, (x, axis), order=2)


def test_flip_large(bench, device):
    x = rand_default(np.random.default_rng(4), (1024, 1024), np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), 0)
    assert_exact(result, np.flip(x, 0))


# testSparseRev: a sparse (BCOO) array reversed along two of its dimensions through sparsify, which lowers flip's
# lax.rev to bcoo_rev; the result stays sparse and its values are exact.
@pytest.mark.layout("sparse_coo")
def test_flip_sparse(bench, device):
    from jax.experimental import sparse  # imported where used: the sparse module is experimental
    x = rand_some_zero(np.random.default_rng(5), (2, 3, 4), np.float32)
    m = jax.device_put(sparse.BCOO.fromdense(x), device)
    result = bench(sparse.sparsify(lambda a: jnp.flip(a, (1, 2))), m)
    assert isinstance(result, sparse.BCOO)
    assert_exact(result.todense(), np.flip(x, (1, 2)))
