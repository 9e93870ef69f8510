"""tf.numpy_function: cases adapted from tensorflow/python/ops/script_ops_test.py (NumpyFunctionTest.test_numpy_arguments, test_stateless, test_stateful) and the numpy_function uses of tensorflow/python/kernel_tests/py_func_test.py (single and multiple output types, strings, inside tf.function); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The wrapped Python function runs on the host; its inputs arrive as NumPy arrays."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.numpy_function", decile=50, top20=False,
                                  backward=("runs Python on the host as PyFunc / PyFuncStateless, which TensorFlow "
                                            "registers NotDifferentiable (tf.py_function is the differentiable one)"))

UPSTREAM_TESTS = {
    "tensorflow/python/ops/script_ops_test.py::NumpyFunctionTest::test_numpy_arguments": [
        "test_numpy_function_numpy_arguments"],
    "tensorflow/python/ops/script_ops_test.py::NumpyFunctionTest::test_stateless": [
        "test_numpy_function_in_tf_function"],
    "tensorflow/python/ops/script_ops_test.py::NumpyFunctionTest::test_stateful": [
        "test_numpy_function_in_tf_function"],
}


def test_numpy_function_numpy_arguments(bench, device):
    # test_numpy_arguments: Python numbers as inputs, one int32 output.
    def plus(a, b):
        return a + b

    result = bench(tf.numpy_function, plus, [1, 2], tf.int32)
    # Upstream compares the value only: eagerly, with Python numbers as inputs, the result comes back
    # as int64 (TensorFlow 2.11 and 2.21 alike), not as the Tout given.
    assert result.dtype.is_integer
    assert int(result.numpy()) == 3


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64],
                         ids=lambda d: d.name)
def test_numpy_function_matmul(bench, device, dtype):
    # A single output type: the NumPy matmul of two tensors comes back as a tensor of that dtype.
    rng = np.random.default_rng(0)
    a_np = rng.integers(-3, 4, (16, 8)).astype(dtype.as_numpy_dtype)
    b_np = rng.integers(-3, 4, (8, 4)).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        a = tf.constant(a_np)
        b = tf.constant(b_np)
        result = bench(tf.numpy_function, lambda x, y: np.matmul(x, y), [a, b], dtype)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.numpy(), a_np @ b_np)


def test_numpy_function_multiple_outputs(bench, device):
    # A list of output types: a tuple of arrays of different dtypes.
    def stats(x):
        return x.sum().astype(np.float32), np.int64(x.size), (x > 0).astype(np.bool_)

    x_np = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        total, size, positive = bench(tf.numpy_function, stats, [x], [tf.float32, tf.int64, tf.bool])
    assert float(total.numpy()) == 6.0
    assert int(size.numpy()) == 4
    np.testing.assert_array_equal(positive.numpy(), x_np > 0)


def test_numpy_function_strings(bench, device):
    # Strings arrive as NumPy bytes objects and go back as a string tensor.
    def upper(x):
        return np.array([s.upper() for s in x.tolist()], dtype=object)

    x = tf.constant([b"brain", b"salad"])
    result = bench(tf.numpy_function, upper, [x], tf.string)
    assert result.numpy().tolist() == [b"BRAIN", b"SALAD"]


@pytest.mark.parametrize("stateful", [True, False], ids=["stateful", "stateless"])
def test_numpy_function_in_tf_function(bench, device, stateful):
    # test_stateful / test_stateless: called twice inside a tf.function, the stateful op runs twice,
    # the stateless one may be deduplicated.
    calls = []

    def plus(a, b):
        calls.append(1)
        return a + b

    @tf.function
    def twice(a, b):
        s1 = tf.numpy_function(plus, [a, b], tf.int32, stateful=stateful)
        s2 = tf.numpy_function(plus, [a, b], tf.int32, stateful=stateful)
        return s1 + s2

    with tf.device(device):
        a, b = tf.constant(1), tf.constant(2)
        total = twice(a, b)
        traced_calls = len(calls)
        result = bench(tf.numpy_function, plus, [a, b], tf.int32, stateful=stateful)
    assert int(total.numpy()) == 6
    assert traced_calls in ((2,) if stateful else (1, 2))
    assert int(result.numpy()) == 3


def test_numpy_function_large(bench, device):
    # A 1000 x 1000 array through a NumPy sort along the last axis.
    x_np = np.random.default_rng(1).standard_normal((1000, 1000)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tf.numpy_function, lambda v: np.sort(v, axis=-1), [x], tf.float32)
    np.testing.assert_array_equal(result.numpy(), np.sort(x_np, axis=-1))
