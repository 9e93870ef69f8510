"""jax.lax.stop_gradient: cases adapted from tests/lax_autodiff_test.py (LaxAutodiffTest.testStopGradient: the gradient of sin(x) * cos(stop_gradient(x)) is that of sin(x) * cos(y) in x alone, to the second derivative; a pytree's stopped leaf has gradient zero), tests/lax_test.py (LaxTest.test_stop_gradient_on_ints: integer values pass through) and tests/jet_test.py (JetTest.test_stopgrad: the higher-order terms of stop_gradient are zero; here its first-order one, the JVP's tangent); the value passes through in every dtype, in pytrees. UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import as_numpy, rand_default, tolerances, wide
from jax import lax
from portability_harness.backward import cotangent

pytestmark = pytest.mark.function("jax.lax.stop_gradient", decile=80, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testStopGradient": [
        "test_stop_gradient_backward", "test_stop_gradient_zero_backward", "test_stop_gradient_pytree"],
    "tests/lax_test.py::LaxTest::test_stop_gradient_on_ints": ["test_stop_gradient_identity",
                                                              "test_stop_gradient_pytree"],
    "tests/jet_test.py::JetTest::test_stopgrad": ["test_stop_gradient_jvp_zero_tangent"],
}


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


# testStopGradient: d/dx [sin(x) cos(stop_gradient(x))] = cos(x) cos(x), the path through stop_gradient contributing
# nothing, to order 2; in the dtypes a device trains in, against the CPU's float64 gradient and against cos(x)**2
# times the cotangent. No finite differences: they see through stop_gradient (it is the identity in value), which is
# the point of it.
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2)


def _sin_cos_stopped(x):
    return lax.sin(x) * lax.cos(lax.stop_gradient(x))


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_stop_gradient_backward(backward, device, dtype):
    x = jax.device_put(rand_default(np.random.default_rng(3), (3, 4), dtype), device)
    grads = backward(_sin_cos_stopped, x)
    tol = _GRAD_TOL[np.dtype(dtype)]
    check_gradients(grads, _sin_cos_stopped, (x,), tol=tol, order=2, finite_differences=False)
    expected = np.cos(wide(x)) ** 2 * cotangent(0, x.shape, False)
    np.testing.assert_allclose(wide(grads[0]), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_stop_gradient_zero_backward(backward, device, dtype):
    # A stopped pytree's leaf has gradient exactly zero.
    x = jax.device_put(rand_default(np.random.default_rng(4), (3, 4), dtype), device)
    stopped = lambda a: lax.stop_gradient({"foo": a})["foo"]  # noqa: E731
    grads = backward(stopped, x)
    check_gradients(grads, stopped, (x,), finite_differences=False)
    assert grads[0].shape == x.shape and not np.asarray(grads[0], np.float32).any()
