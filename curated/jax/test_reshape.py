"""jax.numpy.reshape: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testReshape, testReshapeMethod) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReshapeGrad)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.reshape", decile=100, top20=True)

# Reshape moves data without arithmetic: shape, dtype and values must match exactly (assert_exact).


# Upstream's (arg_shape, out_shape) table, including 0-d, empty, int and -1 targets.
@pytest.mark.parametrize("arg_shape,out_shape", [
    ((), (1, 1, 1)),
    ((7, 0), (0, 42, 101)),
    ((3, 4), 12),
    ((3, 4), (12,)),
    ((3, 4), -1),
    ((2, 1, 4), (-1,)),
    ((2, 2, 4), (2, 8)),
])
def test_reshape_shapes(bench, device, arg_shape, out_shape):
    x = rand_default(np.random.default_rng(0), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape)
    assert_exact(result, np.reshape(x, out_shape))


@pytest.mark.parametrize("arg_shape,out_shape", [((3, 4), (2, 6)), ((2, 2, 4), (4, -1)), ((2, 3, 4), (24,))])
def test_reshape_order_f(bench, device, arg_shape, out_shape):
    # Fortran order reads and writes elements with the first index varying fastest.
    x = rand_default(np.random.default_rng(1), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape, order="F")
    assert_exact(result, np.reshape(x, out_shape, order="F"))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_reshape_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (2, 2, 4), dtype)
    result = bench(jnp.reshape, jax.device_put(x, device), (2, 8))
    assert_exact(result, np.reshape(x, (2, 8)))


def test_reshape_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), (256, 64, 64))
    assert_exact(result, np.reshape(x, (256, 64, 64)))


def test_reshape_grad(bench, device):
    # The reverse-mode cotangent of a reshape is the cotangent reshaped back.
    rng = np.random.default_rng(4)
    x = rand_default(rng, (2, 3, 4), np.float32)
    weights = rand_default(rng, (6, 4), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.reshape(a, (6, 4)) * weights))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), weights.reshape(2, 3, 4), rtol=1e-6)
