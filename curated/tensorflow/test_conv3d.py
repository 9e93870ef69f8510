"""tf.nn.conv3d: cases adapted from tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py (Conv3DTest.testConv3D1x1x1Filter, testConv3D2x2x2Filter, testConv3DStrides, testConv3D2x2x2FilterStride2, testConv3DStride3, testConv3D2x2x2FilterStride2Same, testKernelSmallerThanStride, testKernelSizeMatchesInputSize, _TestConv3DEmptyTensorOutputShape, testInputGradient*/testFilterGradient*); UPSTREAM_TESTS below maps each to the cases here."""
import math

import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.nn.conv3d", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3D1x1x1Filter": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3D2x2x2Filter": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3DStrides": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3D2x2x2FilterStride2": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3DStride3": ["test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testConv3D2x2x2FilterStride2Same": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testKernelSmallerThanStride": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::testKernelSizeMatchesInputSize": [
        "test_conv3d_values"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::Conv3DTest::_TestConv3DEmptyTensorOutputShape": [
        "test_conv3d_empty_batch"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientValidPaddingStrideOne": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientValidPaddingStrideOne": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientValidPaddingStrideTwo": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientValidPaddingStrideTwo": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientValidPaddingStrideThree": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientValidPaddingStrideThree": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientSamePaddingStrideOne": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientSamePaddingStrideOne": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientSamePaddingStrideTwo": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientSamePaddingStrideTwo": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientSamePaddingStrideThree": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientSamePaddingStrideThree": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientSamePaddingDifferentStrides": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientKernelSizeMatchesInputSize": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientKernelSizeMatchesInputSize": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testInputGradientValidPaddingStrideOneFastPath": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testFilterGradientValidPaddingStrideOneFastPath": ["test_conv3d_backward"],
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testConv3D2x2Depth3ValidBackpropFilterStride1x1Dilation2x1":
        "dilated 3-D convolution: upstream runs it on CUDA GPUs only (no CPU kernel for dilation rates above 1)",
    "tensorflow/python/kernel_tests/nn_ops/conv_ops_3d_test.py::"
    "Conv3DTest::testConv3D2x2Depth3ValidBackpropInputStride1x1Dilation2x1":
        "dilated 3-D convolution: upstream runs it on CUDA GPUs only (no CPU kernel for dilation rates above 1)",
}

# assertAllCloseAccordingToType: 1e-6 by default, 1e-3 for float16, 1e-2 for bfloat16.
_TOL = {tf.float16: 1e-3, tf.bfloat16: 1e-2}
_DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64]


@pytest.fixture(autouse=True)
def _no_tensor_float_32():
    # Upstream runs Conv3DTest under run_all_without_tensor_float_32: TF32 would
    # round float32 products to 10 bits on Ampere+ GPUs. Restore the setting after.
    enabled = tf.config.experimental.tensor_float_32_execution_enabled()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    yield
    tf.config.experimental.enable_tensor_float_32_execution(enabled)


def _ramp(shape):
    """Upstream's inputs: 1/N, 2/N, ..., 1 (small values keep float16 from overflowing)."""
    size = int(np.prod(shape))
    return (np.arange(1, size + 1, dtype=np.float64) / size).reshape(shape)


def _padding(in_size, k, stride, padding):
    """Output size and leading pad of one spatial dimension, TensorFlow's SAME/VALID rule."""
    if padding == "VALID":
        return math.ceil((in_size - k + 1) / stride), 0
    out = math.ceil(in_size / stride)
    total = max((out - 1) * stride + k - in_size, 0)
    return out, total // 2


def _windows(x_shape, w_shape, strides, padding):
    """Per spatial dim: (output size, pad before, pad after); pads make every window in-bounds."""
    dims = []
    for i in range(3):
        out, before = _padding(x_shape[1 + i], w_shape[i], strides[i], padding)
        after = max((out - 1) * strides[i] + w_shape[i] - x_shape[1 + i] - before, 0)
        dims.append((out, before, after))
    return dims


def _taps(w_shape, strides, dims):
    """Yield (kernel index, slices into the padded input) for every kernel tap."""
    for kd in range(w_shape[0]):
        for kh in range(w_shape[1]):
            for kw in range(w_shape[2]):
                starts = (kd, kh, kw)
                slices = tuple(slice(starts[i], starts[i] + strides[i] * (dims[i][0] - 1) + 1, strides[i])
                               for i in range(3))
                yield (kd, kh, kw), (slice(None),) + slices + (slice(None),)


def _conv3d_ref(x, w, strides, padding):
    """NDHWC cross-correlation in float64: a sum over kernel taps of strided slices."""
    dims = _windows(x.shape, w.shape, strides, padding)
    xp = np.pad(x, [(0, 0)] + [(b, a) for _, b, a in dims] + [(0, 0)])
    out = np.zeros((x.shape[0],) + tuple(d[0] for d in dims) + (w.shape[4],))
    for k, sl in _taps(w.shape, strides, dims):
        out += np.einsum("ndhwc,co->ndhwo", xp[sl], w[k])
    return out


def _host(t):
    return t.numpy().astype(np.float64)


# (input NDHWC, filter DHWIO, strides (d, h, w), padding), from upstream's named tests.
_CONFIGS = {
    "1x1x1_filter": ([1, 2, 3, 1, 3], [1, 1, 1, 3, 3], (1, 1, 1), "VALID"),
    "2x2x2_filter": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], (1, 1, 1), "VALID"),
    "strides_2_3_1_same": ([1, 5, 8, 7, 1], [1, 2, 3, 1, 1], (2, 3, 1), "SAME"),
    "2x2x2_stride2": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], (2, 2, 2), "VALID"),
    "stride3": ([1, 6, 7, 8, 2], [3, 2, 1, 2, 3], (3, 3, 3), "VALID"),
    "2x2x2_stride2_same": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], (2, 2, 2), "SAME"),
    "kernel_smaller_than_stride_same": ([1, 7, 7, 7, 1], [2, 2, 2, 1, 1], (3, 3, 3), "SAME"),
    "kernel_smaller_than_stride_valid": ([1, 7, 7, 7, 1], [2, 2, 2, 1, 1], (3, 3, 3), "VALID"),
    "kernel_matches_input": ([1, 2, 1, 2, 1], [2, 1, 2, 1, 2], (1, 1, 1), "VALID"),
}


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("config", list(_CONFIGS))
def test_conv3d_values(bench, device, dtype, config):
    x_shape, w_shape, strides, padding = _CONFIGS[config]
    with tf.device(device):
        x = tf.constant(_ramp(x_shape), dtype=dtype)
        w = tf.constant(_ramp(w_shape), dtype=dtype)
        result = bench(tf.nn.conv3d, x, w, strides=[1, *strides, 1], padding=padding)
    # Reference from the inputs as rounded to `dtype`, computed in float64.
    expected = _conv3d_ref(_host(x), _host(w), strides, padding)
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    tol = _TOL.get(dtype, 1e-6)
    np.testing.assert_allclose(_host(result), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_conv3d_larger(bench, device, dtype):
    # A larger layer-sized case: batch 2, 16^3 volume, 3^3 kernel, 8 -> 16 channels.
    rng = np.random.default_rng(0)
    x_np = rng.uniform(-1, 1, (2, 16, 16, 16, 8))
    w_np = rng.uniform(-1, 1, (3, 3, 3, 8, 16))
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        w = tf.constant(w_np, dtype=dtype)
        result = bench(tf.nn.conv3d, x, w, strides=[1, 1, 1, 1, 1], padding="SAME")
    expected = _conv3d_ref(_host(x), _host(w), (1, 1, 1), "SAME")
    # Sums of 216 products of size ~1: 1e-6 is relative to the output scale (~5).
    tol = 1e-5 if dtype == tf.float32 else 1e-10
    np.testing.assert_allclose(_host(result), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
def test_conv3d_empty_batch(bench, device, dtype):
    # _TestConv3DEmptyTensorOutputShape: a zero batch gives a zero-batch output
    # (smaller volume than upstream's 112^3 x 32, same point).
    with tf.device(device):
        x = tf.ones([0, 8, 8, 8, 4], dtype=dtype)
        w = tf.ones([3, 3, 3, 4, 8], dtype=dtype)
        result = bench(tf.nn.conv3d, x, w, strides=[1, 1, 1, 1, 1], padding="SAME")
    assert tuple(result.shape) == (0, 8, 8, 8, 8)
    assert result.numpy().size == 0


def _conv3d_with(strides, padding):
    return lambda x, w: tf.nn.conv3d(x, w, strides=[1, *strides, 1], padding=padding)


# testInputGradient* / testFilterGradient*: the gradients with respect to the input and the filter together, VALID
# and SAME, equal, larger and different strides, and a kernel as large as the input; upstream's inputs are ramps
# (_ramp) and its compute_gradient tolerances 1e-8 (float64), 5e-3 (float32), 1e-3 (float16 against float32).
_GRAD_CONFIGS = {
    "valid_stride1": ([2, 3, 5, 4, 2], [3, 3, 3, 2, 3], (1, 1, 1), "VALID"),
    "same_stride2": ([2, 6, 3, 4, 2], [3, 3, 3, 2, 3], (2, 2, 2), "SAME"),
    "same_strides_2_3_1": ([1, 5, 8, 7, 2], [1, 2, 3, 2, 3], (2, 3, 1), "SAME"),
    "kernel_matches_input": ([2, 5, 4, 3, 2], [5, 4, 3, 2, 3], (1, 1, 1), "VALID"),
}


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16, tf.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("config", list(_GRAD_CONFIGS))
def test_conv3d_backward(backward, device, dtype, config):
    x_shape, w_shape, strides, padding = _GRAD_CONFIGS[config]
    with tf.device(device):
        x = tf.constant(_ramp(x_shape), dtype=dtype)
        w = tf.constant(_ramp(w_shape), dtype=dtype)
        grads = backward(_conv3d_with(strides, padding), x, w)
    check_gradients(grads, _conv3d_with(strides, padding), (x, w))
