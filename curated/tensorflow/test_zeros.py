"""tf.zeros: cases adapted from tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py (ZerosTest.testConst, testScalar, testDynamicSizes, testDtype); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.zeros", decile=100, top20=True,
                                  backward="no floating input: a shape (integers) and a dtype fix the output")

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ZerosTest::testConst": [
        "test_zeros_const", "test_zeros_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ZerosTest::testScalar": ["test_zeros_scalar"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ZerosTest::testDynamicSizes": [
        "test_zeros_dynamic_sizes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ZerosTest::testDtype": ["test_zeros_dtype"],
}


def test_zeros_const(bench, device):
    # testConst: [2, 3] float32 zeros by default.
    with tf.device(device):
        z = bench(tf.zeros, [2, 3])
    assert z.dtype == tf.float32
    assert z.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("shape", [[], (), "empty_int32_tensor"], ids=["list", "tuple", "tensor"])
def test_zeros_scalar(bench, device, shape):
    # testScalar: an empty shape gives a scalar.
    with tf.device(device):
        s = tf.constant([], dtype=tf.int32) if shape == "empty_int32_tensor" else shape
        z = bench(tf.zeros, s)
    assert z.shape.as_list() == []
    assert float(z.numpy()) == 0.0


def test_zeros_dynamic_sizes(bench, device):
    # testDynamicSizes: the shape taken from another tensor.
    with tf.device(device):
        d = tf.fill([2, 3], 12.0)
        z = bench(tf.zeros, tf.shape(d))
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.uint8, tf.int16,
                                   tf.int32, tf.int64, tf.complex64, tf.complex128, tf.bool, tf.string],
                         ids=lambda d: d.name)
def test_zeros_dtype(bench, device, dtype):
    # testDtype: explicit dtypes (strings give empty strings).
    with tf.device("/device:CPU:0" if dtype == tf.string else device):
        z = bench(tf.zeros, [2, 3], dtype=dtype)
    assert z.dtype == dtype
    assert z.shape.as_list() == [2, 3]
    value = z.numpy()
    if dtype == tf.string:
        assert value.tolist() == [[b""] * 3] * 2
    else:
        assert not np.any(value.astype(np.float32) if dtype == tf.bfloat16 else value)


@pytest.mark.parametrize("shape", [[0], [3, 0, 2], [1024, 1024], [8, 16, 16, 64]], ids=str)
def test_zeros_shapes(bench, device, shape):
    with tf.device(device):
        z = bench(tf.zeros, shape, dtype=tf.float32)
    assert z.shape.as_list() == shape
    np.testing.assert_array_equal(z.numpy(), np.zeros(shape, np.float32))
