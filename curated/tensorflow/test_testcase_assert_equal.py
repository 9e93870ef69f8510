"""tf.test.TestCase.assertEqual: tf.test.TestCase inherits assertEqual from unittest.TestCase, and
TensorFlow has no test of its own for it; the cases follow how TensorFlow's tests call it (e.g.
tensorflow/python/framework/dtypes_test.py, TypesTest, comparing DTypes, enums and names; shape lists
compared with Python lists throughout tensorflow/python/kernel_tests/) and unittest's contract
(type-specific equality for list, tuple, dict, set, str; msg appended to the failure message).

The timed call is the unbound method on a TestCase instance with two equal values: it returns None. Each
case then checks that unequal values raise the test's failure exception.
UPSTREAM_TESTS below is empty: TensorFlow has no test method of its own for assertEqual to map. Not
differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.test.TestCase.assertEqual", decile=100, top20=True,
                                  paper_label="tf.test.TestCase.assert_equal",
                                  backward="a Python assertion that returns None: no tensor output")

# unittest's method, which no TensorFlow test tests (see the docstring): no upstream method to map.
UPSTREAM_TESTS = {}


@pytest.fixture
def case():
    return tf.test.TestCase()


_PAIRS = {
    "int": (3, 3, 4),
    "float": (0.5, 0.5, 0.25),
    "str": ("brain", "brain", "salad"),
    "bytes": (b"\x00\x01", b"\x00\x01", b"\x01"),
    "list": ([1, 2, [3, 4]], [1, 2, [3, 4]], [1, 2, [3, 5]]),
    "tuple": ((1, "a"), (1, "a"), (1, "b")),
    "dict": ({"a": 1, "b": [2]}, {"b": [2], "a": 1}, {"a": 1, "b": [3]}),
    "set": ({1, 2, 3}, {3, 2, 1}, {1, 2}),
    "numpy_scalar": (np.float32(1.5), np.float32(1.5), np.float32(2.5)),
    "dtype": (tf.float32, tf.dtypes.as_dtype("float32"), tf.float64),
    "tensor_shape": (tf.TensorShape([2, None, 3]).as_list(), [2, None, 3], [2, 1, 3]),
    "long_list": (list(range(10000)), list(range(10000)), list(range(9999)) + [0]),
}


@pytest.mark.parametrize("kind", list(_PAIRS))
def test_assert_equal_values(bench, device, case, kind):
    first, second, other = _PAIRS[kind]
    result = bench(tf.test.TestCase.assertEqual, case, first, second)
    assert result is None
    with pytest.raises(case.failureException):
        case.assertEqual(first, other)


def test_assert_equal_message(bench, device, case):
    # msg is appended to the standard message (longMessage is on by default).
    result = bench(tf.test.TestCase.assertEqual, case, [1, 2], [1, 2], msg="shapes differ")
    assert result is None
    with pytest.raises(case.failureException, match="shapes differ"):
        case.assertEqual([1, 2], [1, 3], msg="shapes differ")


@pytest.mark.parametrize("dtype", [tf.int32, tf.float32, tf.bool], ids=lambda d: d.name)
def test_assert_equal_scalar_tensors(bench, device, case, dtype):
    # Scalar eager tensors compare through ==, which gives a boolean tensor unittest can test.
    with tf.device(device):
        a = tf.cast(tf.constant(1), dtype)
        b = tf.cast(tf.constant(1), dtype)
        c = tf.cast(tf.constant(0), dtype)
    result = bench(tf.test.TestCase.assertEqual, case, a, b)
    assert result is None
    with pytest.raises(case.failureException):
        case.assertEqual(a, c)


def test_assert_equal_numpy_result_of_op(bench, device, case):
    # The common upstream pattern: compare an op's evaluated shape with a Python list.
    with tf.device(device):
        x = tf.zeros([3, 4, 5])
        shape = tf.shape(tf.transpose(x)).numpy().tolist()
    result = bench(tf.test.TestCase.assertEqual, case, shape, [5, 4, 3])
    assert result is None
    with pytest.raises(case.failureException):
        case.assertEqual(shape, [3, 4, 5])
