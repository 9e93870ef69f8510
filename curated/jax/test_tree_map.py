"""jax.tree_util.tree_map: cases adapted from tests/tree_util_test.py (TreeTest.testTreeMap / testTreeMultimap over the module's pytree examples: tuples, lists, dicts, namedtuples, None, nested containers; testTreeMapWithIsLeafArgument; mismatched structures raise) and tests/core_test.py (CoreTest.test_tree_map), with array leaves; a model's update maps over its parameters, so a backward case differentiates every leaf through tree_map (order 2), citing the gradient test of pytree outputs (APITest.test_jacobian_on_pytrees), as upstream checks no gradient of tree_map; UPSTREAM_TESTS below maps each to the cases here."""
import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default
from jax import tree_util

pytestmark = pytest.mark.function("jax.tree_util.tree_map", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/api_test.py::APITest::test_jacobian_on_pytrees": ["test_tree_map_backward"],
    "tests/tree_util_test.py::TreeTest::testTreeMap": [
        "test_tree_map_unary", "test_tree_map_multiple_trees", "test_tree_map_dtypes",
        "test_tree_map_many_leaves"],
    "tests/tree_util_test.py::TreeTest::testTreeMapWithIsLeafArgument": ["test_tree_map_is_leaf"],
    "tests/core_test.py::CoreTest::test_tree_map": ["test_tree_map_unary", "test_tree_map_mismatched_structure_raises"],
}

Point = collections.namedtuple("Point", ["x", "y"])


def _leaf(rng, shape=(3,)):
    return rand_default(rng, shape, np.float32)


def _trees(rng):
    return {
        "tuple": (_leaf(rng), _leaf(rng, (2, 2))),
        "list": [_leaf(rng), [_leaf(rng, ()), _leaf(rng, (1, 4))]],
        "dict": {"b": _leaf(rng), "a": {"c": _leaf(rng, (2,))}},
        "namedtuple": Point(_leaf(rng), _leaf(rng, (5,))),
        "with_none": (None, _leaf(rng), [None, _leaf(rng, (2,))]),
        "single": _leaf(rng, (4, 4)),
    }


def _assert_tree_equal(result, expected, rtol=1e-6):
    assert tree_util.tree_structure(result) == tree_util.tree_structure(expected)
    for r, e in zip(tree_util.tree_leaves(result), tree_util.tree_leaves(expected)):
        assert r.shape == np.shape(e) and np.dtype(r.dtype) == np.asarray(e).dtype
        np.testing.assert_allclose(np.asarray(r), e, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("kind", ["tuple", "list", "dict", "namedtuple", "with_none", "single"])
def test_tree_map_unary(bench, device, kind):
    tree = _trees(np.random.default_rng(0))[kind]
    result = bench(tree_util.tree_map, lambda a: jnp.sin(a) * 2, jax.device_put(tree, device))
    expected = tree_util.tree_map(lambda a: (2 * np.sin(a)).astype(a.dtype), tree)
    _assert_tree_equal(result, expected)


@pytest.mark.parametrize("kind", ["tuple", "dict", "namedtuple"])
def test_tree_map_multiple_trees(bench, device, kind):
    # testTreeMultimap: the function gets the corresponding leaves of every tree.
    rng = np.random.default_rng(1)
    t1, t2 = _trees(rng)[kind], _trees(rng)[kind]
    result = bench(tree_util.tree_map, lambda a, b: a * b + 1, jax.device_put(t1, device), jax.device_put(t2, device))
    expected = tree_util.tree_map(lambda a, b: a * b + 1, t1, t2)
    _assert_tree_equal(result, expected)


def test_tree_map_is_leaf(bench, device):
    # testTreeMapWithIsLeafArgument: is_leaf stops the recursion at (x, y) pairs.
    rng = np.random.default_rng(2)
    tree = [Point(_leaf(rng), _leaf(rng)), Point(_leaf(rng), _leaf(rng))]
    result = bench(tree_util.tree_map, lambda p: p.x - p.y, jax.device_put(tree, device),
                   is_leaf=lambda n: isinstance(n, Point))
    assert isinstance(result, list) and len(result) == 2
    for r, p in zip(result, tree):
        np.testing.assert_allclose(np.asarray(r), p.x - p.y, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, jnp.bfloat16, np.bool_])
def test_tree_map_dtypes(bench, device, dtype):
    tree = {"a": np.ones((2, 3), dtype), "b": [np.zeros(4, dtype)]}
    result = bench(tree_util.tree_map, lambda a: a.astype(jnp.float32) + 1, jax.device_put(tree, device))
    _assert_tree_equal(result, {"a": np.full((2, 3), 2, np.float32), "b": [np.ones(4, np.float32)]})


def test_tree_map_mismatched_structure_raises(bench, device):
    # A second tree with another structure is an error (checked after a valid timed call).
    rng = np.random.default_rng(3)
    t = (_leaf(rng), _leaf(rng))
    result = bench(tree_util.tree_map, jnp.negative, jax.device_put(t, device))
    _assert_tree_equal(result, tuple(-a for a in t))
    with pytest.raises((ValueError, TypeError)):
        tree_util.tree_map(lambda a, b: a + b, t, [t[0], t[1]])


def test_tree_map_many_leaves(bench, device):
    rng = np.random.default_rng(4)
    tree = {f"layer{i}": {"w": _leaf(rng, (64, 64)), "b": _leaf(rng, (64,))} for i in range(32)}
    result = bench(tree_util.tree_map, lambda a: a * 0.5, jax.device_put(tree, device))
    _assert_tree_equal(result, tree_util.tree_map(lambda a: a * 0.5, tree))


# Each leaf's gradient is that of the mapped function at the leaf (2 cos(a) times its cotangent), whatever the
# container, to order 2, in the floating dtypes a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_tree_map_backward(backward, device, dtype):
    rng = np.random.default_rng(6)
    a, b, c = (jax.device_put(rand_default(rng, shape, dtype), device) for shape in ((3,), (2, 2), ()))
    fn = lambda x, y, z: tree_util.tree_map(lambda u: jnp.sin(u) * 2, {"x": x, "p": Point(y, [z])})  # noqa: E731
    grads = backward(fn, a, b, c)
    check_gradients(grads, fn, (a, b, c), tol=5e-2 if dtype is jnp.bfloat16 else None, order=2)
