"""tf.nn.conv2d_transpose: cases adapted from tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py (Conv2DTransposeTest.testConv2DTransposeSingleStride, testConv2DTransposeSame, testConv2DTransposeValid, their NCHW variants, testGradient, testConv2DTransposeShapeInference); UPSTREAM_TESTS below maps each to the cases here.

Upstream counts, for an all-ones input and filter, how many products land on each output cell; here a
float64 NumPy reference (a scatter of every input pixel through the filter, cropped by the forward
convolution's padding) checks those cases and random-valued ones."""
import math

import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.nn.conv2d_transpose", decile=80, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeSingleStride": [
        "test_conv2d_transpose_ones", "test_conv2d_transpose_random"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeSame": [
        "test_conv2d_transpose_ones", "test_conv2d_transpose_random", "test_conv2d_transpose_larger"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeValid": ["test_conv2d_transpose_ones", "test_conv2d_transpose_random"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::Conv2DTransposeTest::testGradient": [
        "test_conv2d_transpose_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeSingleStrideNCHW": ["test_conv2d_transpose_nchw"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeSameNCHW": ["test_conv2d_transpose_nchw"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeValidNCHW": ["test_conv2d_transpose_nchw"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeShapeInference": ["test_conv2d_transpose_shape_inference"],
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeInvalidOutputShape": "tests the error for an invalid output shape",
    "tensorflow/python/kernel_tests/nn_ops/conv2d_transpose_test.py::"
    "Conv2DTransposeTest::testConv2DTransposeLargeOutputShape":
        "tests the error for an output shape too large to allocate",
}


@pytest.fixture(autouse=True)
def _no_tensor_float_32():
    # Exact float32 products on Ampere+ GPUs, as upstream's convolution tests run; restored after.
    enabled = tf.config.experimental.tensor_float_32_execution_enabled()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    yield
    tf.config.experimental.enable_tensor_float_32_execution(enabled)


def _pad_before(out_size, in_size, k, stride, padding):
    """Leading padding of the forward convolution from the output (here: the result) to the input."""
    if padding == "VALID":
        return 0
    total = max((in_size - 1) * stride + k - out_size, 0)
    return total // 2


def _conv2d_transpose_ref(x, f, y_shape, stride, padding):
    """NHWC x, filter [kh, kw, out_c, in_c]: scatter every input pixel, then crop to y_shape."""
    n, h, w, _ = x.shape
    kh, kw = f.shape[:2]
    full = np.zeros((n, (h - 1) * stride + kh, (w - 1) * stride + kw, f.shape[2]))
    for i in range(kh):
        for j in range(kw):
            full[:, i:i + (h - 1) * stride + 1:stride, j:j + (w - 1) * stride + 1:stride, :] += \
                np.einsum("nhwc,oc->nhwo", x, f[i, j])
    top = _pad_before(y_shape[1], h, kh, stride, padding)
    left = _pad_before(y_shape[2], w, kw, stride, padding)
    out = np.zeros(y_shape)
    rows = min(y_shape[1], full.shape[1] - top)
    cols = min(y_shape[2], full.shape[2] - left)
    out[:, :rows, :cols, :] = full[:, top:top + rows, left:left + cols, :]
    return out


# (y_shape, stride, padding) over x [2, 6, 4, 3] and filter [3, 3, 2, 3], as upstream.
_CONFIGS = {
    "single_stride_same": ([2, 6, 4, 2], 1, "SAME"),
    "stride2_same": ([2, 12, 8, 2], 2, "SAME"),
    "stride2_valid": ([2, 13, 9, 2], 2, "VALID"),
}


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("config", list(_CONFIGS))
def test_conv2d_transpose_ones(bench, device, dtype, config):
    # testConv2DTransposeSingleStride / Same / Valid: all-ones input and filter.
    y_shape, stride, padding = _CONFIGS[config]
    with tf.device(device):
        x = tf.ones([2, 6, 4, 3], dtype=dtype)
        f = tf.ones([3, 3, 2, 3], dtype=dtype)
        y = bench(tf.nn.conv2d_transpose, x, f, y_shape, strides=[1, stride, stride, 1], padding=padding)
    expected = _conv2d_transpose_ref(np.ones([2, 6, 4, 3]), np.ones([3, 3, 2, 3]), y_shape, stride, padding)
    assert y.dtype == dtype
    assert y.shape.as_list() == y_shape
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)
    if config == "single_stride_same":  # upstream's count: 12 at the corners, 18 on borders, 27 inside
        assert y.numpy()[0, 0, 0, 0] == 12 and y.numpy()[0, 0, 1, 0] == 18 and y.numpy()[0, 1, 1, 0] == 27


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("config", list(_CONFIGS))
def test_conv2d_transpose_random(bench, device, dtype, config):
    # Random values in [0, 1) (upstream's testGradient inputs) for each configuration and dtype.
    y_shape, stride, padding = _CONFIGS[config]
    rng = np.random.RandomState(1)
    x_np = rng.random_sample([2, 6, 4, 3])
    f_np = rng.random_sample([3, 3, 2, 3])
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        f = tf.constant(f_np, dtype=dtype)
        y = bench(tf.nn.conv2d_transpose, x, f, y_shape, strides=[1, stride, stride, 1], padding=padding)
    # Reference from the inputs as rounded to `dtype`; assertAllCloseAccordingToType's tolerances.
    expected = _conv2d_transpose_ref(tf.cast(x, tf.float64).numpy(), tf.cast(f, tf.float64).numpy(),
                                     y_shape, stride, padding)
    tol = {tf.float16: 1e-3, tf.bfloat16: 1e-2}.get(dtype, 1e-6)
    assert y.dtype == dtype
    np.testing.assert_allclose(tf.cast(y, tf.float64).numpy(), expected, rtol=tol, atol=tol * 10)


def test_conv2d_transpose_nchw(bench, device):
    # testConv2DTransposeSameNCHW: NCHW is only implemented for CUDA GPUs.
    if "GPU" not in device.upper():
        pytest.skip("conv2d_transpose with data_format NCHW has only a CUDA kernel")
    with tf.device(device):
        x = tf.ones([2, 3, 6, 4])
        f = tf.ones([3, 3, 2, 3])
        y = bench(tf.nn.conv2d_transpose, x, f, [2, 2, 12, 8], strides=[1, 1, 2, 2], padding="SAME",
                  data_format="NCHW")
    expected = _conv2d_transpose_ref(np.ones([2, 6, 4, 3]), np.ones([3, 3, 2, 3]), [2, 12, 8, 2], 2, "SAME")
    np.testing.assert_allclose(y.numpy(), expected.transpose(0, 3, 1, 2), rtol=1e-6)


def _stride2_same(x, f):
    return tf.nn.conv2d_transpose(x, f, [2, 12, 8, 2], strides=[1, 2, 2, 1], padding="SAME")


# testGradient: stride 2, SAME, random [0, 1) input and filter; the gradients with respect to both (upstream bounds
# compute_gradient_error by 6e-4 in float32).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
def test_conv2d_transpose_backward(backward, device, dtype):
    rng = np.random.RandomState(1)
    with tf.device(device):
        x = tf.constant(rng.random_sample([2, 6, 4, 3]), dtype=dtype)
        f = tf.constant(rng.random_sample([3, 3, 2, 3]), dtype=dtype)
        grads = backward(_stride2_same, x, f)
    check_gradients(grads, _stride2_same, (x, f))


def test_conv2d_transpose_larger(bench, device):
    # A decoder-sized layer: [4, 32, 32, 16] -> [4, 64, 64, 8] with a 4 x 4 filter, stride 2.
    rng = np.random.RandomState(2)
    x_np = rng.uniform(-1, 1, [4, 32, 32, 16])
    f_np = rng.uniform(-1, 1, [4, 4, 8, 16])
    with tf.device(device):
        x = tf.constant(x_np, dtype=tf.float32)
        f = tf.constant(f_np, dtype=tf.float32)
        y = bench(tf.nn.conv2d_transpose, x, f, [4, 64, 64, 8], strides=2, padding="SAME")
    expected = _conv2d_transpose_ref(x_np, f_np, [4, 64, 64, 8], 2, "SAME")
    assert y.shape.as_list() == [4, 64, 64, 8]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-4)


def test_conv2d_transpose_shape_inference(bench, device):
    # testConv2DTransposeShapeInference: output_shape given as a tensor built from the input's shape.
    with tf.device(device):
        x = tf.random.normal([3, 10, 5, 1], seed=1)
        f = tf.random.truncated_normal([3, 3, 5, 1], stddev=0.01, seed=2)
        out_shape = tf.stack([tf.shape(x)[0], 10, 5, 5])
        y = bench(tf.nn.conv2d_transpose, x, f, out_shape, strides=[1, 1, 1, 1], padding="SAME")
    assert y.shape.as_list() == [3, 10, 5, 5]
    expected = _conv2d_transpose_ref(x.numpy().astype(np.float64), f.numpy().astype(np.float64),
                                     [3, 10, 5, 5], 1, "SAME")
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)
