"""tf.space_to_batch: cases adapted from tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py (SpaceToBatchTest.testSmallInput2x2, testSmallInput2x2Pad1x0, testDepthInput2x2, testLargerInput2x2, testBatchInput2x2, testLargerInputBatch2x2; SpaceToBatchNDTest's 1-D and 3-D block shapes; SpaceToBatchGradientTest and SpaceToBatchNDGradientTest), against a NumPy reference (pad, split each spatial dimension by its block, move the block offsets to the batch); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.space_to_batch", decile=10, top20=False,
                                  paper_label="tf.nn.space_to_batch")

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchTest::testSmallInput2x2": [
        "test_space_to_batch", "test_space_to_batch_upstream_values"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchTest::testSmallInput2x2Pad1x0": ["test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchTest::testDepthInput2x2": [
        "test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchTest::testLargerInput2x2": [
        "test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchTest::testBatchInput2x2": [
        "test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchTest::testLargerInputBatch2x2": ["test_space_to_batch", "test_space_to_batch_large"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDTest::testZeroBlockDimsZeroRemainingDims":
        "no blocked dimension: the result is the input itself, no kernel work to measure",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDTest::testZeroBlockDimsOneRemainingDim":
        "no blocked dimension: the result is the input itself, no kernel work to measure",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDTest::testZeroBlockDimsTwoRemainingDims":
        "no blocked dimension: the result is the input itself, no kernel work to measure",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDTest::testOneBlockDimZeroRemainingDims": ["test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDTest::testOneBlockDimOneRemainingDim": ["test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchNDTest::testDirect": [
        "test_space_to_batch"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchSpaceToDepth::testSpaceToDepthTranspose": ["test_space_to_batch_large"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testInputWrongDimMissingBatch":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSize0":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSizeOne":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSizeLarger":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSizeNotDivisibleWidth":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSizeNotDivisibleHeight":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testBlockSizeNotDivisibleBoth":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchErrorHandlingTest::testUnknownShape":
        "graph placeholders of unknown shape: shape inference only, no kernel runs",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testBlockSize0":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testBlockSizeNegative":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testNegativePadding":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testBlockSizeNotDivisible":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testBlockDimsMismatch":
        "tests the error an invalid block size, padding or input rank raises",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDErrorHandlingTest::testUnknown":
        "graph placeholders of unknown shape: shape inference only, no kernel runs",
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchGradientTest::testSmall": [
        "test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchGradientTest::testSmall2": [
        "test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchGradientTest::testSmallPad1x1": ["test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchNDGradientTest::testSmall": [
        "test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::SpaceToBatchNDGradientTest::testSmall2": [
        "test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDGradientTest::testSmallPad1": ["test_space_to_batch_backward"],
    "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py::"
    "SpaceToBatchNDGradientTest::testSmallPadThreeBlockDims": ["test_space_to_batch_backward"],
}


def _space_to_batch_ref(x, block_shape, paddings):
    """x [batch, *spatial(M), *rest]; output [prod(block) * batch, *spatial / block, *rest]."""
    m = len(block_shape)
    pad = [(0, 0)] + [tuple(p) for p in paddings] + [(0, 0)] * (x.ndim - 1 - m)
    padded = np.pad(x, pad)
    batch = padded.shape[0]
    spatial = padded.shape[1:1 + m]
    rest = padded.shape[1 + m:]
    split = [batch]
    for s, b in zip(spatial, block_shape):
        split += [s // b, b]
    r = padded.reshape(split + list(rest))
    block_axes = [2 + 2 * i for i in range(m)]
    outer_axes = [1 + 2 * i for i in range(m)]
    rest_axes = list(range(1 + 2 * m, r.ndim))
    r = r.transpose(block_axes + [0] + outer_axes + rest_axes)
    return r.reshape([int(np.prod(block_shape)) * batch] + [s // b for s, b in zip(spatial, block_shape)]
                     + list(rest))


_CASES = {
    # name: (input shape, block_shape, paddings)
    "small_input": ((1, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]),           # testSmallInput
    "input_with_padding": ((1, 2, 2, 1), [2, 2], [[1, 1], [1, 1]]),     # testInputWithPadding
    "multi_channels": ((1, 2, 2, 3), [2, 2], [[0, 0], [0, 0]]),         # testInputMultiChannels
    "small_with_batch": ((2, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),       # testSmallInputWithBatch
    "uneven_padding": ((3, 5, 3, 2), [3, 2], [[1, 0], [0, 1]]),
    "1d_block": ((2, 6, 3), [3], [[0, 0]]),                             # SpaceToBatchND 1-D
    "3d_block": ((1, 4, 4, 6, 2), [2, 2, 3], [[0, 0], [0, 0], [0, 0]]),  # SpaceToBatchND 3-D
}


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64], ids=lambda d: d.name)
@pytest.mark.parametrize("case", list(_CASES))
def test_space_to_batch(bench, device, dtype, case):
    shape, block_shape, paddings = _CASES[case]
    x_np = np.arange(1, int(np.prod(shape)) + 1).reshape(shape).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.space_to_batch, x, block_shape, paddings)
    expected = _space_to_batch_ref(x_np, block_shape, paddings)
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)


def test_space_to_batch_upstream_values(bench, device):
    # testSmallInput's exact values: [[[[1], [2]], [[3], [4]]]] -> [[[[1]]], [[[2]]], [[[3]]], [[[4]]]].
    with tf.device(device):
        x = tf.constant([[[[1], [2]], [[3], [4]]]], dtype=tf.float32)
        result = bench(tf.space_to_batch, x, [2, 2], [[0, 0], [0, 0]])
    np.testing.assert_array_equal(result.numpy(), [[[[1]]], [[[2]]], [[[3]]], [[[4]]]])


def _space_to_batch_with(block_shape, paddings):
    return lambda x: tf.space_to_batch(x, block_shape, paddings)


# SpaceToBatchGradientTest / SpaceToBatchNDGradientTest: the gradient is batch_to_space of the cotangent (padding
# dropped), over 2-D blocks with and without padding and a 3-D block (upstream: compute_gradient, rtol 1e-2).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("shape,block_shape,paddings", [
    ((1, 4, 6, 5), [2, 2], [[0, 0], [0, 0]]),
    ((2, 4, 6, 2), [2, 2], [[1, 1], [1, 1]]),
    ((2, 2, 4, 3, 2), [2, 2, 2], [[1, 1], [1, 1], [1, 0]]),
], ids=["small", "pad1", "pad_three_block_dims"])
def test_space_to_batch_backward(backward, device, dtype, shape, block_shape, paddings):
    x_np = np.random.default_rng(0).standard_normal(shape)
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(_space_to_batch_with(block_shape, paddings), x)
    check_gradients(grads, _space_to_batch_with(block_shape, paddings), (x,))


def test_space_to_batch_large(bench, device):
    # A feature map [8, 64, 64, 32] split by 2 x 2 blocks (dilated-convolution style).
    x_np = np.random.default_rng(1).standard_normal((8, 64, 64, 32)).astype(np.float32)
    with tf.device(device):
        result = bench(tf.space_to_batch, tf.constant(x_np), [2, 2], [[0, 0], [0, 0]])
    np.testing.assert_array_equal(result.numpy(), _space_to_batch_ref(x_np, [2, 2], [[0, 0], [0, 0]]))
