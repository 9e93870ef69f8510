"""jax.lax.stop_gradient: cases adapted from tests/api_test.py (APITest.test_stop_gradient: the value passes through, its gradient is zero, pytrees and integer inputs are accepted; test_stop_gradient_jvp) and tests/lax_autodiff_test.py."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.stop_gradient", decile=80, top20=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.complex64, np.int32, np.bool_])
def test_stop_gradient_identity(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    assert result.shape == x.shape and np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(as_numpy(result), as_numpy(x))


def test_stop_gradient_pytree(bench, device):
    rng = np.random.default_rng(1)
    tree = {"a": rand_default(rng, (2,), np.float32),
            "b": (rand_default(rng, (3, 1), np.int32), rand_default(rng, (), np.float32))}
    result = bench(lax.stop_gradient, jax.device_put(tree, device))
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
    x = rand_default(np.random.default_rng(2), (1024, 1024), np.float32)
    result = bench(lax.stop_gradient, jax.device_put(x, device))
    np.testing.assert_array_equal(np.asarray(result), x)
