"""tf.debugging.assert_less: cases adapted from tensorflow/python/kernel_tests/check_ops_test.py (AssertLessTest.test_doesnt_raise_when_less, test_doesnt_raise_when_less_and_broadcastable_shapes, test_doesnt_raise_when_both_empty, test_raises_when_equal, test_raises_when_greater, test_raises_when_less_but_non_broadcastable_shapes, test_returns_none_with_eager); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Eagerly, a passing assert_less returns None; every case times a passing call and then checks that the
failing variant raises InvalidArgumentError (or ValueError for shapes that do not broadcast)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.debugging.assert_less", decile=60, top20=False,
                                  backward=("returns no tensor (eagerly None; in a graph an Assert op, registered "
                                            "NotDifferentiable)"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_doesnt_raise_when_less": [
        "test_assert_less_passes", "test_assert_less_large"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_doesnt_raise_when_less_and_broadcastable_shapes": [
        "test_assert_less_broadcast"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_doesnt_raise_when_both_empty": [
        "test_assert_less_both_empty"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_raises_when_equal": [
        "test_assert_less_passes"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_raises_when_greater": [
        "test_assert_less_passes", "test_assert_less_large"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_raises_when_less_but_non_broadcastable_shapes": [
        "test_assert_less_non_broadcastable_raises"],
    "tensorflow/python/kernel_tests/check_ops_test.py::AssertLessTest::test_returns_none_with_eager": [
        "test_assert_less_passes"],
}


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int8, tf.uint8, tf.int32, tf.int64],
                         ids=lambda d: d.name)
def test_assert_less_passes(bench, device, dtype):
    # test_doesnt_raise_when_less / test_returns_none_with_eager, and test_raises_when_equal /
    # test_raises_when_greater for the same dtype.
    with tf.device(device):
        small = tf.constant([3, 4], dtype=dtype)
        big = tf.constant([4, 5], dtype=dtype)
        result = bench(tf.debugging.assert_less, small, big, message="fail")
    assert result is None
    with tf.device(device):
        with pytest.raises(tf.errors.InvalidArgumentError, match="fail"):
            tf.debugging.assert_less(small, small, message="fail")
        with pytest.raises(tf.errors.InvalidArgumentError, match="fail"):
            tf.debugging.assert_less(big, small, message="fail")


@pytest.mark.parametrize("x_shape,y_shape", [((1,), (2,)), ((3, 1), (1, 4)), ((2, 3), ())],
                         ids=["1_vs_2", "3x1_vs_1x4", "2x3_vs_scalar"])
def test_assert_less_broadcast(bench, device, x_shape, y_shape):
    # test_doesnt_raise_when_less_and_broadcastable_shapes: the comparison broadcasts.
    with tf.device(device):
        x = tf.fill(x_shape, 1.0)
        y = tf.fill(y_shape, 2.0)
        result = bench(tf.debugging.assert_less, x, y)
    assert result is None
    with tf.device(device):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.debugging.assert_less(y, x)


def test_assert_less_non_broadcastable_raises(bench, device):
    # test_raises_when_less_but_non_broadcastable_shapes, checked beside a passing call of equal shapes.
    with tf.device(device):
        small = tf.constant([1, 1, 1])
        big = tf.constant([2, 2, 2])
        result = bench(tf.debugging.assert_less, small, big)
        assert result is None
        with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
            tf.debugging.assert_less(small, tf.constant([3, 3]))


def test_assert_less_both_empty(bench, device):
    # test_doesnt_raise_when_both_empty: nothing to compare, nothing raised.
    with tf.device(device):
        larry = tf.constant([], dtype=tf.float32)
        curly = tf.constant([], dtype=tf.float32)
        result = bench(tf.debugging.assert_less, larry, curly)
    assert result is None


def test_assert_less_large(bench, device):
    # A 1000 x 1000 comparison; one equal element makes it fail.
    x_np = np.random.default_rng(0).uniform(0, 1, (1000, 1000)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        y = tf.constant(x_np + 1)
        result = bench(tf.debugging.assert_less, x, y, summarize=3)
    assert result is None
    x_np[500, 500] = x_np[500, 500] + 1
    with tf.device(device):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.debugging.assert_less(tf.constant(x_np), y)

