"""tf.range: cases adapted from tensorflow/python/kernel_tests/array_ops/init_ops_test.py (RangeTest.testBasic, testLimitOnly, testEmpty, testNonInteger, testNegativeDelta, testDType, testMixedDType); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.range", decile=100, top20=True,
                                  backward=("TensorFlow registers Range NotDifferentiable: its inputs are bounds and "
                                            "a step, not values it transforms"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testBasic": [
        "test_range_int", "test_range_large"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testLimitOnly": ["test_range_limit_only"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testEmpty": ["test_range_int"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testNonInteger": [
        "test_range_float", "test_range_large"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testNegativeDelta": [
        "test_range_int", "test_range_float"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testDType": [
        "test_range_dtype_argument", "test_range_tensor_bounds"],
    "tensorflow/python/kernel_tests/array_ops/init_ops_test.py::RangeTest::testMixedDType": ["test_range_mixed_dtype"],
}


def _check(result, expected, dtype):
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    if dtype.is_integer:
        np.testing.assert_array_equal(result.numpy(), expected)
    else:
        # testNonInteger uses np.allclose (rtol 1e-5, atol 1e-8).
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("start,limit,delta", [
    (0, 5, 1), (0, 5, 2), (0, 6, 2), (13, 32, 7), (100, 500, 100),  # testBasic
    (0, 0, 1), (5, 5, 1),                                            # testEmpty
    (5, -1, -1), (-5, -10, -3),                                      # testNegativeDelta
], ids=str)
def test_range_int(bench, device, start, limit, delta):
    # Python ints give an int32 range.
    with tf.device(device):
        result = bench(tf.range, start, limit, delta)
    _check(result, np.arange(start, limit, delta, dtype=np.int32), tf.int32)


@pytest.mark.parametrize("start,limit,delta", [
    (0, 2, 0.5), (0, 5, 2.5), (0, 3, 0.9), (100.0, 500.0, 100.0),  # testNonInteger
    (2.5, 0, -0.5),                                                # testNegativeDelta
], ids=str)
def test_range_float(bench, device, start, limit, delta):
    # Any Python float gives a float32 range.
    with tf.device(device):
        result = bench(tf.range, start, limit, delta)
    _check(result, np.arange(start, limit, delta).astype(np.float32), tf.float32)


def test_range_limit_only(bench, device):
    # testLimitOnly: range(5) counts from 0.
    with tf.device(device):
        result = bench(tf.range, 5)
    _check(result, np.arange(5, dtype=np.int32), tf.int32)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.float32, tf.float64], ids=lambda d: d.name)
def test_range_dtype_argument(bench, device, dtype):
    # testDType: the dtype argument sets the result type.
    with tf.device(device):
        result = bench(tf.range, 3, 40, 3, dtype=dtype)
    _check(result, np.arange(3, 40, 3).astype(dtype.as_numpy_dtype), dtype)


@pytest.mark.parametrize("start_dtype,limit_dtype,result_dtype", [
    (tf.int32, tf.int32, tf.int32),
    (tf.int64, tf.int64, tf.int64),
    (tf.float32, tf.float32, tf.float32),
    (tf.float64, tf.float64, tf.float64),
    (tf.int32, tf.int64, tf.int64),
    (tf.int64, tf.float32, tf.float32),
    (tf.float32, tf.float64, tf.float64),
    (tf.float64, tf.int32, tf.float64),
], ids=lambda d: d.name)
def test_range_tensor_bounds(bench, device, start_dtype, limit_dtype, result_dtype):
    # testDType: tensor bounds; mixed types promote to the wider one.
    with tf.device(device):
        start = tf.constant(2, dtype=start_dtype)
        limit = tf.constant(17, dtype=limit_dtype)
        result = bench(tf.range, start, limit, 3)
    _check(result, np.arange(2, 17, 3).astype(result_dtype.as_numpy_dtype), result_dtype)


def test_range_mixed_dtype(bench, device):
    # testMixedDType (GitHub issue 35710): an int32 limit tensor with dtype=int64.
    with tf.device(device):
        limit = tf.constant(4, dtype=tf.int32)
        result = bench(tf.range, limit, dtype=tf.int64)
    _check(result, np.arange(4, dtype=np.int64), tf.int64)


@pytest.mark.parametrize("dtype", [tf.int64, tf.float32], ids=lambda d: d.name)
def test_range_large(bench, device, dtype):
    # A larger output (2^20 elements) so the timing reflects the kernel.
    with tf.device(device):
        result = bench(tf.range, 0, 1 << 20, 1, dtype=dtype)
    _check(result, np.arange(1 << 20).astype(dtype.as_numpy_dtype), dtype)
