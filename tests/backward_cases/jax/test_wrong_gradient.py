"""A function whose forward is right and whose gradient is 1e-3 off outside float64, for tests/test_backward.py (not
a curated function: it lives under tests/, beside copies of the project's curated/jax helpers): sin with a custom vjp,
what a device's backward that diverges looks like while the float64 reference and check_grads stay right."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients

pytestmark = pytest.mark.function("jax.numpy.sin")


@jax.custom_vjp
def off_in_float32(x):
    return jnp.sin(x)


def _forward(x):
    return jnp.sin(x), x


def _backward(x, g):
    grad = g * jnp.cos(x)
    return (grad if grad.dtype == jnp.float64 else grad * (1 + 1e-3),)


off_in_float32.defvjp(_forward, _backward)


def _x(device):
    return jax.device_put(np.linspace(-3.0, 3.0, 32, dtype=np.float32), device)


def test_forward(bench, device):
    x = _x(device)
    np.testing.assert_allclose(np.asarray(bench(off_in_float32, x)), np.sin(np.asarray(x)), rtol=1e-6, atol=1e-6)


def test_backward_off_in_float32(backward, device):
    x = _x(device)
    check_gradients(backward(off_in_float32, x), off_in_float32, (x,))
