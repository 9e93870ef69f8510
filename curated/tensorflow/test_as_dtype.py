"""tf.dtypes.as_dtype: cases adapted from tensorflow/python/framework/dtypes_test.py (TypesTest.testAllTypesConvertibleToDType, testAllTypesConvertibleToNumpyDtype, testNumpyConversion, testStringConversion, testIsInteger, testIsFloating, testIsComplex, testRealDtype); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A pure host-side conversion: the device fixture is unused beyond the harness's scope. Types added
after 2023 (float8, int4) are left out so the cases also run on TensorFlow 2.11."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.dtypes.as_dtype", decile=100, top20=False,
                                  backward="returns a tf.dtypes.DType (Python metadata), not a tensor: no op runs")

UPSTREAM_TESTS = {
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testAllTypesConvertibleToDType": ["test_as_dtype_enums"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testAllTypesConvertibleToNumpyDtype": [
        "test_as_dtype_enums"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testNumpyConversion": [
        "test_as_dtype_numpy_types", "test_as_dtype_other_type_objects", "test_as_dtype_objects_with_dtype_attribute"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testStringConversion": [
        "test_as_dtype_names", "test_as_dtype_ref_names"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testIsInteger": ["test_as_dtype_names"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testIsFloating": ["test_as_dtype_names"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testIsComplex": ["test_as_dtype_names"],
    "tensorflow/python/framework/dtypes_test.py::TypesTest::testRealDtype": ["test_as_dtype_enums"],
}

_NUMPY = [
    (np.float16, tf.float16), (np.float32, tf.float32), (np.float64, tf.float64),
    (np.int8, tf.int8), (np.int16, tf.int16), (np.int32, tf.int32), (np.int64, tf.int64),
    (np.uint8, tf.uint8), (np.uint16, tf.uint16), (np.uint32, tf.uint32), (np.uint64, tf.uint64),
    (np.complex64, tf.complex64), (np.complex128, tf.complex128), (np.bool_, tf.bool),
    (np.object_, tf.string),
]


@pytest.mark.parametrize("np_type,expected", _NUMPY, ids=lambda v: getattr(v, "__name__", None) or v.name)
def test_as_dtype_numpy_types(bench, device, np_type, expected):
    # testNumpyConversion: NumPy scalar types map to the identical DType object.
    result = bench(tf.dtypes.as_dtype, np_type)
    assert result is expected
    assert isinstance(result, tf.dtypes.DType)


@pytest.mark.parametrize("value,expected", [
    (np.dtype("float32"), tf.float32),
    (np.array(["foo", "bar"]).dtype, tf.string),
    (np.dtype(np.complex64), tf.complex64),
    (float, tf.float32),
    (bool, tf.bool),
    (object, tf.string),
    (tf.bfloat16, tf.bfloat16),
], ids=["np_dtype_float32", "np_unicode_array", "np_dtype_complex64", "py_float", "py_bool", "py_object",
        "dtype_itself"])
def test_as_dtype_other_type_objects(bench, device, value, expected):
    # testNumpyConversion (np.dtype objects, arrays of str) and the Python-type table.
    assert bench(tf.dtypes.as_dtype, value) is expected


@pytest.mark.parametrize("attr", ["f4", np.dtype(np.complex64)], ids=["string_attr", "np_dtype_attr"])
def test_as_dtype_objects_with_dtype_attribute(bench, device, attr):
    # testNumpyConversion's AnObject / AnotherObject: anything with a .dtype converts through it.
    class HasDtype:
        dtype = attr

    result = bench(tf.dtypes.as_dtype, HasDtype)
    assert result is (tf.float32 if attr == "f4" else tf.complex64)


_NAMES = ["float16", "half", "float32", "float", "float64", "double", "bfloat16", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64", "complex64", "complex128", "bool", "string",
          "qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant"]
_ALIASES = {"half": "float16", "float": "float32", "double": "float64"}


@pytest.mark.parametrize("name", _NAMES)
def test_as_dtype_names(bench, device, name):
    # testStringConversion / testIsInteger / testIsFloating / testIsComplex.
    result = bench(tf.dtypes.as_dtype, name)
    canonical = _ALIASES.get(name, name)
    assert result.name == canonical
    assert result is getattr(tf, canonical if canonical != "string" else "string")
    assert result.is_integer == (canonical.startswith(("int", "uint")))
    assert result.is_floating == (canonical in ("float16", "float32", "float64", "bfloat16"))
    assert result.is_complex == canonical.startswith("complex")
    assert result.is_quantized == canonical.startswith(("qint", "quint"))


@pytest.mark.parametrize("name", ["float32_ref", "int64_ref", "string_ref", "bool_ref"])
def test_as_dtype_ref_names(bench, device, name):
    # testStringConversion's *_ref names: reference types whose base type is the plain one.
    result = bench(tf.dtypes.as_dtype, name)
    assert result.name == name
    base = tf.dtypes.as_dtype(name[:-4])
    assert result is not base
    assert result.base_dtype is base
    assert result.as_datatype_enum == base.as_datatype_enum + 100  # DT_*_REF in types.proto


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.uint8,
                                   tf.int32, tf.int64, tf.complex64, tf.complex128, tf.bool, tf.string,
                                   tf.qint8, tf.resource, tf.variant], ids=lambda d: d.name)
def test_as_dtype_enums(bench, device, dtype):
    # testAllTypesConvertibleToDType / testAllTypesConvertibleToNumpyDtype: the DataType enum value
    # converts back to the same type, which round-trips through its NumPy type where it has one.
    enum = dtype.as_datatype_enum
    result = bench(tf.dtypes.as_dtype, enum)
    assert result is dtype
    assert result.as_datatype_enum == enum
    if dtype not in (tf.resource, tf.variant):
        np.empty((1, 1), dtype=result.as_numpy_dtype)
        if dtype not in (tf.bfloat16, tf.qint8):
            assert tf.dtypes.as_dtype(result.as_numpy_dtype) is dtype
    if dtype.is_complex:
        assert result.real_dtype is (tf.float32 if dtype == tf.complex64 else tf.float64)  # testRealDtype
