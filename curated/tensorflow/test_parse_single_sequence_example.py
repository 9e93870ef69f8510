"""tf.io.parse_single_sequence_example: cases adapted from tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py (ParseSequenceExampleTest: sparse and dense context features with defaults, fixed-length feature lists of several widths, variable-length feature lists parsed as SparseTensors, a missing feature list with allow_missing); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The serialized protos are built in the case with tf.train.SequenceExample; parsing runs on the host."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.io.parse_single_sequence_example", decile=60, top20=False,
                                  backward=("parses serialized protos (strings): TensorFlow registers no gradient for "
                                            "ParseSequenceExampleV2"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py::ParseSequenceExampleTest::testSequenceExampleWithSparseAndDenseContext": [
        "test_sparse_and_dense_context"],
    "tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py::ParseSequenceExampleTest::testSequenceExampleWithMultipleSizeFeatureLists": [
        "test_multiple_size_feature_lists", "test_long_sequence"],
    "tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py::ParseSequenceExampleTest::testSequenceExampleWithSparseAndDenseFeatureLists": [
        "test_sparse_and_dense_feature_lists"],
}


def _feature(values, like=None):
    """A Feature of the list type of `like` (all values of that feature; an empty step needs it)."""
    like = values if like is None else like
    if all(isinstance(v, bytes) for v in like):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if all(isinstance(v, int) for v in like):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def _sequence_example(context, feature_lists):
    ex = tf.train.SequenceExample()
    for key, values in context.items():
        ex.context.feature[key].CopyFrom(_feature(values))
    for key, steps in feature_lists.items():
        fl = ex.feature_lists.feature_list[key]
        every = [v for values in steps for v in values]
        for values in steps:
            fl.feature.add().CopyFrom(_feature(values, every))
    return ex.SerializeToString()


def test_sparse_and_dense_context(bench, device):
    # testSequenceExampleWithSparseAndDenseContext: int64 / float / bytes context, sparse and dense.
    serialized = _sequence_example(
        context={"c": [3, 4], "st_c": [3.0, 4.0], "b": [b"hello"]},
        feature_lists={})
    context_features = {
        "c": tf.io.FixedLenFeature([2], tf.int64),
        "st_c": tf.io.VarLenFeature(tf.float32),
        "b": tf.io.FixedLenFeature([1], tf.string),
        "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
    }
    with tf.device(device):
        context, lists = bench(tf.io.parse_single_sequence_example, tf.constant(serialized),
                               context_features=context_features)
    assert lists == {}
    np.testing.assert_array_equal(context["c"].numpy(), [3, 4])
    np.testing.assert_array_equal(context["d"].numpy(), [1.0, 2.0])
    assert context["b"].numpy().tolist() == [b"hello"]
    st = context["st_c"]
    assert isinstance(st, tf.SparseTensor)
    np.testing.assert_array_equal(st.indices.numpy(), [[0], [1]])
    np.testing.assert_array_equal(st.values.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(st.dense_shape.numpy(), [2])


def test_multiple_size_feature_lists(bench, device):
    # testSequenceExampleWithMultipleSizeFeatureLists: fixed-length steps of different widths.
    serialized = _sequence_example(
        context={},
        feature_lists={"a": [[-1, 0, 1], [2, 3, 4], [5, 6, 7], [8, 9, 10]],
                       "b": [[0.0, 1.0], [2.0, 3.0]]})
    with tf.device(device):
        context, lists = bench(tf.io.parse_single_sequence_example, serialized,
                               sequence_features={"a": tf.io.FixedLenSequenceFeature([3], tf.int64),
                                                  "b": tf.io.FixedLenSequenceFeature([2], tf.float32)})
    assert context == {}
    np.testing.assert_array_equal(lists["a"].numpy(), [[-1, 0, 1], [2, 3, 4], [5, 6, 7], [8, 9, 10]])
    np.testing.assert_array_equal(lists["b"].numpy(), [[0.0, 1.0], [2.0, 3.0]])
    assert lists["a"].dtype == tf.int64 and lists["b"].dtype == tf.float32


def test_sparse_and_dense_feature_lists(bench, device):
    # testSequenceExampleWithSparseAndDenseFeatureLists: a VarLen feature list becomes a 2-D SparseTensor.
    serialized = _sequence_example(
        context={},
        feature_lists={"a": [[1, 2], [], [3]], "s": [[b"x"], [b"y", b"z"], [b"w"]]})
    with tf.device(device):
        _, lists = bench(tf.io.parse_single_sequence_example, serialized,
                         sequence_features={"a": tf.io.VarLenFeature(tf.int64),
                                            "s": tf.io.VarLenFeature(tf.string)})
    a = lists["a"]
    np.testing.assert_array_equal(a.indices.numpy(), [[0, 0], [0, 1], [2, 0]])
    np.testing.assert_array_equal(a.values.numpy(), [1, 2, 3])
    np.testing.assert_array_equal(a.dense_shape.numpy(), [3, 2])
    s = lists["s"]
    assert s.values.numpy().tolist() == [b"x", b"y", b"z", b"w"]
    np.testing.assert_array_equal(s.dense_shape.numpy(), [3, 2])


def test_missing_feature_list_allowed(bench, device):
    # A missing feature list with allow_missing=True parses as an empty [0, 2] tensor.
    serialized = _sequence_example(context={"id": [7]}, feature_lists={"present": [[1.0, 2.0]]})
    with tf.device(device):
        context, lists = bench(
            tf.io.parse_single_sequence_example, serialized,
            context_features={"id": tf.io.FixedLenFeature([], tf.int64)},
            sequence_features={"present": tf.io.FixedLenSequenceFeature([2], tf.float32),
                               "missing": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)},
            example_name="in_memory")
    assert int(context["id"].numpy()) == 7
    np.testing.assert_array_equal(lists["present"].numpy(), [[1.0, 2.0]])
    assert tuple(lists["missing"].shape) == (0, 2)


@pytest.mark.parametrize("steps", [10, 1000])
def test_long_sequence(bench, device, steps):
    # A long sequence of 16-float frames with an int64 label per step.
    rng = np.random.default_rng(0)
    frames = rng.standard_normal((steps, 16)).astype(np.float32)
    labels = rng.integers(0, 10, steps)
    serialized = _sequence_example(
        context={"length": [steps]},
        feature_lists={"frames": [list(map(float, f)) for f in frames],
                       "labels": [[int(v)] for v in labels]})
    with tf.device(device):
        context, lists = bench(
            tf.io.parse_single_sequence_example, serialized,
            context_features={"length": tf.io.FixedLenFeature([], tf.int64)},
            sequence_features={"frames": tf.io.FixedLenSequenceFeature([16], tf.float32),
                               "labels": tf.io.FixedLenSequenceFeature([], tf.int64)})
    assert int(context["length"].numpy()) == steps
    np.testing.assert_array_equal(lists["frames"].numpy(), frames)
    np.testing.assert_array_equal(lists["labels"].numpy(), labels)
