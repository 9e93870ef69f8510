"""tf.experimental.numpy.true_divide: cases adapted from tensorflow/python/ops/numpy_ops/np_math_ops_test.py (MathTest's match against NumPy: lists, scalars, arrays of several dtypes and broadcasting) and tensorflow/python/ops/numpy_ops/tests/np_test.py (LaxBackedNumpyTests.testOp for true_divide), plus division by zero; UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.experimental.numpy.true_divide", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/tests/np_test.py::LaxBackedNumpyTests::testOp": [
        "test_true_divide_same_dtype", "test_true_divide_python_values", "test_true_divide_broadcast",
        "test_true_divide_mixed_dtypes", "test_true_divide_by_zero", "test_true_divide_large",
        "test_true_divide_backward"],
}

tnp = tf.experimental.numpy


def _check(result, expected, check_dtype=True):
    assert tuple(result.shape) == np.shape(expected)
    if check_dtype:
        assert result.dtype == tf.dtypes.as_dtype(np.asarray(expected).dtype)
    tol = 1e-3 if result.dtype == tf.float16 else 1e-6
    np.testing.assert_allclose(np.asarray(result), expected, rtol=tol)


@pytest.mark.parametrize("np_dtype", [np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64],
                         ids=lambda d: d.__name__)
def test_true_divide_same_dtype(bench, device, np_dtype):
    # Integer division is true division into float64; float and complex types are kept.
    a_np = np.array([[1, 2, 3], [4, 5, 6]]).astype(np_dtype)
    b_np = np.array([[2, 4, 5], [8, 3, 7]]).astype(np_dtype)
    with tf.device(device):
        result = bench(tnp.true_divide, tf.constant(a_np), tf.constant(b_np))
    _check(result, np.true_divide(a_np, b_np))


@pytest.mark.parametrize("a,b", [([1, 2], [3, 4]), (5, 2), (7.5, [1.5, 2.5, -3.0])],
                         ids=["lists", "scalars", "scalar_and_list"])
def test_true_divide_python_values(bench, device, a, b):
    with tf.device(device):
        result = bench(tnp.true_divide, a, b)
    _check(result, np.true_divide(a, b))


@pytest.mark.parametrize("a_shape,b_shape", [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((5,), ())], ids=str)
def test_true_divide_broadcast(bench, device, a_shape, b_shape):
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-5, 5, a_shape)
    b_np = rng.uniform(1, 5, b_shape)
    with tf.device(device):
        result = bench(tnp.true_divide, tf.constant(a_np), tf.constant(b_np))
    _check(result, np.true_divide(a_np, b_np))


def test_true_divide_mixed_dtypes(bench, device):
    # float32 / float64 promotes to float64, as in NumPy.
    with tf.device(device):
        result = bench(tnp.true_divide, tf.constant([1.0, 2.0], tf.float32), tf.constant([3.0, 8.0], tf.float64))
    _check(result, np.true_divide(np.float32([1.0, 2.0]), np.float64([3.0, 8.0])))


def test_true_divide_by_zero(bench, device):
    # IEEE results: +inf, -inf and nan.
    with tf.device(device):
        result = bench(tnp.true_divide, tf.constant([1.0, -1.0, 0.0]), tf.constant([0.0, 0.0, 0.0]))
    values = np.asarray(result)
    assert values[0] == np.inf and values[1] == -np.inf and np.isnan(values[2])


def test_true_divide_large(bench, device):
    a_np = np.random.default_rng(1).standard_normal((1000, 1000)).astype(np.float32)
    b_np = np.random.default_rng(2).uniform(0.5, 2.0, (1000, 1000)).astype(np.float32)
    with tf.device(device):
        result = bench(tnp.true_divide, tf.constant(a_np), tf.constant(b_np))
    _check(result, np.true_divide(a_np, b_np))


# Upstream's tests compare values only; training differentiates both operands of a / b. Broadcast [3, 1] against
# [1, 4], so each gradient is summed back to its own shape; b stays away from zero.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
def test_true_divide_backward(backward, device, dtype):
    rng = np.random.default_rng(3)
    a_np = rng.uniform(-2, 2, (3, 1))
    b_np = rng.uniform(1, 2, (1, 4)) * rng.choice([-1, 1], (1, 4))
    if dtype.is_complex:
        a_np, b_np = a_np + 0.5j * a_np[::-1], b_np - 0.25j
    with tf.device(device):
        a, b = tf.constant(a_np, dtype=dtype), tf.constant(b_np, dtype=dtype)
        grads = backward(tnp.true_divide, a, b)
    assert [tuple(g.shape) for g in grads] == [(3, 1), (1, 4)]
    check_gradients(grads, tnp.true_divide, (a, b))
