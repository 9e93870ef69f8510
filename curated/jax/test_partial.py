"""jax.tree_util.Partial: cases adapted from tests/tree_util_test.py (TreeTest.testRoundtripPartial / testPartialDoesNotMergeWithOtherPartials / testPartialFuncAttributeHasStableHash: a Partial's bound arguments are its leaves, its function is static, calling it applies the function; Partials pass into and out of jit) and tests/api_test.py (Partial returned from jit); a Partial bound to a model's weights is differentiated through its bound arguments and its call's, so a backward case checks both, eagerly and through jit (order 2), citing the gradient test of pytree arguments (APITest.test_jacobian_on_pytrees), as upstream checks no gradient of a Partial; UPSTREAM_TESTS below maps each to the cases here.

Partial(func, *args) returns a functools.partial that is a pytree: its bound array arguments are leaves,
so the harness can time the construction under jit (the Partial comes back out of it)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default
from jax import tree_util

pytestmark = pytest.mark.function("jax.tree_util.Partial", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/api_test.py::APITest::test_jacobian_on_pytrees": ["test_partial_backward"],
    "tests/tree_util_test.py::TreeTest::testRoundtripPartial": [
        "test_partial_positional", "test_partial_keyword", "test_partial_is_a_pytree",
        "test_partial_through_jit", "test_partial_large_argument"],
    "tests/tree_util_test.py::TreeTest::testPartialDoesNotMergeWithOtherPartials": ["test_partial_does_not_merge"],
    "tests/tree_util_test.py::TreeTest::testPartialFuncAttributeHasStableHash": ["test_partial_stable_hash"],
}


@pytest.mark.parametrize("shape", [(), (3,), (2, 4)])
def test_partial_positional(bench, device, shape):
    rng = np.random.default_rng(0)
    a, b = rand_default(rng, shape), rand_default(rng, shape)
    p = bench(tree_util.Partial, jnp.add, jax.device_put(a, device))
    assert isinstance(p, tree_util.Partial) and isinstance(p, functools.partial)
    assert p.func is jnp.add and len(p.args) == 1
    np.testing.assert_array_equal(np.asarray(p.args[0]), a)
    out = p(jax.device_put(b, device))
    assert out.shape == shape
    np.testing.assert_allclose(np.asarray(out), a + b, rtol=1e-6)


def test_partial_keyword(bench, device):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = bench(tree_util.Partial, jnp.sum, axis=1)
    assert p.keywords == {"axis": 1}
    np.testing.assert_array_equal(np.asarray(p(jax.device_put(x, device))), x.sum(1))


def test_partial_is_a_pytree(bench, device):
    # Bound arguments are the leaves; the function is part of the static structure.
    rng = np.random.default_rng(1)
    a, b = rand_default(rng, (2,)), rand_default(rng, (3,))
    p = bench(tree_util.Partial, lambda x, y, z: x.sum() + y.sum() + z, jax.device_put(a, device),
              jax.device_put(b, device))
    leaves, treedef = tree_util.tree_flatten(p)
    assert len(leaves) == 2
    np.testing.assert_array_equal(np.asarray(leaves[0]), a)
    rebuilt = tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
    np.testing.assert_allclose(float(rebuilt(1.0)), 2 * (a.sum() + b.sum()) + 1.0, rtol=1e-5)
    doubled = tree_util.tree_map(lambda v: v * 0, p)
    assert isinstance(doubled, tree_util.Partial) and float(doubled(1.0)) == 1.0


def test_partial_through_jit(bench, device):
    # A Partial is a valid jit argument and result.
    rng = np.random.default_rng(2)
    w = rand_default(rng, (3, 3))
    p = bench(tree_util.Partial, jnp.matmul, jax.device_put(w, device))
    x = rand_default(rng, (3, 2))
    applied = jax.jit(lambda f, v: f(v))(p, x)
    np.testing.assert_allclose(np.asarray(applied), w @ x, rtol=1e-5, atol=1e-5)
    made = jax.jit(lambda m: tree_util.Partial(jnp.matmul, m))(w)
    assert isinstance(made, tree_util.Partial)
    np.testing.assert_allclose(np.asarray(made(x)), w @ x, rtol=1e-5, atol=1e-5)


def test_partial_does_not_merge(bench, device):
    # testPartialDoesNotMergeWithOtherPartials: functools.partial would flatten a partial of a partial
    # into one (args (1.0, 2.0)); a Partial keeps both levels, so only 2.0 is bound at the outer one.
    inner = tree_util.Partial(lambda a, b, c: a + b * c, 1.0)
    p = bench(tree_util.Partial, inner, 2.0)
    assert len(p.args) == 1 and float(p.args[0]) == 2.0
    assert float(p(3.0)) == 7.0


def test_partial_stable_hash(bench, device):
    # testPartialFuncAttributeHasStableHash: equal functions give equal tree structures.
    x = jax.device_put(np.ones(2, np.float32), device)
    p1 = bench(tree_util.Partial, jnp.multiply, x)
    p2 = tree_util.Partial(jnp.multiply, x)
    assert tree_util.tree_structure(p1) == tree_util.tree_structure(p2)
    np.testing.assert_array_equal(np.asarray(p1(3.0)), np.full(2, 3.0, np.float32))


def test_partial_large_argument(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024))
    p = bench(tree_util.Partial, jnp.multiply, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(p(2.0)), 2 * x, rtol=1e-6)


def _apply(f, v):
    return f(v)


# The bound weights' gradient (the cotangent times x transposed) and the call argument's (w transposed times the
# cotangent), with the Partial built and called eagerly or passed into jit, to order 2, in the floating dtypes a
# device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("call", [_apply, jax.jit(_apply)], ids=["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_partial_backward(backward, device, dtype, call):
    rng = np.random.default_rng(4)
    w, x = (jax.device_put(rand_default(rng, shape, dtype), device) for shape in ((3, 3), (3, 2)))
    fn = lambda m, v: call(tree_util.Partial(jnp.matmul, m), v)  # noqa: E731
    grads = backward(fn, w, x)
    check_gradients(grads, fn, (w, x), tol=1e-1 if dtype is jnp.bfloat16 else 1e-5, order=2)
