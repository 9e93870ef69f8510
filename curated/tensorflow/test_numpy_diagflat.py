"""tf.experimental.numpy.diagflat: cases adapted from tensorflow/python/ops/numpy_ops/np_array_ops_test.py (ArrayCreationTest.testDiagFlat: 1-d, 2-d and 3-d inputs, k from -3 to 2, inputs as lists, tensors and float32/float64 arrays), checked against NumPy's diagflat; UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.experimental.numpy.diagflat", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/np_array_ops_test.py::ArrayCreationTest::testDiagFlat": [
        "test_diagflat_lists", "test_diagflat_typed_inputs", "test_diagflat_larger", "test_diagflat_backward"],
}

tnp = tf.experimental.numpy

_ARRAYS = {
    "empty": [],
    "one": [1],
    "two": [1, 2],
    "empty_2d": [[]],
    "single_2d": [[5]],
    "two_empty_rows": [[], []],
    "2x2": np.arange(4).reshape((2, 2)).tolist(),
    "2x1": np.arange(2).reshape((2, 1)).tolist(),
    "1x2": np.arange(2).reshape((1, 2)).tolist(),
    "2x2x2": np.arange(8).reshape((2, 2, 2)).tolist(),
}


def _check(result, expected, check_dtype):
    assert tuple(result.shape) == expected.shape
    if check_dtype:
        assert result.dtype == tf.dtypes.as_dtype(expected.dtype)
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("k", [-3, -1, 0, 2])
@pytest.mark.parametrize("name", list(_ARRAYS))
def test_diagflat_lists(bench, device, name, k):
    arr = _ARRAYS[name]
    expected = np.diagflat(arr, k)
    with tf.device(device):
        result = bench(tnp.diagflat, arr, k)
    _check(result, expected, check_dtype=False)  # TF-NumPy's default widths for Python lists differ


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int32, np.int64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("kind", ["tensor", "ndarray"])
@pytest.mark.parametrize("k", [-2, 0, 1])
def test_diagflat_typed_inputs(bench, device, np_dtype, kind, k):
    # upstream's np.array(x, dtype=...) and convert_to_tensor transforms: the dtype is kept.
    arr = np.arange(1, 7).reshape((2, 3)).astype(np_dtype)
    expected = np.diagflat(arr, k)
    with tf.device(device):
        x = tf.constant(arr) if kind == "tensor" else arr
        result = bench(tnp.diagflat, x, k)
    _check(result, expected, check_dtype=True)


def test_diagflat_larger(bench, device):
    # 1000 values on the first superdiagonal of a 1001 x 1001 matrix.
    arr = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    with tf.device(device):
        x = tf.constant(arr)
        result = bench(tnp.diagflat, x, 1)
    _check(result, np.diagflat(arr, 1), check_dtype=True)


def _diagflat_at(k):
    return lambda x: tnp.diagflat(x, k)


# Upstream's testDiagFlat compares values only; training differentiates diagflat: the gradient is the cotangent's
# k-th diagonal, shaped back like the input.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
@pytest.mark.parametrize("k", [-2, 0, 1])
def test_diagflat_backward(backward, device, dtype, k):
    x_np = np.arange(1.0, 7.0).reshape(2, 3)
    if dtype.is_complex:
        x_np = x_np - 1j * x_np[::-1]
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(_diagflat_at(k), x)
    check_gradients(grads, _diagflat_at(k), (x,))
