"""tf.strings.as_string: cases adapted from tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py (AsStringOpTest.testFloat, testInt, testLargeInt, testHalfInt, testBool, testComplex), each result compared with Python's %-formatting as upstream does; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.strings.as_string", decile=90, top20=False,
                                  backward="string output: no gradient (TensorFlow registers none for AsString)")

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testFloat": [
        "test_as_string_float", "test_as_string_large"],
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testInt": [
        "test_as_string_int"],
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testLargeInt": [
        "test_as_string_int_limits"],
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testHalfInt": [
        "test_as_string_int_limits"],
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testBool": [
        "test_as_string_bool"],
    "tensorflow/python/kernel_tests/strings_ops/as_string_op_test.py::AsStringOpTest::testComplex": [
        "test_as_string_complex"],
}

_FLOATS = [0, 1, -1, 0.5, 0.25, 0.125, float("inf"), float("nan"), float("-inf")]

# (as_string keyword arguments, the equivalent %-format) from testFloat.
_FLOAT_FORMATS = {
    "shortest": ({"shortest": True}, "%g"),
    "scientific": ({"scientific": True}, "%e"),
    "default": ({}, "%f"),
    "width3": ({"width": 3}, "%3f"),
    "width3_fill0": ({"width": 3, "fill": "0"}, "%03f"),
    "width3_fill0_shortest": ({"width": 3, "fill": "0", "shortest": True}, "%03g"),
    "precision10_width3": ({"precision": 10, "width": 3}, "%03.10f"),
    "precision10_width3_fill0_shortest": ({"precision": 10, "width": 3, "fill": "0", "shortest": True},
                                          "%03.10g"),
}


def _decode(t):
    assert t.dtype == tf.string
    return [x.decode("ascii") for x in t.numpy().ravel()]


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("fmt", list(_FLOAT_FORMATS))
def test_as_string_float(bench, device, dtype, fmt):
    kwargs, pattern = _FLOAT_FORMATS[fmt]
    with tf.device(device):
        x = tf.constant(_FLOATS, dtype=dtype)
        result = bench(tf.strings.as_string, x, **kwargs)
    assert tuple(result.shape) == (len(_FLOATS),)
    assert _decode(result) == [pattern % v for v in _FLOATS]


_INTS = [0, -1, 1, -128, 127, -101, 101, -0]
_UINTS = [0, 1, 127, 255, 101]


@pytest.mark.parametrize("dtype", [tf.int8, tf.int32, tf.int64, tf.uint8, tf.uint32, tf.uint64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("kwargs,pattern", [({}, "%d"), ({"width": 3}, "%3d"), ({"width": 3, "fill": "0"}, "%03d")],
                         ids=["default", "width3", "width3_fill0"])
def test_as_string_int(bench, device, dtype, kwargs, pattern):
    # testInt: signed and unsigned integer types, plain and padded.
    values = _UINTS if dtype.is_unsigned else _INTS
    with tf.device(device):
        x = tf.constant(values, dtype=dtype)
        result = bench(tf.strings.as_string, x, **kwargs)
    assert _decode(result) == [pattern % v for v in values]


@pytest.mark.parametrize("np_dtype", [np.int16, np.uint16, np.int32, np.int64], ids=lambda d: d.__name__)
def test_as_string_int_limits(bench, device, np_dtype):
    # testLargeInt / testHalfInt: the extremes of each integer type.
    info = np.iinfo(np_dtype)
    values = np.array([info.min, info.max], dtype=np_dtype)
    with tf.device(device):
        x = tf.constant(values)
        result = bench(tf.strings.as_string, x)
    assert _decode(result) == ["%d" % v for v in values]


def test_as_string_bool(bench, device):
    # testBool: lowercase names.
    with tf.device(device):
        x = tf.constant([False, True])
        result = bench(tf.strings.as_string, x)
    assert _decode(result) == ["false", "true"]


@pytest.mark.parametrize("dtype", [tf.complex64, tf.complex128], ids=lambda d: d.name)
@pytest.mark.parametrize("kwargs,pattern", [
    ({"shortest": True}, "(%g,%g)"),
    ({"scientific": True}, "(%e,%e)"),
    ({}, "(%f,%f)"),
    ({"precision": 10, "width": 3}, "(%03.10f,%03.10f)"),
], ids=["shortest", "scientific", "default", "precision10_width3"])
def test_as_string_complex(bench, device, dtype, kwargs, pattern):
    # testComplex: "(real,imag)"; a NaN may print as "-nan", which upstream normalises too.
    values = [complex(x) + (complex(x) + 1) * 1j for x in _FLOATS]
    with tf.device(device):
        x = tf.constant(values, dtype=dtype)
        result = bench(tf.strings.as_string, x, **kwargs)
    got = [s.replace("-nan", "nan") for s in _decode(result)]
    assert got == [pattern % (v.real, v.imag) for v in values]


def test_as_string_large(bench, device):
    # A [512, 512] float32 block (262k strings) with a fixed precision.
    x_np = np.random.default_rng(0).uniform(-1000, 1000, (512, 512)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.strings.as_string, x, precision=3)
    assert tuple(result.shape) == (512, 512)
    got = _decode(result)
    assert got[:1000] == ["%.3f" % v for v in x_np.ravel()[:1000]]
    assert got[-1] == "%.3f" % x_np[-1, -1]
