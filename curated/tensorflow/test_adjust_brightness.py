"""tf.image.adjust_brightness: cases adapted from tensorflow/python/ops/image_ops_test.py (AdjustBrightnessTest.testPositiveDeltaUint8, testPositiveDeltaFloat32, testPositiveDeltaFloat64, testPositiveDeltaFloat16, testNegativeDelta); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.image.adjust_brightness", decile=10, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/image_ops_test.py::AdjustBrightnessTest::testPositiveDeltaUint8": [
        "test_adjust_brightness_uint8", "test_adjust_brightness_integer_random"],
    "tensorflow/python/ops/image_ops_test.py::AdjustBrightnessTest::testPositiveDeltaFloat32": [
        "test_adjust_brightness_float", "test_adjust_brightness_batch_tensor_delta",
        "test_adjust_brightness_backward"],
    "tensorflow/python/ops/image_ops_test.py::AdjustBrightnessTest::testPositiveDeltaFloat64": [
        "test_adjust_brightness_float", "test_adjust_brightness_batch_tensor_delta"],
    "tensorflow/python/ops/image_ops_test.py::AdjustBrightnessTest::testPositiveDeltaFloat16": [
        "test_adjust_brightness_float"],
    "tensorflow/python/ops/image_ops_test.py::AdjustBrightnessTest::testNegativeDelta": [
        "test_adjust_brightness_uint8", "test_adjust_brightness_batch_tensor_delta"],
}

# Upstream's 2 x 2 x 3 image, and the same pixels shifted by +10 (no clipping for float images).
_X = [0, 5, 13, 54, 135, 226, 37, 8, 234, 90, 255, 1]
_Y_PLUS10 = [10, 15, 23, 64, 145, 236, 47, 18, 244, 100, 265, 11]
_TOL = {tf.float16: 1e-3, tf.float32: 1e-6, tf.float64: 1e-6}


@pytest.mark.parametrize("delta,expected", [
    (10.0 / 255.0, [10, 15, 23, 64, 145, 236, 47, 18, 244, 100, 255, 11]),   # testPositiveDeltaUint8
    (-10.0 / 255.0, [0, 0, 3, 44, 125, 216, 27, 0, 224, 80, 245, 0]),         # testNegativeDelta
], ids=["positive", "negative"])
def test_adjust_brightness_uint8(bench, device, delta, expected):
    # Integer images are shifted in [0, 1] floats and saturate back to the integer range.
    with tf.device(device):
        x = tf.constant(np.array(_X, np.uint8).reshape(2, 2, 3))
        y = bench(tf.image.adjust_brightness, x, delta)
    assert y.dtype == tf.uint8
    np.testing.assert_array_equal(y.numpy(), np.array(expected, np.uint8).reshape(2, 2, 3))


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
def test_adjust_brightness_float(bench, device, dtype):
    # testPositiveDeltaFloat16/32/64: float images get delta added, without clipping.
    np_dtype = dtype.as_numpy_dtype
    x_np = np.array(_X, np_dtype).reshape(2, 2, 3) / np_dtype(255.0)
    with tf.device(device):
        x = tf.constant(x_np)
        y = bench(tf.image.adjust_brightness, x, 10.0 / 255.0)
    assert y.dtype == dtype
    expected = np.array(_Y_PLUS10, np.float64).reshape(2, 2, 3) / 255.0
    np.testing.assert_allclose(y.numpy().astype(np.float64), expected, rtol=_TOL[dtype], atol=_TOL[dtype])


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("delta", [-0.5, 0.0, 0.25], ids=str)
def test_adjust_brightness_batch_tensor_delta(bench, device, dtype, delta):
    # A batch of RGB images and delta given as a tensor: x + delta elementwise.
    x_np = np.random.default_rng(0).uniform(0, 1, (8, 32, 32, 3)).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        d = tf.constant(delta, dtype=dtype)
        y = bench(tf.image.adjust_brightness, x, d)
    assert y.dtype == dtype
    assert tuple(y.shape) == x_np.shape
    np.testing.assert_allclose(y.numpy(), x_np + delta, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [tf.uint8, tf.int8, tf.int16], ids=lambda d: d.name)
def test_adjust_brightness_integer_random(bench, device, dtype):
    # Larger integer images: the result is the input shifted by delta * max, saturated, within one
    # unit of rounding (the conversions scale by max + 0.5 and truncate).
    info = np.iinfo(dtype.as_numpy_dtype)
    x_np = np.random.default_rng(1).integers(0, info.max, (4, 64, 64, 3), dtype=dtype.as_numpy_dtype)
    delta = 0.1
    with tf.device(device):
        x = tf.constant(x_np)
        y = bench(tf.image.adjust_brightness, x, delta)
    assert y.dtype == dtype
    expected = np.clip(x_np.astype(np.float64) + delta * info.max, 0, info.max)
    np.testing.assert_allclose(y.numpy().astype(np.float64), expected, rtol=0, atol=1 + 1e-7 * info.max)


# Upstream's tests compare values only; training differentiates a float image's brightness shift with respect to
# the image (the cotangent) and to a tensor delta (the cotangent summed over the batch of images).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
def test_adjust_brightness_backward(backward, device, dtype):
    x_np = np.random.default_rng(2).uniform(0, 1, (2, 4, 4, 3))
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        delta = tf.constant(0.125, dtype=dtype)
        grads = backward(tf.image.adjust_brightness, x, delta)
    assert [tuple(g.shape) for g in grads] == [(2, 4, 4, 3), ()]
    check_gradients(grads, tf.image.adjust_brightness, (x, delta))
