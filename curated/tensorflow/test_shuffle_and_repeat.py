"""tf.data.experimental.shuffle_and_repeat: cases adapted from tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py (ShuffleAndRepeatTest.testCorrectOutput, testReshuffleRepeatEpochs, testSameOrderForSameSeeds, testDifferentOrderForDifferentSeeds, testCountNone, testCountMinusOne, testInfiniteOutputs); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call builds the transformation that dataset.apply receives; each case then applies it and
reads the elements. tf.data runs its pipelines on the host."""
import collections

import pytest
import tensorflow as tf
from _support import values_of

pytestmark = pytest.mark.function("tf.data.experimental.shuffle_and_repeat", decile=40, top20=False,
                                  backward=("returns a tf.data transformation (a function from dataset to dataset), "
                                            "not a tensor: tf.data has no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testCorrectOutput": [
        "test_shuffle_and_repeat_correct_output", "test_shuffle_and_repeat_large"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testReshuffleRepeatEpochs": [
        "test_shuffle_and_repeat_reshuffles_epochs"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testSameOrderForSameSeeds": [
        "test_shuffle_and_repeat_same_seed"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testDifferentOrderForDifferentSeeds": [
        "test_shuffle_and_repeat_different_seeds"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testCountNone": [
        "test_shuffle_and_repeat_infinite"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testCountMinusOne": [
        "test_shuffle_and_repeat_infinite"],
    "tensorflow/python/data/experimental/kernel_tests/shuffle_and_repeat_test.py::ShuffleAndRepeatTest::testInfiniteOutputs": [
        "test_shuffle_and_repeat_infinite"],
}


def _elements(transform, n=20):
    return values_of(tf.data.Dataset.range(n).apply(transform))


@pytest.mark.parametrize("count", [1, 3, 5])
def test_shuffle_and_repeat_correct_output(bench, device, count):
    # testCorrectOutput: every element appears `count` times; each epoch is a permutation.
    with tf.device(device):
        transform = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=5, count=count, seed=5)
        out = _elements(transform)
    assert callable(transform)
    assert len(out) == 20 * count
    assert collections.Counter(out) == collections.Counter(list(range(20)) * count)


def test_shuffle_and_repeat_reshuffles_epochs(bench, device):
    # testReshuffleRepeatEpochs: with a buffer as large as the data, epochs come in different orders.
    with tf.device(device):
        transform = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=20, count=2, seed=7)
        out = _elements(transform)
    first, second = out[:20], out[20:]
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second


def test_shuffle_and_repeat_same_seed(bench, device):
    # testSameOrderForSameSeeds: the same seed gives the same order.
    with tf.device(device):
        t1 = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=10, count=3, seed=10)
        t2 = tf.data.experimental.shuffle_and_repeat(buffer_size=10, count=3, seed=10)
        assert _elements(t1) == _elements(t2)


def test_shuffle_and_repeat_different_seeds(bench, device):
    # testDifferentOrderForDifferentSeeds.
    with tf.device(device):
        t1 = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=10, count=3, seed=10)
        t2 = tf.data.experimental.shuffle_and_repeat(buffer_size=10, count=3, seed=20)
        assert _elements(t1) != _elements(t2)


@pytest.mark.parametrize("count", [None, -1], ids=["none", "minus_one"])
def test_shuffle_and_repeat_infinite(bench, device, count):
    # testCountNone / testCountMinusOne / testInfiniteOutputs: endless repetition, read with take.
    with tf.device(device):
        transform = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=5, count=count, seed=3)
        ds = tf.data.Dataset.range(20).apply(transform)
        out = values_of(ds.take(20 * 5))
    assert int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY)
    assert collections.Counter(out) == collections.Counter(list(range(20)) * 5)


def test_shuffle_and_repeat_large(bench, device):
    # 10000 elements, buffer 1000, two epochs.
    with tf.device(device):
        transform = bench(tf.data.experimental.shuffle_and_repeat, buffer_size=1000, count=2, seed=11)
        out = _elements(transform, n=10000)
    assert sorted(out[:10000]) == list(range(10000))
    assert sorted(out[10000:]) == list(range(10000))
    assert out[:10000] != list(range(10000))
