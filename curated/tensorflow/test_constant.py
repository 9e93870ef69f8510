"""tf.constant: cases adapted from tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py (ConstantTest.testFloat, testDouble, testInt32, testInt64, testComplex64, testComplex128, testString, testStringWithNulls, testStringConstantOp, testExplicitShapeNumPy, testExplicitShapeList, testExplicitShapeFill, testExplicitShapeReshape, testImplicitShapeNumber, testDimensionList, testCustomSequence), with float16, bfloat16, 8/16-bit integers and bool added to its dtypes; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.constant", decile=100, top20=True,
                                  backward=("no tensor input: Const holds host values, and TensorFlow registers Const "
                                            "NotDifferentiable"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testFloat": [
        "test_constant_numpy_arrays", "test_constant_python_lists"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testDouble": [
        "test_constant_numpy_arrays", "test_constant_double_rounding"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testInt32": [
        "test_constant_numpy_arrays", "test_constant_python_lists"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testInt64": [
        "test_constant_numpy_arrays", "test_constant_python_lists"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testComplex64": [
        "test_constant_numpy_arrays"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testComplex128": [
        "test_constant_numpy_arrays"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testString": [
        "test_constant_strings"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testStringWithNulls": [
        "test_constant_strings"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testStringConstantOp": [
        "test_constant_strings"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeNumPy": [
        "test_constant_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeList": [
        "test_constant_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeFill": [
        "test_constant_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeReshape": [
        "test_constant_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testImplicitShapeNumber": [
        "test_constant_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testDimensionList": [
        "test_constant_dimension_list"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testCustomSequence": [
        "test_constant_custom_sequence"],
}


def _check(t, expected, dtype):
    assert t.dtype == dtype
    assert tuple(t.shape) == np.shape(expected)
    value = t.numpy()
    if dtype in (tf.float16, tf.bfloat16):
        np.testing.assert_array_equal(value.astype(np.float32), np.asarray(expected, np.float32))
    else:
        np.testing.assert_array_equal(value, np.asarray(expected))


_ARRAY_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64,
                 np.complex64, np.complex128, np.bool_]


@pytest.mark.parametrize("np_dtype", _ARRAY_DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("kind", ["arange", "random", "empty"])
def test_constant_numpy_arrays(bench, device, np_dtype, kind):
    # testFloat / testDouble / testInt32 / testInt64 / testComplex64 / testComplex128, and the other
    # dtypes: a [2, 3, 5] array (or an empty [2, 0, 5] one) keeps dtype, shape and values.
    if kind == "arange":
        x = np.arange(-15, 15).reshape([2, 3, 5])
    elif kind == "random":
        x = 50 * np.random.RandomState(0).normal(size=30).reshape([2, 3, 5])
        if np_dtype in (np.int8, np.uint8):
            x = np.clip(x, 0 if np_dtype == np.uint8 else -128, 127)
    else:
        x = np.empty((2, 0, 5))
    if np.issubdtype(np_dtype, np.complexfloating):
        x = (1 + 2j) * x
    x = x.astype(np_dtype)
    with tf.device(device):
        t = bench(tf.constant, x)
    _check(t, x, tf.dtypes.as_dtype(np_dtype))


@pytest.mark.parametrize("value,dtype,expected_dtype", [
    ([-1.0, 2.0, 0.0], None, tf.float32),
    ([-1.5, 2, 0], None, tf.float32),        # mixed floats and ints
    ([1, 2 ** 42, 0.5], None, tf.float32),   # ints beyond int32 mixed with floats
    ([-5, 2.5, 0], tf.float64, tf.float64),
    ([-1, 2], None, tf.int32),
    ([2, 2 ** 48, -2 ** 48], None, tf.int64),  # out of int32 range: int64
    ([True, False], None, tf.bool),
    ([1.5, -2.25], tf.bfloat16, tf.bfloat16),
], ids=["floats", "mixed", "mixed_large", "explicit_float64", "ints", "large_ints", "bools", "bfloat16"])
def test_constant_python_lists(bench, device, value, dtype, expected_dtype):
    with tf.device(device):
        t = bench(tf.constant, value, dtype)
    _check(t, np.array(value, dtype=np.float64 if expected_dtype.is_floating else None), expected_dtype)


def test_constant_double_rounding(bench, device):
    # testDouble: 2**54 + 1 is not representable as a double and rounds to 2**54.
    with tf.device(device):
        t = bench(tf.constant, 2 ** 54 + 1, tf.float64)
    assert t.dtype == tf.float64
    assert t.numpy() == 2 ** 54


@pytest.mark.parametrize("value,shape,expected", [
    (np.arange(-15, 15).reshape([2, 3, 5]).astype(np.float32), [2, 3, 5],
     np.arange(-15, 15).reshape([2, 3, 5]).astype(np.float32)),                 # testExplicitShapeNumPy
    (np.arange(-15, 15).reshape([2, 3, 5]).astype(np.float32), [5, 2, 3],
     np.arange(-15, 15).reshape([5, 2, 3]).astype(np.float32)),                 # testExplicitShapeReshape
    ([1, 2, 3, 4, 5, 6, 7], [7], np.arange(1, 8, dtype=np.int32)),             # testExplicitShapeList
    (12, [7], np.full(7, 12, np.int32)),                                         # testExplicitShapeFill
    (1, [1], np.ones(1, np.int32)),                                              # testExplicitShapeNumber
    (1, None, np.int32(1)),                                                      # testImplicitShapeNumber
    (0.5, [256, 256], np.full((256, 256), 0.5, np.float32)),                    # a larger fill
], ids=["numpy_same", "numpy_reshape", "list", "fill", "number", "scalar", "fill_large"])
def test_constant_shapes(bench, device, value, shape, expected):
    with tf.device(device):
        t = bench(tf.constant, value, shape=shape)
    _check(t, expected, tf.dtypes.as_dtype(expected.dtype))


@pytest.mark.parametrize("value", [
    "uiuc",
    ["mit", "stanford"],
    [str(x).encode() for x in range(-15, 15)],
    b"xx\0xx",
    [[b"\0\0\0\0", b"xx\0xx"], [b"\0_\0_\0_\0", b"\0"]],
], ids=["scalar", "list", "numbers", "with_nulls", "nested_with_nulls"])
def test_constant_strings(bench, device, value):
    # testString / testStringConstantOp / testStringWithNulls: bytes survive, null bytes included.
    # String tensors live in host memory: the string kernels are CPU kernels.
    with tf.device(device):
        t = bench(tf.constant, value)
    assert t.dtype == tf.string
    expected = np.array(value, dtype=object)
    assert tuple(t.shape) == expected.shape
    as_bytes = np.vectorize(lambda s: s if isinstance(s, bytes) else s.encode(), otypes=[object])
    # Compared as Python lists: NumPy's fixed-width bytes arrays would drop trailing null bytes.
    assert np.asarray(t.numpy(), dtype=object).tolist() == as_bytes(expected).tolist()


def test_constant_dimension_list(bench, device):
    # testDimensionList: TensorShape dimensions mixed with Python ints.
    dim = tf.constant([1]).shape[0]
    with tf.device(device):
        t = bench(tf.constant, [1, dim, 3])
    _check(t, np.array([1, 1, 3], np.int32), tf.int32)


def test_constant_custom_sequence(bench, device):
    # testCustomSequence: an object with the sequence protocol whose __getitem__(0) raises KeyError.
    class MySeq:
        def __getitem__(self, key):
            if key not in (1, 3):
                raise KeyError(key)
            return key

        def __len__(self):
            return 2

        def __iter__(self):
            return iter([1, 3])

    with tf.device(device):
        t = bench(tf.constant, MySeq())
    _check(t, np.array([1, 3], np.int32), tf.int32)
