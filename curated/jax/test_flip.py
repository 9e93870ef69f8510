"""jax.numpy.flip: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testFlip over shapes, dtypes and every axis incl. None and tuples)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.flip", decile=70, top20=False)

# flip only moves data: exact values, same dtype and shape (assert_exact).


@pytest.mark.parametrize("shape,axis", [
    ((4,), 0), ((4,), None), ((3, 4), 0), ((3, 4), -1), ((3, 4), None), ((2, 1, 4), 1),
    ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3, 1)), ((0, 4), 0), ((3, 0), None), ((), None),
])
def test_flip_axes(bench, device, shape, axis):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), axis)
    assert_exact(result, np.flip(x, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.complex64, np.bool_])
def test_flip_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (3, 5), dtype)
    result = bench(jnp.flip, jax.device_put(x, device), 1)
    assert_exact(result, np.flip(x, 1))


def test_flip_twice_is_identity(bench, device):
    x = rand_default(np.random.default_rng(2), (4, 6), np.float32)
    x_dev = jax.device_put(x, device)
    result = bench(jnp.flip, x_dev)
    assert_exact(jnp.flip(result), x)
    assert_exact(result, x[::-1, ::-1])


def test_flip_grad(bench, device):
    # The cotangent of flip is flipped back: d/dx sum(w * flip(x)) = flip(w).
    rng = np.random.default_rng(3)
    x, w = rand_default(rng, (3, 4), np.float32), rand_default(rng, (3, 4), np.float32)
    grad_fn = jax.grad(lambda a, b: jnp.sum(b * jnp.flip(a, 0)))
    result = bench(grad_fn, jax.device_put(x, device), jax.device_put(w, device))
    np.testing.assert_array_equal(np.asarray(result), np.flip(w, 0))


def test_flip_large(bench, device):
    x = rand_default(np.random.default_rng(4), (1024, 1024), np.float32)
    result = bench(jnp.flip, jax.device_put(x, device), 0)
    assert_exact(result, np.flip(x, 0))
