"""jax.numpy.stack: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testStack: shapes (), (2,), (3, 4), (1, 100) with each valid axis, 1 to 4 inputs, mixed dtypes promoted like NumPy, list or array input; testStackArrayArgument: an array argument under jit), checked exactly against np.stack, and tests/lax_autodiff_test.py (LaxAutodiffTest.testConcatenateGrad: lax.concatenate, which stack lowers to, of three operands along each axis of shapes (4,), (3, 4), (2, 3, 4), order 2, the floating dtypes) and tests/sparsify_test.py (SparsifyTest.testSparseConcatenateBCOO and testSparseConcatenateBCSR for "stack": BCOO operands with zero or one batch dimension, through sparsify; both build BCOO operands); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import as_numpy, assert_exact, rand_default, rand_some_zero

pytestmark = pytest.mark.function("jax.numpy.stack", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testStack": [
        "test_stack_shapes_axes", "test_stack_dtypes", "test_stack_mixed_dtypes_promote", "test_stack_array_input",
        "test_stack_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testStackArrayArgument": ["test_stack_array_input"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testConcatenateGrad": ["test_stack_backward"],
    "tests/sparsify_test.py::SparsifyTest::testSparseConcatenateBCOO": ["test_stack_sparse"],
    "tests/sparsify_test.py::SparsifyTest::testSparseConcatenateBCSR": ["test_stack_sparse"],
}

# stack only moves values: every check is exact (assert_exact).


@pytest.mark.parametrize("shape,axis", [((), 0), ((2,), 0), ((2,), 1), ((3, 4), 0), ((3, 4), 2), ((3, 4), -1), ((1, 100), 1)])
@pytest.mark.parametrize("n", [1, 3])
def test_stack_shapes_axes(bench, device, shape, axis, n):
    rng = np.random.default_rng(0)
    xs = [rand_default(rng, shape, np.float32) for _ in range(n)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], axis)
    assert_exact(result, np.stack(xs, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_stack_dtypes(bench, device, dtype):
    rng = np.random.default_rng(1)
    xs = [rand_default(rng, (2, 3), dtype) for _ in range(2)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], 1)
    assert_exact(result, np.stack([as_numpy(x) for x in xs], 1).astype(dtype))


@pytest.mark.parametrize("dtypes,out", [((np.int32, np.float32), np.float32), ((np.float16, np.float32), np.float32),
                                        ((np.bool_, np.int8), np.int8)])
def test_stack_mixed_dtypes_promote(bench, device, dtypes, out):
    rng = np.random.default_rng(2)
    xs = [rand_default(rng, (4,), d) for d in dtypes]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs])
    assert_exact(result, np.stack(xs).astype(out))


def test_stack_array_input(bench, device):
    # An array input is unstacked along its first axis and restacked along `axis`.
    x = rand_default(np.random.default_rng(3), (3, 4, 5), np.float32)
    result = bench(jnp.stack, jax.device_put(x, device), 2)
    assert_exact(result, np.stack(list(x), 2))


def test_stack_large(bench, device):
    rng = np.random.default_rng(4)
    xs = [rand_default(rng, (512, 512), np.float32) for _ in range(4)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], 1)
    assert_exact(result, np.stack(xs, 1))


# testConcatenateGrad: each input's gradient is its slice of the cotangent along the new axis, to order 2, for three
# operands, in the floating dtypes a device trains in; against the CPU's float64 gradient. The operands are
# positional arguments, so that each is differentiated.
@pytest.mark.parametrize("shape,axis", [((4,), 0), ((3, 4), 1), ((2, 3, 4), -1)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_stack_backward(backward, device, dtype, shape, axis):
    rng = np.random.default_rng(5)
    xs = [jax.device_put(rand_default(rng, shape, dtype), device) for _ in range(3)]
    fn = lambda *parts: jnp.stack(parts, axis)  # noqa: E731
    grads = backward(fn, *xs)
    check_gradients(grads, fn, tuple(xs), order=2)


# testSparseConcatenateBCOO for "stack": sparse (BCOO) operands, with zero or one batch dimension, stacked through
# sparsify; the result stays sparse and its values are exact.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("shape,n_batch", [((4,), 0), ((4,), 1), ((2, 4), 0)])
def test_stack_sparse(bench, device, shape, n_batch):
    from jax.experimental import sparse  # imported where used: the sparse module is experimental
    rng = np.random.default_rng(6)
    xs = [rand_some_zero(rng, shape, np.int32) for _ in range(2)]
    parts = [jax.device_put(sparse.BCOO.fromdense(x, n_batch=n_batch), device) for x in xs]
    result = bench(sparse.sparsify(jnp.stack), parts)
    assert isinstance(result, sparse.BCOO)
    assert_exact(result.todense(), np.stack(xs))
