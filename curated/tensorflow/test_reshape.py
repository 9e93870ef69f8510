"""tf.reshape: cases adapted from tensorflow/python/kernel_tests/array_ops/reshape_op_test.py (ReshapeTest.testBoolBasic, testFloatBasic, testFloat16Basic, testBfloat16Basic, testDoubleBasic, testInt32Basic, testComplex64Basic, testComplex128Basic, testFloatReshapeThreeDimensions, testFloatUnspecifiedDim*, testZeroDim*, testFloatEmpty, testZeroDimWithUnspecifiedDim, testFloatReshapeGradThreeDimensions); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.reshape", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testBoolBasic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatBasic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloat16Basic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testBfloat16Basic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testDoubleBasic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testInt32Basic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testComplex64Basic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testComplex128Basic": [
        "test_reshape_basic"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatReshapeThreeDimensions": [
        "test_reshape_shapes"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatUnspecifiedDimOnly": [
        "test_reshape_shapes"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatUnspecifiedDimBegin": [
        "test_reshape_shapes"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatUnspecifiedDimEnd": [
        "test_reshape_shapes"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testZeroDimBasic": [
        "test_reshape_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testZeroDimReshapeR1": [
        "test_reshape_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testZeroDimReshapeR3": [
        "test_reshape_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testZeroDimWithUnspecifiedDim": [
        "test_reshape_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatEmpty": [
        "test_reshape_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/reshape_op_test.py::ReshapeTest::testFloatReshapeGradThreeDimensions": [
        "test_reshape_backward"],
}


def _widen(a):
    """bfloat16 widened to float32 so NumPy can compare it exactly."""
    return a.astype(np.float32) if a.dtype == tf.bfloat16.as_numpy_dtype else a


def _check(result, x_np, shape):
    # Reshape moves no values: the result must equal NumPy's reshape exactly.
    expected = x_np.reshape(shape)
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(_widen(result.numpy()), _widen(expected))


@pytest.mark.parametrize("dtype", [tf.bool, tf.float16, tf.bfloat16, tf.float32, tf.float64,
                                   tf.int32, tf.int64, tf.complex64, tf.complex128],
                         ids=lambda d: d.name)
def test_reshape_basic(bench, device, dtype):
    # test*Basic: a [1, 6] row of 1..6 becomes [2, 3] (bool: the values > 3).
    values = np.arange(1.0, 7.0).reshape([1, 6])
    # Convert on the host: older releases refuse a float -> int conversion in tf.constant.
    x_np = values > 3 if dtype == tf.bool else values.astype(dtype.as_numpy_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.reshape, x, [2, 3])
    assert result.dtype == dtype
    _check(result, x_np, [2, 3])


@pytest.mark.parametrize("size,shape", [
    (27, [3, 3, 3]),   # testFloatReshapeThreeDimensions
    (6, [-1]),         # testFloatUnspecifiedDimOnly
    (6, [-1, 2]),      # testFloatUnspecifiedDimBegin
    (6, [3, -1]),      # testFloatUnspecifiedDimEnd
], ids=["3d", "unspecified_only", "unspecified_begin", "unspecified_end"])
def test_reshape_shapes(bench, device, size, shape):
    x_np = np.arange(1.0, size + 1.0, dtype=np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.reshape, x, shape)
    _check(result, x_np, shape)


@pytest.mark.parametrize("in_shape,shape,out_shape", [
    ([0, 6], [0, 2, 3], (0, 2, 3)),          # testZeroDimBasic
    ([0, 6], [-1], (0,)),                    # testZeroDimReshapeR1
    ([0, 6], [-1, 2, 3], (0, 2, 3)),         # testZeroDimReshapeR3
    ([0, 6], [0, -1, 3], (0, 2, 3)),         # testZeroDimWithUnspecifiedDim
    ([0, 0, 0, 0], [1, 2, 3, 0], (1, 2, 3, 0)),  # testFloatEmpty
    ([0, 0, 0, 0], [1, 0, 0, 4], (1, 0, 0, 4)),
    ([0, 0, 0, 0], [1, 2, 0], (1, 2, 0)),
], ids=lambda v: "x".join(map(str, v)))
def test_reshape_zero_size(bench, device, in_shape, shape, out_shape):
    # The expected shapes are spelled out: NumPy refuses to infer -1 next to a
    # zero dimension, where TensorFlow infers it from the non-zero dimensions.
    x_np = np.zeros(in_shape, dtype=np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.reshape, x, shape)
    _check(result, x_np, out_shape)


@pytest.mark.parametrize("shape_dtype", [tf.int32, tf.int64], ids=lambda d: d.name)
def test_reshape_shape_tensor(bench, device, shape_dtype):
    # _testReshape repeats every case with an int64 shape tensor.
    x_np = np.arange(24, dtype=np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        shape = tf.constant([2, -1, 4], dtype=shape_dtype)
        result = bench(tf.reshape, x, shape)
    _check(result, x_np, [2, -1, 4])


def test_reshape_large(bench, device):
    # A larger (4 MiB) input; reshape should stay a metadata-only operation.
    x_np = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.reshape, x, [256, -1, 16])
    _check(result, x_np, [256, -1, 16])


# testFloatReshapeGradThreeDimensions: [2, 3, 4] -> [1, 8, 3]; the gradient is the cotangent reshaped back.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
def test_reshape_backward(backward, device, dtype):
    x_np = np.arange(1.0, 25.0).reshape([2, 3, 4])
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(tf.reshape, x, [1, 8, 3])
    check_gradients(grads, tf.reshape, (x, [1, 8, 3]))
