"""tf.compat.v1.get_collection: cases adapted from tensorflow/python/framework/ops_test.py (CollectionTest.test_add_to_collection, test_get_collections; the scope filtering of VariablesTestCase.testCollectionsWithScope in tensorflow/python/kernel_tests/variables/variables_test.py, on tensors), and the LOSSES collection; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

get_collection reads the default graph's collections, so every case builds its own graph."""
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.get_collection", decile=100, top20=False,
                                  backward=("returns a Python list of a graph's collection items, not a tensor: no op "
                                            "runs"))

UPSTREAM_TESTS = {
    "tensorflow/python/framework/ops_test.py::CollectionTest::test_add_to_collection": [
        "test_get_collection_items", "test_get_collection_returns_copy", "test_get_collection_many_items"],
    "tensorflow/python/framework/ops_test.py::CollectionTest::test_get_collections": [
        "test_get_collection_items", "test_get_collection_losses"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testCollectionsWithScope": [
        "test_get_collection_scoped_tensors"],
}


class _Named:
    def __init__(self, name):
        self.name = name


def _graph_with_items():
    g = tf.Graph()
    g.add_to_collection("key", 12)
    g.add_to_collection("other", "foo")
    g.add_to_collection("key", 34)
    blank1, blank2 = _Named("prefix/foo"), _Named("junk/foo")
    for item in (27, blank1, blank2):
        g.add_to_collection("blah", item)
    return g, blank1, blank2


@pytest.mark.parametrize("key,scope,expected", [
    ("key", None, [12, 34]),
    ("nothing", None, []),
    ("blah", None, [27, "prefix/foo", "junk/foo"]),
    ("blah", "prefix", ["prefix/foo"]),
    ("blah", ".*x", ["prefix/foo"]),   # the scope is a regular expression matched at the start
], ids=["key", "missing", "all", "scope_prefix", "scope_regex"])
def test_get_collection_items(bench, device, key, scope, expected):
    # test_add_to_collection: items without a name only show up when no scope is given.
    g, _, _ = _graph_with_items()
    with g.as_default():
        result = bench(tf.compat.v1.get_collection, key, scope)
    assert isinstance(result, list)
    assert [getattr(x, "name", x) for x in result] == expected


def test_get_collection_returns_copy(bench, device):
    # test_add_to_collection: a first-level copy, unlike get_collection_ref.
    g, _, _ = _graph_with_items()
    with g.as_default():
        snapshot = bench(tf.compat.v1.get_collection, "other")
        ref = tf.compat.v1.get_collection_ref("other")
        g.add_to_collection("other", "bar")
        after = tf.compat.v1.get_collection("other")
    assert snapshot == ["foo"]
    assert ref == ["foo", "bar"]
    assert after == ["foo", "bar"]


def test_get_collection_losses(bench, device):
    # The GraphKeys collections the TF1 API fills itself: losses registered with add_loss.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        l1 = tf.constant(1.5, name="l1")
        l2 = tf.constant(2.5, name="l2")
        tf.compat.v1.losses.add_loss(l1)
        tf.compat.v1.losses.add_loss(l2)
        losses = bench(tf.compat.v1.get_collection, tf.compat.v1.GraphKeys.LOSSES)
        total = tf.compat.v1.losses.get_total_loss(add_regularization_losses=False)
    assert losses == [l1, l2]
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(total) == 4.0


def test_get_collection_scoped_tensors(bench, device):
    # testCollectionsWithScope, with tensors in place of variables: the filter is on name scopes.
    # (Graph variables are left out: the harness's result sync calls .numpy() on them.)
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        with tf.name_scope("scope_1"):
            a = tf.constant(1.0)
        with tf.name_scope("scope_2"):
            b = tf.constant(2.0)
        for t in (a, b):
            tf.compat.v1.add_to_collection("tensors", t)
        in_scope_1 = bench(tf.compat.v1.get_collection, "tensors", "scope_1")
        in_scope_2 = tf.compat.v1.get_collection("tensors", "scope_2")
    assert in_scope_1 == [a]
    assert in_scope_2 == [b]


def test_get_collection_many_items(bench, device):
    # A collection of 10000 named items filtered by scope.
    g = tf.Graph()
    items = [_Named(f"s{i % 10}/item{i}") for i in range(10000)]
    for item in items:
        g.add_to_collection("many", item)
    with g.as_default():
        result = bench(tf.compat.v1.get_collection, "many", "s3/")
    assert result == [item for item in items if item.name.startswith("s3/")]
    assert len(result) == 1000
