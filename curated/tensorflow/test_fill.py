"""tf.fill: cases adapted from tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py and constant_op_test.py (FillTest.testFillFloat, testFillDouble, testFillInt32, testFillInt64, testFillComplex64, testFillComplex128, testFillString, testFillNegative, testShapeFunctionEdgeCases, testGradient); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.fill", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillFloat": [
        "test_fill_dtypes", "test_fill_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillDouble": ["test_fill_dtypes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillInt32": ["test_fill_dtypes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillInt64": [
        "test_fill_dtypes", "test_fill_dims_dtype"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillInt4":
        "int4 and uint4: TensorFlow 2.11 has no 4-bit types, and the study measures none",
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillComplex64": ["test_fill_dtypes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillComplex128": [
        "test_fill_dtypes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillString": ["test_fill_string"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testFillNegative": [
        "test_fill_negative_dims_raises"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testShapeFunctionEdgeCases": [
        "test_fill_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::FillTest::testGradient": ["test_fill_backward"],
}


@pytest.mark.parametrize("np_dtype,value", [
    (np.float32, 3.1415), (np.float64, 3.1415), (np.int32, 42), (np.int64, -42),
    (np.complex64, 1 + 2j), (np.complex128, 1 + 2j), (np.float16, 0.5), (np.uint8, 7), (np.bool_, True),
], ids=lambda v: getattr(v, "__name__", None) or str(v))
def test_fill_dtypes(bench, device, np_dtype, value):
    # testFillFloat / Double / Int32 / Int64 / Complex64 / Complex128: a [2, 3] block of one value.
    scalar = np.array(value, dtype=np_dtype)
    with tf.device(device):
        v = tf.constant(scalar)
        result = bench(tf.fill, [2, 3], v)
    assert result.dtype == tf.dtypes.as_dtype(np_dtype)
    assert tuple(result.shape) == (2, 3)
    np.testing.assert_array_equal(result.numpy(), np.full((2, 3), scalar))


def test_fill_string(bench, device):
    # testFillString: string tensors live in host memory.
    with tf.device(device):
        result = bench(tf.fill, [2, 3], "yolo")
    assert result.dtype == tf.string
    assert result.numpy().tolist() == [[b"yolo"] * 3] * 2


@pytest.mark.parametrize("dims", [[], [0], [3, 0, 2], [1, 1, 1, 1], [1024, 1024]],
                         ids=["scalar", "empty", "zero_in_middle", "rank4_ones", "1024x1024"])
def test_fill_shapes(bench, device, dims):
    # testShapeFunctionEdgeCases's valid shapes: scalars, empty and larger outputs.
    with tf.device(device):
        d = tf.constant(dims, dtype=tf.int32)
        result = bench(tf.fill, d, 2.5)
    assert result.shape.as_list() == dims
    np.testing.assert_array_equal(result.numpy(), np.full(dims, 2.5, np.float32))


@pytest.mark.parametrize("dims_dtype", [tf.int32, tf.int64], ids=lambda d: d.name)
def test_fill_dims_dtype(bench, device, dims_dtype):
    # dims as an int32 or int64 tensor.
    with tf.device(device):
        dims = tf.constant([4, 5], dtype=dims_dtype)
        result = bench(tf.fill, dims, tf.constant(-1, tf.int64))
    assert result.dtype == tf.int64
    np.testing.assert_array_equal(result.numpy(), np.full((4, 5), -1, np.int64))


def test_fill_negative_dims_raises(bench, device):
    # testFillNegative: a negative dimension is rejected; checked beside a valid fill.
    with tf.device(device):
        result = bench(tf.fill, [3, 2], 1.0)
        with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
            tf.fill([3, -1], 1.0)
    np.testing.assert_array_equal(result.numpy(), np.ones((3, 2), np.float32))


def _fill_of(dims):
    return lambda value: tf.fill(dims, value)


# testGradient: the gradient of fill with respect to its value is the sum of the cotangent over the filled [3, 2]
# block (upstream bounds compute_gradient_error by 1e-3).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
def test_fill_backward(backward, device, dtype):
    with tf.device(device):
        value = tf.constant(5.0 - 2.0j if dtype.is_complex else 5.0, dtype=dtype)
        grads = backward(_fill_of([3, 2]), value)
    assert tuple(grads[0].shape) == ()
    check_gradients(grads, _fill_of([3, 2]), (value,), jacobian_tol=1e-3)
