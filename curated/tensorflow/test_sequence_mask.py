"""tf.sequence_mask: cases adapted from tensorflow/python/kernel_tests/array_ops/array_ops_test.py (SequenceMaskTest.testOneDimensionalWithMaxlen, testOneDimensionalDtypeWithoutMaxlen, testOneDimensionalWithoutMaxlen, testTwoDimensional, testDtypes, testOutputDtype); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.sequence_mask", decile=70, top20=False,
                                  backward=("integer inputs (lengths, maxlen) and a comparison (Less, registered "
                                            "NotDifferentiable) as output"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testOneDimensionalWithMaxlen": [
        "test_sequence_mask_shapes"],
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testOneDimensionalDtypeWithoutMaxlen": [
        "test_sequence_mask_output_dtype"],
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testOneDimensionalWithoutMaxlen": [
        "test_sequence_mask_shapes"],
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testTwoDimensional": [
        "test_sequence_mask_shapes"],
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testDtypes": [
        "test_sequence_mask_index_dtypes"],
    "tensorflow/python/kernel_tests/array_ops/array_ops_test.py::SequenceMaskTest::testOutputDtype": [
        "test_sequence_mask_output_dtype", "test_sequence_mask_large"],
}


def _np_mask(lengths, maxlen=None):
    """Row i, column j is True when j < lengths[i]; maxlen defaults to max(lengths)."""
    lengths = np.asarray(lengths)
    if maxlen is None:
        maxlen = int(lengths.max()) if lengths.size else 0
    return np.arange(maxlen) < lengths[..., None]


def _check(result, expected, dtype=tf.bool):
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected.astype(dtype.as_numpy_dtype))


@pytest.mark.parametrize("lengths,maxlen", [
    ([1, 3, 2], 5),                 # testOneDimensionalWithMaxlen
    ([0, 1, 4], None),              # testOneDimensionalWithoutMaxlen
    ([[1, 3, 2]], 5),               # testTwoDimensional
    ([[0, 1, 4], [1, 2, 3]], None),
    ([7, 0, 2], 3),                 # lengths beyond maxlen are cut at maxlen
], ids=str)
def test_sequence_mask_shapes(bench, device, lengths, maxlen):
    with tf.device(device):
        lengths_t = tf.constant(lengths)
        result = bench(tf.sequence_mask, lengths_t, maxlen)
    _check(result, _np_mask(lengths, maxlen))


@pytest.mark.parametrize("lengths_dtype", [tf.int32, tf.int64], ids=lambda d: "lengths_" + d.name)
@pytest.mark.parametrize("maxlen_dtype", [tf.int32, tf.int64], ids=lambda d: "maxlen_" + d.name)
def test_sequence_mask_index_dtypes(bench, device, lengths_dtype, maxlen_dtype):
    # testDtypes: int32/int64 lengths and maxlen tensors in every combination.
    with tf.device(device):
        lengths = tf.constant([1, 3, 2], dtype=lengths_dtype)
        maxlen = tf.constant(5, dtype=maxlen_dtype)
        result = bench(tf.sequence_mask, lengths, maxlen)
    _check(result, _np_mask([1, 3, 2], 5))


@pytest.mark.parametrize("dtype", [tf.bool, tf.int32, tf.int64, tf.float32, tf.float64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("maxlen", [5, None], ids=["maxlen", "no_maxlen"])
def test_sequence_mask_output_dtype(bench, device, dtype, maxlen):
    # testOutputDtype and testOneDimensionalDtypeWithoutMaxlen: the mask cast to `dtype`.
    with tf.device(device):
        lengths = tf.constant([1, 3, 2], dtype=tf.int32)
        result = bench(tf.sequence_mask, lengths, maxlen, dtype=dtype)
    _check(result, _np_mask([1, 3, 2], maxlen), dtype)


def test_sequence_mask_empty(bench, device):
    # No sequences: a [0, maxlen] mask.
    with tf.device(device):
        lengths = tf.zeros([0], dtype=tf.int32)
        result = bench(tf.sequence_mask, lengths, 4)
    _check(result, _np_mask(np.zeros([0], np.int32), 4))


def test_sequence_mask_large(bench, device):
    # A larger batch: 4096 lengths into a 4096 x 512 float32 mask (8 MiB).
    lengths_np = np.random.default_rng(0).integers(0, 513, 4096).astype(np.int32)
    with tf.device(device):
        lengths = tf.constant(lengths_np)
        result = bench(tf.sequence_mask, lengths, 512, dtype=tf.float32)
    _check(result, _np_mask(lengths_np, 512), tf.float32)
