"""tf.math.reduce_mean: cases adapted from tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py (MeanReductionTest.testInt32, testFloat32, testBFloat16, testFloat64, testComplex64, testComplex128, testInfinity, testSizeOverflowUint8, testSizeOverflowInt8, testGradient, testDegenerate; SumReductionTest.testFloat16); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.math.reduce_mean", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testInt32": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testFloat32": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testBFloat16": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testFloat64": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testComplex64": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testComplex128": [
        "test_reduce_mean_dtypes", "test_reduce_mean_axes"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testInfinity": [
        "test_reduce_mean_infinity"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testSizeOverflowUint8": [
        "test_reduce_mean_size_overflow"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testSizeOverflowInt8": [
        "test_reduce_mean_size_overflow"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testGradient": [
        "test_reduce_mean_backward"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::MeanReductionTest::testDegenerate": [
        "test_reduce_mean_degenerate"],
    "tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py::SumReductionTest::testFloat16": [
        "test_reduce_mean_dtypes"],
}

# assertAllCloseAccordingToType: 1e-6 by default, 1e-3 for float16, 1e-2 for bfloat16.
_TOL = {tf.float16: 1e-3, tf.bfloat16: 1e-2}


def _incremental(shape, dtype):
    """_makeIncremental: 0, 1, 2, ... (complex: x - 2jx), exactly representable in every dtype."""
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    if dtype.is_complex:
        data = data - 2j * data
    return data


def _np_mean(x, axis, keepdims):
    """Upstream's reference: sum / count, with truncating division for integers."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis))
    count = int(np.prod([x.shape[a] for a in axes]))
    if np.issubdtype(x.dtype, np.integer):
        # Inputs are non-negative, so // truncates like TF's integer division.
        return np.sum(x, axis=axes, keepdims=keepdims) // count
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    return np.sum(x, axis=axes, keepdims=keepdims) / count


def _host(t):
    if t.dtype in _TOL:
        return t.numpy().astype(np.float64)
    return t.numpy()


def _check(result, x_np, axis, keepdims, dtype):
    expected = _np_mean(x_np, axis, keepdims)
    assert result.dtype == dtype
    assert tuple(result.shape) == np.shape(expected)
    tol = _TOL.get(dtype, 1e-6)
    np.testing.assert_allclose(_host(result), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64,
                                   tf.int32, tf.int64, tf.complex64, tf.complex128],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [None, 0, [1, 2], [0, 1, 2, 3]], ids=str)
def test_reduce_mean_dtypes(bench, device, dtype, axis):
    # test<Dtype>: incremental values in a (2, 2, 2, 2) block (rank 4 of _MAX_RANK).
    x_np = _incremental((2, 2, 2, 2), dtype).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.math.reduce_mean, x, axis)
    _check(result, x_np, axis, False, dtype)


@pytest.mark.parametrize("axis", [None, [], [-1], [0, 2], [1, 2, 3]], ids=str)
@pytest.mark.parametrize("keepdims", [False, True], ids=["drop", "keepdims"])
def test_reduce_mean_axes(bench, device, axis, keepdims):
    # _compareAll: every axes pattern with and without keepdims (float32, 2x3x4x5).
    x_np = _incremental((2, 3, 4, 5), tf.float32).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.math.reduce_mean, x, axis=axis, keepdims=keepdims)
    _check(result, x_np, axis, keepdims, tf.float32)


@pytest.mark.parametrize("np_dtype,size,value", [
    (np.uint8, 2 ** 8, 1),    # testSizeOverflowUint8: the count 256 overflows uint8
    (np.int8, 2 ** 7, 100),   # testSizeOverflowInt8: 128 overflows int8
    (np.int16, 2 ** 15, 3),   # testSizeOverflowInt16
], ids=["uint8", "int8", "int16"])
def test_reduce_mean_size_overflow(bench, device, np_dtype, size, value):
    # Unlike upstream (random values that round to zero), the values are non-zero
    # so an overflowing sum or count shows in the result.
    x_np = np.full(size, value, dtype=np_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.math.reduce_mean, x)
    assert result.numpy() == value


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pair", [(-np.inf, -np.inf), (-np.inf, np.inf), (np.inf, np.inf)],
                         ids=["-inf-inf", "-inf+inf", "+inf+inf"])
def test_reduce_mean_infinity(bench, device, np_dtype, pair):
    # testInfinity: infinities propagate, inf - inf gives nan, as in NumPy.
    x_np = np.array(pair, dtype=np_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.math.reduce_mean, x)
    with np.errstate(invalid="ignore"):
        expected = np.mean(x_np)
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64],
                         ids=lambda d: d.name)
def test_reduce_mean_degenerate(bench, device, dtype):
    # testDegenerate: the mean over an empty axis is nan (0 / 0), 9938 columns wide.
    with tf.device(device):
        x = tf.zeros((0, 9938), dtype=dtype)
        result = bench(tf.math.reduce_mean, x, [0])
    assert tuple(result.shape) == (9938,)
    assert np.all(np.isnan(_host(result)))


def test_reduce_mean_large(bench, device):
    # A larger float32 input (4 MiB) reduced along rows; the reference is float64.
    x_np = np.random.default_rng(0).uniform(-1, 1, (1024, 1024)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.math.reduce_mean, x, 1)
    # 1e-6 relative plus an absolute 1e-6 on means near zero, as assertAllClose.
    np.testing.assert_allclose(result.numpy(), x_np.astype(np.float64).mean(axis=1),
                               rtol=1e-6, atol=1e-6)


# testGradient: a (2, 3, 4, 2) input reduced over all, some and every axis; the gradient is the cotangent divided by
# the count, spread over the reduced axes. Against the CPU's float64 gradient, with compute_gradient on the CPU.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [None, [1, 2], [0, 1, 2, 3]], ids=str)
def test_reduce_mean_backward(backward, device, dtype, axis):
    x_np = _incremental((2, 3, 4, 2), dtype)
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(tf.math.reduce_mean, x, axis)
    check_gradients(grads, tf.math.reduce_mean, (x, axis))
