"""jax.lax.stop_gradient: cases adapted from tests/api_test.py (APITest.test_stop_gradient: the value passes through, its gradient is zero, pytrees and integer inputs are accepted; test_stop_gradient_jvp) and tests/lax_autodiff_test.py."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.lax.stop_gradient", decile=80, top20=False)


def _rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _np(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.complex64, np.int32, np.bool_])
def test_stop_gradient_identity(bench, device, dtype):
    x = _rand(np.random.default_rng(0), (3, 4), dtype)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    assert result.shape == x.shape and np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(_np(result), _np(x))


def test_stop_gradient_pytree(bench, device):
    rng = np.random.default_rng(1)
    tree = {"a": _rand(rng, (2,), np.float32), "b": (_rand(rng, (3, 1), np.int32), _rand(rng, (), np.float32))}
    result = bench(lax.stop_gradient, jax.tree_util.tree_map(lambda a: jax.device_put(a, device), tree))
    assert jax.tree_util.tree_structure(result) == jax.tree_util.tree_structure(tree)
    for r, e in zip(jax.tree_util.tree_leaves(result), jax.tree_util.tree_leaves(tree)):
        np.testing.assert_array_equal(np.asarray(r), e)


def test_stop_gradient_blocks_grad(bench, device):
    # test_stop_gradient: d/dx [x^2 + stop_gradient(x^2)] = 2x.
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    np.testing.assert_array_equal(np.asarray(result), x)
    g = jax.grad(lambda a: jnp.sum(a ** 2 + lax.stop_gradient(a ** 2)))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * x, rtol=1e-6)
    assert float(jax.grad(lambda a: lax.stop_gradient(a) * 3.0)(2.0)) == 0.0


def test_stop_gradient_jvp_zero_tangent(bench, device):
    x = np.arange(4, dtype=np.float32)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    np.testing.assert_array_equal(np.asarray(result), x)
    primal, tangent = jax.jvp(lax.stop_gradient, (x,), (np.ones(4, np.float32),))
    np.testing.assert_array_equal(np.asarray(primal), x)
    np.testing.assert_array_equal(np.asarray(tangent), np.zeros(4, np.float32))


def test_stop_gradient_large(bench, device):
    x = _rand(np.random.default_rng(2), (1024, 1024), np.float32)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    np.testing.assert_array_equal(np.asarray(result), x)
