"""tf.compat.v1.metrics.accuracy: cases adapted from tensorflow/python/kernel_tests/metrics_test.py (AccuracyTest.testVars, testMetricsCollection, testUpdatesCollection, testValueTensorIsIdempotent, testMultipleUpdates, testEffectivelyEquivalentSizes, testEffectivelyEquivalentSizesWithScalarWeight, testEffectivelyEquivalentSizesWithStaticShapedWeight, testMultipleUpdatesWithWeightedValues); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The metric is a TF1 graph construct (it raises under eager execution), so every case builds a graph and
runs it in a Session. The timed call builds the metric's variables and ops; bench calls it several times
in the same graph, so the checks use the first call's (accuracy, update_op) pair."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.metrics.accuracy", decile=80, top20=False,
                                  backward=("counts equal labels and predictions (Equal, registered "
                                            "NotDifferentiable) into local variables (AssignAddVariableOp, no "
                                            "gradient): nothing to differentiate"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testVars": [
        "test_accuracy_variables_and_collections"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testMetricsCollection": [
        "test_accuracy_variables_and_collections"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testUpdatesCollection": [
        "test_accuracy_variables_and_collections"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testValueTensorIsIdempotent": [
        "test_accuracy_idempotent_value"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testMultipleUpdates": [
        "test_accuracy_multiple_updates", "test_accuracy_values"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testEffectivelyEquivalentSizes": [
        "test_accuracy_equivalent_sizes"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testEffectivelyEquivalentSizesWithScalarWeight": [
        "test_accuracy_equivalent_sizes"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testEffectivelyEquivalentSizesWithStaticShapedWeight": [
        "test_accuracy_equivalent_sizes"],
    "tensorflow/python/kernel_tests/metrics_test.py::AccuracyTest::testMultipleUpdatesWithWeightedValues": [
        "test_accuracy_multiple_updates"],
}


def _session_run(graph, fetches, steps=1, feeds=None):
    """Initialise the local (metric) variables, then per step run each of `fetches` in turn (the update
    op before the value, as upstream evaluates them); return every step's results."""
    out = []
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(tf.compat.v1.local_variables_initializer())
        for i in range(steps):
            feed = feeds[i] if feeds else None
            out.append([sess.run(f, feed_dict=feed) for f in fetches])
    return out


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.float32, tf.float64], ids=lambda d: d.name)
def test_accuracy_values(bench, device, dtype):
    # Labels and predictions from 3 classes: accuracy is the fraction of equal entries.
    rng = np.random.default_rng(0)
    labels_np = rng.integers(0, 3, (100, 3))
    preds_np = rng.integers(0, 3, (100, 3))
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        labels = tf.constant(labels_np, dtype=dtype)
        predictions = tf.constant(preds_np, dtype=dtype)
        accuracy, update_op = bench(tf.compat.v1.metrics.accuracy, labels, predictions)
    assert accuracy.dtype == tf.float32 and update_op.dtype == tf.float32
    assert accuracy.shape.rank == 0
    ((updated, value),) = _session_run(graph, [update_op, accuracy])
    expected = np.mean(labels_np == preds_np)
    np.testing.assert_allclose(updated, expected, rtol=1e-6)
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_accuracy_idempotent_value(bench, device):
    # testValueTensorIsIdempotent: after updates, reading the value does not change it.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        predictions = tf.random.uniform((10, 3), maxval=3, dtype=tf.int64, seed=1)
        labels = tf.random.uniform((10, 3), maxval=3, dtype=tf.int64, seed=2)
        accuracy, update_op = bench(tf.compat.v1.metrics.accuracy, labels, predictions)
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(tf.compat.v1.local_variables_initializer())
        for _ in range(10):
            sess.run(update_op)
        first = sess.run(accuracy)
        again = [sess.run(accuracy) for _ in range(10)]
    assert 0.0 <= first <= 1.0
    assert again == [first] * 10


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_accuracy_multiple_updates(bench, device, weighted):
    # testMultipleUpdates(WithWeightedValues): four single-entry batches fed one after another; the
    # upstream test feeds them from queues, here through placeholders.
    preds_steps, labels_steps, weight_steps = [0, 1, 2, 1], [0, 1, 1, 2], [1, 1, 0, 0]
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        predictions = tf.compat.v1.placeholder(tf.float32, shape=(1, 1))
        labels = tf.compat.v1.placeholder(tf.float32, shape=(1, 1))
        weights = tf.compat.v1.placeholder(tf.int64, shape=(1, 1)) if weighted else None
        accuracy, update_op = bench(tf.compat.v1.metrics.accuracy, labels, predictions, weights)
    feeds = []
    for p, l, w in zip(preds_steps, labels_steps, weight_steps):
        feed = {predictions: [[p]], labels: [[l]]}
        if weighted:
            feed[weights] = [[w]]
        feeds.append(feed)
    results = _session_run(graph, [update_op, accuracy], steps=4, feeds=feeds)
    expected = 1.0 if weighted else 0.5
    assert results[-1][0] == expected
    assert results[-1][1] == expected


@pytest.mark.parametrize("weights", [None, 2.0, "static"], ids=["no_weights", "scalar_weight", "static_weight"])
def test_accuracy_equivalent_sizes(bench, device, weights):
    # testEffectivelyEquivalentSizes(WithScalarWeight / WithStaticShapedWeight): [n, 1] and [n]
    # shapes are squeezed to match, and [n, 1] weights are flattened rather than broadcast.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        if weights == "static":
            predictions = tf.constant([1, 1, 1])
            labels = tf.constant([[1], [0], [0]])
            w = tf.constant([[100], [1], [1]])
            expected = 100.0 / 102.0
        else:
            predictions = tf.ones((40, 1))
            labels = tf.ones((40,))
            w = weights
            expected = 1.0
        accuracy, update_op = bench(tf.compat.v1.metrics.accuracy, labels, predictions, w)
    ((updated, value),) = _session_run(graph, [update_op, accuracy])
    np.testing.assert_allclose(updated, expected, rtol=1e-6)
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_accuracy_variables_and_collections(bench, device):
    # testVars / testMetricsCollection / testUpdatesCollection: the metric's local variables and
    # the collections its tensors are added to.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        ones = tf.ones((10, 1))
        accuracy, update_op = bench(tf.compat.v1.metrics.accuracy, labels=ones, predictions=ones,
                                    metrics_collections=["__metrics__"], updates_collections=["__updates__"],
                                    name="my_accuracy")
        metric_vars = {v.name for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.METRIC_VARIABLES)}
        local_vars = {v.name for v in tf.compat.v1.local_variables()}
        metrics = tf.compat.v1.get_collection("__metrics__")
        updates = tf.compat.v1.get_collection("__updates__")
    assert {"my_accuracy/count:0", "my_accuracy/total:0"} <= metric_vars
    assert {"my_accuracy/count:0", "my_accuracy/total:0"} <= local_vars
    assert metrics[0] is accuracy
    assert updates[0] is update_op
    ((updated, value),) = _session_run(graph, [update_op, accuracy])
    assert updated == 1.0 and value == 1.0
