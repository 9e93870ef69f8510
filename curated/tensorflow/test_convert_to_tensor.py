"""tf.convert_to_tensor: cases adapted from tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py (ConstantTest._testCpu via testFloat, testInt64, testComplex64, testString, testStringWithNulls, testShape, testDimension, testDimensionList, testDimensionTuple; AsTensorTest.testAsTensorForTensorInput, testAsTensorForNonTensorInput), with the dtype / dtype_hint arguments and the conversions registered for variables and lists of tensors, and the gradient through a variable's read as tensorflow/python/eager/backprop_test.py checks it (BackpropTest.testGradientTapeVariable); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.convert_to_tensor", decile=100, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testFloat": [
        "test_convert_numpy", "test_convert_python_values"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testInt64": [
        "test_convert_numpy", "test_convert_python_values"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testComplex64": [
        "test_convert_numpy"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testString": [
        "test_convert_strings"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testStringWithNulls": [
        "test_convert_strings"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testShape": [
        "test_convert_shapes_and_dimensions"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testDimension": [
        "test_convert_shapes_and_dimensions"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testDimensionList": [
        "test_convert_shapes_and_dimensions"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testDimensionTuple": [
        "test_convert_shapes_and_dimensions"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::AsTensorTest::testAsTensorForTensorInput": [
        "test_convert_tensor_is_identity"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::AsTensorTest::testAsTensorForNonTensorInput": [
        "test_convert_python_values"],
    "tensorflow/python/eager/backprop_test.py::BackpropTest::testGradientTapeVariable": [
        "test_convert_to_tensor_backward"],
}


def _check(t, expected, dtype):
    assert isinstance(t, tf.Tensor)
    assert t.dtype == dtype
    assert tuple(t.shape) == np.shape(expected)
    np.testing.assert_array_equal(t.numpy(), np.asarray(expected))


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int32, np.int64, np.complex64, np.bool_,
                                      np.uint8], ids=lambda d: d.__name__)
def test_convert_numpy(bench, device, np_dtype):
    # _testCpu: np.array(x) and the converted tensor agree.
    x = np.arange(-15, 15).reshape([2, 3, 5])
    if np.issubdtype(np_dtype, np.complexfloating):
        x = (1 + 2j) * x
    x = x.astype(np_dtype)
    with tf.device(device):
        t = bench(tf.convert_to_tensor, x)
    _check(t, x, tf.dtypes.as_dtype(np_dtype))


@pytest.mark.parametrize("value,expected_dtype", [
    ([-1.0, 2.0, 0.0], tf.float32),
    ([[1, 2], [3, 4]], tf.int32),
    ([2, 2 ** 48, -2 ** 48], tf.int64),
    (10.0, tf.float32),
    ((1, 2, 3), tf.int32),
    ([True, False, True], tf.bool),
], ids=["float_list", "nested_int_list", "int64_list", "float_scalar", "tuple", "bool_list"])
def test_convert_python_values(bench, device, value, expected_dtype):
    # testAsTensorForNonTensorInput and the Python-list cases of testFloat / testInt64.
    with tf.device(device):
        t = bench(tf.convert_to_tensor, value)
    _check(t, np.array(value).astype(expected_dtype.as_numpy_dtype), expected_dtype)


def test_convert_tensor_is_identity(bench, device):
    # testAsTensorForTensorInput: a tensor converts to itself.
    with tf.device(device):
        t = tf.constant([10.0, 11.0])
        result = bench(tf.convert_to_tensor, t)
    assert result is t


@pytest.mark.parametrize("value,dtype,dtype_hint,expected_dtype", [
    ([1, 2, 3], tf.float64, None, tf.float64),
    ([1, 2, 3], None, tf.float32, tf.float32),
    ([1.5, 2.5], None, tf.int32, tf.float32),   # a hint that does not fit is ignored
    (3, tf.int64, None, tf.int64),
], ids=["dtype", "dtype_hint", "dtype_hint_ignored", "scalar_dtype"])
def test_convert_dtype_arguments(bench, device, value, dtype, dtype_hint, expected_dtype):
    with tf.device(device):
        t = bench(tf.convert_to_tensor, value, dtype=dtype, dtype_hint=dtype_hint)
    _check(t, np.array(value).astype(expected_dtype.as_numpy_dtype), expected_dtype)


@pytest.mark.parametrize("kind", ["shape", "dimension_list", "dimension_tuple"])
def test_convert_shapes_and_dimensions(bench, device, kind):
    # testShape / testDimensionList / testDimensionTuple: TensorShape and Dimension values convert.
    shape = tf.TensorShape([2, 3, 5])
    value, expected = {
        "shape": (shape, [2, 3, 5]),
        "dimension_list": ([1] + [shape[1]], [1, 3]),
        "dimension_tuple": ((shape[2], 1), [5, 1]),
    }[kind]
    with tf.device(device):
        t = bench(tf.convert_to_tensor, value)
    _check(t, np.array(expected, np.int32), tf.int32)


@pytest.mark.parametrize("value", ["uiuc", [b"\0\0\0\0", b"xx\0xx"]], ids=["string", "bytes_with_nulls"])
def test_convert_strings(bench, device, value):
    # testString / testStringWithNulls: null bytes are kept.
    with tf.device(device):
        t = bench(tf.convert_to_tensor, value)
    assert t.dtype == tf.string
    expected = value.encode() if isinstance(value, str) else value
    assert np.asarray(t.numpy(), dtype=object).tolist() == expected


def test_convert_variable(bench, device):
    # A variable converts to a tensor holding its current value.
    with tf.device(device):
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        v.assign_add(tf.ones([2, 2]))
        t = bench(tf.convert_to_tensor, v)
    _check(t, np.array([[2.0, 3.0], [4.0, 5.0]], np.float32), tf.float32)


def test_convert_list_of_tensors(bench, device):
    # A list mixing tensors and Python numbers is packed into one tensor.
    with tf.device(device):
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        t = bench(tf.convert_to_tensor, [a, b, [5.0, 6.0]])
    _check(t, np.array([[1, 2], [3, 4], [5, 6]], np.float32), tf.float32)


def test_convert_large_array(bench, device):
    # A 1000 x 1000 float32 array (4 MiB), host to device.
    x = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    with tf.device(device):
        t = bench(tf.convert_to_tensor, x)
    _check(t, x, tf.float32)


# A model converts its variables to tensors (ReadVariableOp, whose gradient passes the cotangent to the variable, as
# testGradientTapeVariable checks), and a tensor to itself: the gradient is the cotangent, for either.
@pytest.mark.parametrize("kind", ["tensor", "variable"])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
def test_convert_to_tensor_backward(backward, device, dtype, kind):
    x_np = np.random.default_rng(1).standard_normal((3, 4)).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        if kind == "variable":
            x = tf.Variable(x)
        grads = backward(tf.convert_to_tensor, x)
    check_gradients(grads, tf.convert_to_tensor, (x,))
