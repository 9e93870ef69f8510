"""jax.tree_util.tree_map: cases adapted from tests/tree_util_test.py (TreeTest.testTreeMap / testTreeMultimap over the module's pytree examples: tuples, lists, dicts, namedtuples, None, nested containers; testTreeMapWithIsLeafArgument; mismatched structures raise) with array leaves."""
import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import rand_default
from jax import tree_util

pytestmark = pytest.mark.function("jax.tree_util.tree_map", decile=100, top20=True)

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
