"""jax.numpy.reshape: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testReshape, testReshapeMethod) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReshapeGrad)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.reshape", decile=100, top20=True)


def _rand(rng, shape, dtype):
    """Like upstream's rand_default: normal values scaled by 3 (small ints for int types)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _check(result, expected):
    # Reshape moves data without arithmetic: shape, dtype and values must match exactly.
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    host = np.asarray(result)
    if expected.dtype == jnp.bfloat16:   # compare bfloat16 through an exact float32 view
        host, expected = host.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(host, expected)


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
    x = _rand(np.random.default_rng(0), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape)
    _check(result, np.reshape(x, out_shape))


@pytest.mark.parametrize("arg_shape,out_shape", [((3, 4), (2, 6)), ((2, 2, 4), (4, -1)), ((2, 3, 4), (24,))])
def test_reshape_order_f(bench, device, arg_shape, out_shape):
    # Fortran order reads and writes elements with the first index varying fastest.
    x = _rand(np.random.default_rng(1), arg_shape, np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), out_shape, order="F")
    _check(result, np.reshape(x, out_shape, order="F"))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_reshape_dtypes(bench, device, dtype):
    x = _rand(np.random.default_rng(2), (2, 2, 4), dtype)
    result = bench(jnp.reshape, jax.device_put(x, device), (2, 8))
    _check(result, np.reshape(x, (2, 8)))


def test_reshape_large(bench, device):
    x = _rand(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.reshape, jax.device_put(x, device), (256, 64, 64))
    _check(result, np.reshape(x, (256, 64, 64)))


def test_reshape_grad(bench, device):
    # The reverse-mode cotangent of a reshape is the cotangent reshaped back.
    rng = np.random.default_rng(4)
    x = _rand(rng, (2, 3, 4), np.float32)
    weights = _rand(rng, (6, 4), np.float32)
    grad_fn = jax.grad(lambda a: jnp.sum(jnp.reshape(a, (6, 4)) * weights))
    result = bench(grad_fn, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(result), weights.reshape(2, 3, 4), rtol=1e-6)
