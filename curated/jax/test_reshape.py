"""jax.numpy.reshape: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testReshape, testReshapeMethod) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReshapeGrad: lax.reshape, with or without a permutation of the dimensions, order 2, the floating dtypes) and tests/sparsify_test.py (SparsifyTest.testSparseReshapeMethod: a BCOO array with one batch dimension, reshaped through sparsify); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default, rand_some_zero

pytestmark = pytest.mark.function("jax.numpy.reshape", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testReshape": [
        "test_reshape_shapes", "test_reshape_order_f", "test_reshape_dtypes", "test_reshape_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testReshapeMethod": "the x.reshape method calls jnp.reshape, "
                                                                       "whose values the shapes cases check",
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReshapeGrad": ["test_reshape_backward"],
    "tests/sparsify_test.py::SparsifyTest::testSparseReshapeMethod": ["test_reshape_sparse"],
}

# Reshape moves data without arithmetic: shape, dtype and values must match exactly (assert_exact).


# Upstream's (arg_shape, out_shape) table, including 0-d, empty, int and -1 targets.
@pytest.mark.parametrize("arg_shape,out_shape", [
    ((), (1, 1, 1)),
    ((7, 0), (0, 42, 101)),
    ((3, 4), 12),
    ((3, 4), (12,)),
    ((3, 4), -1),
    ((2, 1, 4), (-1,)),
    ((2, 2, 4), (2, 8)),
])
def test_reshape_shapes(bench, device, arg_shape, out_shape):
    x = rand_default(np.random.default_rng(0), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape)
    assert_exact(result, np.reshape(x, out_shape))


@pytest.mark.parametrize("arg_shape,out_shape", [((3, 4), (2, 6)), ((2, 2, 4), (4, -1)), ((2, 3, 4), (24,))])
def test_reshape_order_f(bench, device, arg_shape, out_shape):
    # Fortran order reads and writes elements with the first index varying fastest.
    x = rand_default(np.random.default_rng(1), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape, order="F")
    assert_exact(result, np.reshape(x, out_shape, order="F"))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_reshape_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (2, 2, 4), dtype)
    result = bench(jnp.reshape, jax.device_put(x, device), (2, 8))
    assert_exact(result, np.reshape(x, (2, 8)))


def test_reshape_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), (256, 64, 64))
    assert_exact(result, np.reshape(x, (256, 64, 64)))


# testReshapeGrad: the cotangent of a reshape is the cotangent reshaped back (with order="F" through upstream's
# permuted dimensions), to order 2, in the floating dtypes a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("arg_shape,out_shape,order", [
    ((2, 3, 4), (6, 4), "C"), ((3, 4), (12,), "F"), ((2, 1, 4), (8,), "C"), ((2, 2, 4), (2, 8), "F")])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_reshape_backward(backward, device, dtype, arg_shape, out_shape, order):
    x = jax.device_put(rand_default(np.random.default_rng(4), arg_shape, dtype), device)
    fn = lambda a: jnp.reshape(a, out_shape, order=order)  # noqa: E731
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), order=2)


# testSparseReshapeMethod: a batched-COO array (BCOO, one batch dimension, about half its entries zero) reshaped by
# jnp.reshape through sparsify, which lowers it to bcoo_reshape; the result stays sparse and its values are exact.
@pytest.mark.layout("sparse_coo")
def test_reshape_sparse(bench, device):
    from jax.experimental import sparse  # imported where used: the sparse module is experimental
    x = rand_some_zero(np.random.default_rng(5), (2, 3, 4), np.float32)
    m = jax.device_put(sparse.BCOO.fromdense(x, n_batch=1), device)
    result = bench(sparse.sparsify(lambda a: jnp.reshape(a, (2, 6, 2))), m)
    assert isinstance(result, sparse.BCOO)
    assert_exact(result.todense(), np.reshape(x, (2, 6, 2)))
