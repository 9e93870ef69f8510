"""jax.tree_util.tree_unflatten: cases adapted from tests/tree_util_test.py (TreeTest.testRoundtrip / testRoundtripWithFlattenUpTo over the module's pytree examples: tuples, lists, dicts with sorted keys, namedtuples, None, nested and custom nodes; unflattening with new leaves; a wrong leaf count raises) and tests/core_test.py (CoreTest.test_tree_unflatten); a model's parameters are rebuilt with it, so a backward case differentiates array leaves through it (the identity on each leaf, order 2), citing the gradient test of pytree outputs (APITest.test_jacobian_on_pytrees), as upstream checks no gradient of tree_unflatten; UPSTREAM_TESTS below maps each to the cases here."""
import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default
from jax import tree_util

pytestmark = pytest.mark.function("jax.tree_util.tree_unflatten", decile=80, top20=False)

UPSTREAM_TESTS = {
    "tests/api_test.py::APITest::test_jacobian_on_pytrees": ["test_tree_unflatten_backward"],
    "tests/tree_util_test.py::TreeTest::testRoundtrip": [
        "test_tree_unflatten_roundtrip", "test_tree_unflatten_dict_key_order",
        "test_tree_unflatten_namedtuple_and_custom_types", "test_tree_unflatten_many_leaves",
        "test_tree_unflatten_wrong_leaf_count_raises"],
    "tests/tree_util_test.py::TreeTest::testRoundtripWithFlattenUpTo": ["test_tree_unflatten_roundtrip"],
    "tests/core_test.py::CoreTest::test_tree_unflatten": ["test_tree_unflatten_roundtrip"],
}

Point = collections.namedtuple("Point", ["x", "y"])


@tree_util.register_pytree_node_class
class Box:
    """A custom pytree node with one child and static aux data."""

    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)


def _examples():
    return {
        "tuple": (1, 2),
        "list": [1, [2, 3]],
        "dict": {"b": 1, "a": {"c": 2}},
        "namedtuple": Point(1, 2),
        "with_none": (None, 1, [None, 2]),
        "leaf": 1,
        "empty": (),
        "custom": [Box(1, "first"), Box((2, 3), "second")],
    }


@pytest.mark.parametrize("kind", list(_examples()))
def test_tree_unflatten_roundtrip(bench, device, kind):
    example = _examples()[kind]
    leaves, treedef = tree_util.tree_flatten(example)
    new_leaves = [jax.device_put(np.full((2,), float(i), np.float32), device) for i in range(len(leaves))]
    result = bench(tree_util.tree_unflatten, treedef, new_leaves)
    assert tree_util.tree_structure(result) == treedef
    out_leaves = tree_util.tree_leaves(result)
    assert len(out_leaves) == len(leaves)
    for i, leaf in enumerate(out_leaves):
        assert leaf.shape == (2,) and leaf.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(leaf), np.full((2,), float(i), np.float32))


def test_tree_unflatten_dict_key_order(bench, device):
    # Dict leaves come in sorted-key order; unflattening puts each one back under its key.
    tree = {"z": 0, "a": 0, "m": 0}
    treedef = tree_util.tree_structure(tree)
    leaves = [jax.device_put(np.float32(v), device) for v in (1.0, 2.0, 3.0)]
    result = bench(tree_util.tree_unflatten, treedef, leaves)
    assert {k: float(v) for k, v in result.items()} == {"a": 1.0, "m": 2.0, "z": 3.0}


def test_tree_unflatten_namedtuple_and_custom_types(bench, device):
    tree = (Point(0, 0), Box(0, "tag"))
    treedef = tree_util.tree_structure(tree)
    leaves = [jax.device_put(np.arange(3, dtype=np.int32) + i, device) for i in range(3)]
    result = bench(tree_util.tree_unflatten, treedef, leaves)
    assert isinstance(result[0], Point) and isinstance(result[1], Box) and result[1].label == "tag"
    np.testing.assert_array_equal(np.asarray(result[0].y), np.arange(3) + 1)
    np.testing.assert_array_equal(np.asarray(result[1].value), np.arange(3) + 2)


def test_tree_unflatten_wrong_leaf_count_raises(bench, device):
    treedef = tree_util.tree_structure((0, [0, 0]))
    leaves = [jax.device_put(np.float32(i), device) for i in range(3)]
    result = bench(tree_util.tree_unflatten, treedef, leaves)
    assert [float(v) for v in tree_util.tree_leaves(result)] == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError):
        tree_util.tree_unflatten(treedef, leaves[:2])


def test_tree_unflatten_many_leaves(bench, device):
    tree = {f"layer{i}": {"w": 0, "b": 0} for i in range(64)}
    leaves, treedef = tree_util.tree_flatten(tree)
    arrays = [jax.device_put(np.full((32, 32), i, np.float32), device) for i in range(len(leaves))]
    result = bench(tree_util.tree_unflatten, treedef, arrays)
    assert tree_util.tree_structure(result) == treedef
    for i, leaf in enumerate(tree_util.tree_leaves(result)):
        np.testing.assert_array_equal(np.asarray(leaf), np.full((32, 32), i, np.float32))


# Each leaf's gradient is its own cotangent, wherever the structure puts it (a dict, a custom node), to order 2, in
# the floating dtypes a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_tree_unflatten_backward(backward, device, dtype):
    rng = np.random.default_rng(7)
    leaves = [jax.device_put(rand_default(rng, shape, dtype), device) for shape in ((3,), (2, 2), ())]
    treedef = tree_util.tree_structure({"b": 0, "a": [Box(0, "w"), 0]})
    fn = lambda *ls: tree_util.tree_unflatten(treedef, ls)  # noqa: E731
    grads = backward(fn, *leaves)
    check_gradients(grads, fn, tuple(leaves), order=2)
