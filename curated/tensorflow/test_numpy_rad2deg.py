"""tf.experimental.numpy.rad2deg: cases adapted from tensorflow/python/ops/numpy_ops/np_math_ops_test.py (MathTest's match against NumPy, rtol 1e-6) and tensorflow/python/ops/numpy_ops/tests/np_test.py (LaxBackedNumpyTests.testOp for rad2deg over the float dtypes), on float tensors and arrays; UPSTREAM_TESTS below maps each to the cases here.

rad2deg is implemented as x * (180 / pi) without converting its input, so Python lists and integer
tensors are refused (TypeError) in TensorFlow 2.11 and 2.21 alike; the cases keep to float inputs."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.experimental.numpy.rad2deg", decile=40, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/tests/np_test.py::LaxBackedNumpyTests::testOp": [
        "test_rad2deg_python_float", "test_rad2deg_float_tensors", "test_rad2deg_large", "test_rad2deg_backward"],
}

tnp = tf.experimental.numpy


def _check(result, expected, dtype=None):
    assert tuple(result.shape) == np.shape(expected)
    if dtype is not None:
        assert result.dtype == tf.dtypes.as_dtype(dtype)
    else:
        assert result.dtype.is_floating
    np.testing.assert_allclose(np.asarray(result).astype(np.float64), np.asarray(expected, np.float64),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("value,expected", [(np.pi, 180.0), (-np.pi / 2, -90.0), (0.0, 0.0)],
                         ids=["pi", "minus_half_pi", "zero"])
def test_rad2deg_python_float(bench, device, value, expected):
    # rad2deg is x * (180 / pi) with no conversion: a Python float gives a Python float.
    result = bench(tnp.rad2deg, value)
    assert isinstance(result, float)
    assert abs(result - expected) < 1e-12


@pytest.mark.parametrize("np_dtype", [np.float16, np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(101,), (1, 101), (3, 4, 5)], ids=str)
def test_rad2deg_float_tensors(bench, device, np_dtype, shape):
    # Float tensors keep their dtype. (A NumPy array input would be multiplied by NumPy itself.)
    x_np = np.linspace(-2 * np.pi, 2 * np.pi, int(np.prod(shape))).reshape(shape).astype(np_dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tnp.rad2deg, x)
    expected = np.rad2deg(x_np.astype(np.float64))
    assert isinstance(result, tf.Tensor)
    assert tuple(result.shape) == shape
    assert result.dtype == tf.dtypes.as_dtype(np_dtype)
    rtol = 1e-3 if np_dtype == np.float16 else 1e-6
    np.testing.assert_allclose(np.asarray(result).astype(np.float64), expected, rtol=rtol, atol=rtol * 360)


def test_rad2deg_large(bench, device):
    x_np = np.random.default_rng(0).uniform(-10, 10, (1000, 1000))
    with tf.device(device):
        result = bench(tnp.rad2deg, tf.constant(x_np))
    _check(result, np.rad2deg(x_np), np.float64)


# Upstream's tests compare values only; training differentiates rad2deg all the same: the gradient is the cotangent
# times 180 / pi.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
def test_rad2deg_backward(backward, device, dtype):
    x_np = np.linspace(-2 * np.pi, 2 * np.pi, 12).reshape(3, 4)
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(tnp.rad2deg, x)
    check_gradients(grads, tnp.rad2deg, (x,))
