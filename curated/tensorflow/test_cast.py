"""tf.cast: cases adapted from tensorflow/python/kernel_tests/array_ops/cast_op_test.py (CastOpTest.testBasic, testSmallValues, testBfloat16, testRandom, testIntToFloatBoundary, testInfNan, testGradients; SparseTensorCastTest.testCast); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.cast", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testBasic": ["test_cast_random"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testSmallValues": [
        "test_cast_small_values"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testBfloat16": [
        "test_cast_half_to_float32", "test_cast_random"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testFloat8":
        "float8_e4m3fn and float8_e5m2 round trips: TensorFlow 2.11 has no float8 types, and the study measures none",
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testRandom": [
        "test_cast_random", "test_cast_large_float32_to_float16"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testIntToFloatBoundary": [
        "test_cast_int_to_float_boundary"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testInfNan": ["test_cast_inf_nan"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testNotImplemented":
        "tests the error an int-to-string cast raises",
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testCastToTypeOfVariable": [
        "test_cast_random"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testGradients": ["test_cast_backward"],
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::CastOpTest::testRefDtype":
        "reference dtypes exist only for tf.compat.v1 graph-mode variables: a dtype rule, no kernel to measure",
    "tensorflow/python/kernel_tests/array_ops/cast_op_test.py::SparseTensorCastTest::testCast": ["test_cast_sparse"],
}

# Half-type results are compared with the exact value under a relative tolerance:
# 1/128 for bfloat16 as in testBfloat16, the half tolerance of
# assertAllCloseAccordingToType (1e-3) for float16. float16 values below its
# smallest normal keep only a few bits (or are flushed), hence the absolute term.
_HALF_RTOL = {tf.float16: 1e-3, tf.bfloat16: 1.0 / 128}
_HALF_ATOL = {tf.float16: float(np.finfo(np.float16).tiny), tf.bfloat16: 0.0}


def _random_input(np_dtype):
    # testRandom: normal(0, 10) values in a [2, 3, 5, 7] block.
    x = np.random.default_rng(0).normal(0, 10, 210).reshape([2, 3, 5, 7])
    if np.issubdtype(np_dtype, np.complexfloating):
        x = x - 0.5j * x
    return x.astype(np_dtype)


def _expected(x, dst):
    """NumPy's astype, the reference upstream uses; complex -> real keeps the real part."""
    if np.iscomplexobj(x) and not dst.is_complex:
        x = x.real
    if dst in _HALF_RTOL:
        return x.astype(np.float64)
    return x.astype(dst.as_numpy_dtype)


def _host(t):
    """Result on the host; half types widened so NumPy can compare them."""
    if t.dtype in _HALF_RTOL:
        return t.numpy().astype(np.float64)
    return t.numpy()


def _check(result, x, dst):
    assert result.dtype == dst
    expected = _expected(x, dst)
    if dst in _HALF_RTOL:
        np.testing.assert_allclose(_host(result), expected, rtol=_HALF_RTOL[dst],
                                   atol=_HALF_ATOL[dst])
    else:
        np.testing.assert_array_equal(_host(result), expected)


# testBasic / testRandom: the CPU type list (float32, float64, int32, int64,
# complex64, complex128) crossed with itself, plus bool/uint8 -> float32.
_PAIRS = [
    (np.float32, tf.float64),
    (np.float64, tf.float32),
    (np.float32, tf.int32),
    (np.float64, tf.int64),
    (np.int32, tf.float32),
    (np.int64, tf.float64),
    (np.int32, tf.int64),
    (np.int64, tf.int32),
    (np.float32, tf.complex64),
    (np.float64, tf.complex128),
    (np.complex64, tf.complex128),
    (np.complex128, tf.float64),
    (np.bool_, tf.float32),
    (np.uint8, tf.float32),
    (np.bool_, tf.int32),
    (np.float32, tf.float16),
    (np.float32, tf.bfloat16),
]


@pytest.mark.parametrize("src,dst", _PAIRS, ids=lambda v: getattr(v, "__name__", None) or v.name)
def test_cast_random(bench, device, src, dst):
    x_np = _random_input(src)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.cast, x, dst)
    _check(result, x_np, dst)


@pytest.mark.parametrize("src", [tf.float16, tf.bfloat16], ids=lambda d: d.name)
def test_cast_half_to_float32(bench, device, src):
    # testBfloat16 round-trips through the half type; here the widening half is timed.
    x_np = np.random.default_rng(1).uniform(-100, 100, 100).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np, dtype=src)
        result = bench(tf.cast, x, tf.float32)
    assert result.dtype == tf.float32
    np.testing.assert_allclose(result.numpy(), x_np, rtol=_HALF_RTOL[src])


@pytest.mark.parametrize("dst", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_cast_small_values(bench, device, dst):
    # testSmallValues: values around the float32/float64 resolutions.
    f4, f8 = np.finfo(np.float32), np.finfo(np.float64)
    x_np = np.array([0, -1, 1, -f4.resolution, f4.resolution, f8.resolution, -f8.resolution])
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.cast, x, dst)
    _check(result, x_np, dst)


@pytest.mark.parametrize("dst", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_cast_int_to_float_boundary(bench, device, dst):
    # testIntToFloatBoundary: int64 extremes (int32 ones included) to floats.
    i4, i8 = np.iinfo(np.int32), np.iinfo(np.int64)
    x_np = np.array([i4.min, i4.max, i8.min, i8.max], dtype=np.int64)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.cast, x, dst)
    _check(result, x_np, dst)


@pytest.mark.parametrize("src,dst", [(np.float32, tf.float64), (np.float64, tf.float32)],
                         ids=["float32-float64", "float64-float32"])
def test_cast_inf_nan(bench, device, src, dst):
    # testInfNan: inf, -inf and nan survive a float-to-float cast.
    x_np = np.array([np.inf, -np.inf, np.nan], dtype=src)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.cast, x, dst)
    np.testing.assert_array_equal(result.numpy(), x_np.astype(dst.as_numpy_dtype))


def test_cast_empty(bench, device):
    with tf.device(device):
        x = tf.zeros([0, 3], dtype=tf.float32)
        result = bench(tf.cast, x, tf.int64)
    assert result.dtype == tf.int64
    np.testing.assert_array_equal(result.numpy(), np.zeros([0, 3], np.int64))


def test_cast_large_float32_to_float16(bench, device):
    # A larger input (4 MiB) so the timing reflects the kernel, not dispatch.
    x_np = np.random.default_rng(2).normal(0, 10, (1024, 1024)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.cast, x, tf.float16)
    _check(result, x_np, tf.float16)


@pytest.mark.layout("sparse_coo")
def test_cast_sparse(bench, device):
    # SparseTensorCastTest.testCast: a SparseTensor's values are cast; its indices and shape are kept.
    with tf.device(device):
        st = tf.sparse.SparseTensor(tf.constant([[0], [1], [2]], tf.int64), tf.constant([1, 2, 3], tf.int64),
                                    tf.constant([3], tf.int64))
        result = bench(tf.cast, st, tf.float32)
    assert isinstance(result, tf.sparse.SparseTensor)
    assert result.values.dtype == tf.float32
    np.testing.assert_array_equal(result.indices.numpy(), [[0], [1], [2]])
    np.testing.assert_array_equal(result.values.numpy(), np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(result.dense_shape.numpy(), [3])


def _cast_to(dtype):
    return lambda x: tf.cast(x, dtype)


# testGradients: the gradient of a cast between the float and complex types is the cotangent cast back to the
# source type (complex to real keeps the real part); upstream bounds compute_gradient's error by 1e-3. bfloat16 is
# added for the mixed-precision casts a device trains with.
@pytest.mark.parametrize("src_dtype,dst_dtype", [
    (tf.float32, tf.float64), (tf.float64, tf.float32), (tf.float32, tf.complex64), (tf.complex64, tf.float32),
    (tf.float64, tf.complex128), (tf.complex128, tf.float64), (tf.float32, tf.bfloat16), (tf.bfloat16, tf.float32),
], ids=lambda d: d.name)
def test_cast_backward(backward, device, src_dtype, dst_dtype):
    x_np = np.linspace(-2, 2, 12).reshape(3, 4)
    if src_dtype.is_complex:
        x_np = x_np - 0.5j * x_np
    with tf.device(device):
        x = tf.constant(x_np, dtype=src_dtype)
        grads = backward(_cast_to(dst_dtype), x)
    assert grads[0].dtype == src_dtype
    check_gradients(grads, _cast_to(dst_dtype), (x,), jacobian_tol=1e-3)
