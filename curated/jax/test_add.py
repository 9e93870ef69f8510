"""jax.numpy.add: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "add", incl. its Python-scalar operands) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for add)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import DEFAULT_TOL, as_numpy, assert_close, rand_default

pytestmark = pytest.mark.function("jax.numpy.add", decile=100, top20=True)


def _check(result, expected):
    # Upstream's default tolerance table (jtu.default_tolerance); integers and bool are exact.
    expected = np.asarray(expected)
    assert_close(result, expected, DEFAULT_TOL.get(expected.dtype, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_add_dtypes(bench, device, dtype):
    rng = np.random.default_rng(0)
    x, y = rand_default(rng, (3, 4), dtype), rand_default(rng, (3, 4), dtype)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    # NumPy adds bfloat16 through float32; rounding the exact f32 sum back gives the bf16 answer.
    expected = np.add(as_numpy(x), as_numpy(y)).astype(np.dtype(dtype))
    _check(result, expected)


@pytest.mark.parametrize("x_shape,y_shape", [
    ((), (3, 4)),          # 0-d operand broadcasts
    ((3, 1), (1, 4)),      # both operands broadcast
    ((2, 1, 4), (4,)),     # rank promotion
    ((0, 4), (0, 4)),      # empty
    ((3, 0), (1,)),        # empty with broadcasting
])
def test_add_broadcasting(bench, device, x_shape, y_shape):
    rng = np.random.default_rng(1)
    x, y = rand_default(rng, x_shape, np.float32), rand_default(rng, y_shape, np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_add_python_scalar(bench, device, dtype):
    # Upstream's PYTHON_SCALAR_SHAPE: a Python scalar is weakly typed and keeps the array dtype.
    rng = np.random.default_rng(2)
    x = rand_default(rng, (5,), dtype)
    scalar = 2 if np.issubdtype(dtype, np.integer) else 2.5
    result = bench(jnp.add, jax.device_put(x, device), scalar)
    _check(result, (x + np.asarray(scalar, dtype)).astype(dtype))


def test_add_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = rand_default(rng, (1024, 1024), np.float32), rand_default(rng, (1024, 1024), np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


def test_add_grad(bench, device):
    # Upstream checks reverse-mode grads of add; with broadcasting the cotangent of the
    # broadcast operand is summed over the broadcast axes.
    rng = np.random.default_rng(4)
    x, y = rand_default(rng, (3, 1), np.float32), rand_default(rng, (1, 4), np.float32)
    grad_fn = jax.grad(lambda a, b: jnp.sum(jnp.add(a, b)), argnums=(0, 1))
    gx, gy = bench(grad_fn, jax.device_put(x, device), jax.device_put(y, device))
    np.testing.assert_allclose(np.asarray(gx), np.full((3, 1), 4.0, np.float32), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), np.full((1, 4), 3.0, np.float32), rtol=1e-6)
