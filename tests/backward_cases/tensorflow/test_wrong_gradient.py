"""A function whose forward is right and whose gradient is 1e-3 off outside float64, for tests/test_backward.py (not
a curated function: it lives under tests/, beside copies of the project's curated/tensorflow helpers): sin with a
custom gradient, what a device's backward that diverges looks like while the float64 reference stays right."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.math.sin")


@tf.custom_gradient
def off_in_float32(x):
    def gradient(g):
        grad = g * tf.cos(x)
        return grad if grad.dtype == tf.float64 else grad * (1 + 1e-3)

    return tf.sin(x), gradient


def _x(device):
    with tf.device(device):
        return tf.constant(np.linspace(-3.0, 3.0, 32), dtype=tf.float32)


def test_forward(bench, device):
    x = _x(device)
    np.testing.assert_allclose(bench(off_in_float32, x).numpy(), np.sin(x.numpy()), rtol=1e-6, atol=1e-6)


def test_backward_off_in_float32(backward, device):
    x = _x(device)
    check_gradients(backward(off_in_float32, x), off_in_float32, (x,))
