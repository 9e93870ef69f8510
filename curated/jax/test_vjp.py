"""jax.vjp: cases adapted from tests/core_test.py (CoreTest.test_vjp over its CallSpec functions: pytree inputs and outputs, jitted functions), tests/api_test.py (APITest.test_vjp_mismatched_arguments and test_vjp_bad_cotangent_shape: mismatched cotangents raise; test_vjp_fun_jit; has_aux) and tests/lax_autodiff_test.py (vector-Jacobian products checked against analytic derivatives); the vjp function's own derivative (reverse over reverse, as check_grads of order 2 takes it) is the backward case; UPSTREAM_TESTS below maps each to the cases here.

jax.vjp returns (primal output, vjp function); bench times the vjp call itself (under jit where the
harness can trace it); each case then applies the returned function to a cotangent and checks it."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients

pytestmark = pytest.mark.function("jax.vjp", decile=60, top20=False)

UPSTREAM_TESTS = {
    "tests/core_test.py::CoreTest::test_vjp": [
        "test_vjp_elementwise", "test_vjp_matmul", "test_vjp_pytree", "test_vjp_has_aux", "test_vjp_large",
        "test_vjp_backward"],
    "tests/api_test.py::APITest::test_vjp_fun_jit": (
        "passes the vjp function into and out of jit; the harness jits the timed call, and test_vjp_of_jit "
        "takes the vjp of a jitted function"
    ),
    "tests/api_test.py::APITest::test_vjp_mismatched_arguments": ["test_vjp_mismatched_cotangent_raises"],
    "tests/api_test.py::APITest::test_vjp_bad_cotangent_shape": ["test_vjp_mismatched_cotangent_raises"],
}


def _rand(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _f(x, y):
    return jnp.sin(x) * y


@pytest.mark.parametrize("shape", [(), (3,), (2, 4), (1, 5, 3)])
def test_vjp_elementwise(bench, device, shape):
    rng = np.random.default_rng(0)
    x, y, ct = _rand(rng, shape), _rand(rng, shape), _rand(rng, shape)
    out, f_vjp = bench(jax.vjp, _f, jax.device_put(x, device), jax.device_put(y, device))
    assert out.shape == shape and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * y, rtol=1e-6, atol=1e-6)
    gx, gy = f_vjp(jax.device_put(ct, device))
    np.testing.assert_allclose(np.asarray(gx), ct * np.cos(x) * y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), ct * np.sin(x), rtol=1e-5, atol=1e-6)


def test_vjp_matmul(bench, device):
    rng = np.random.default_rng(1)
    a, b, ct = _rand(rng, (4, 3)), _rand(rng, (3, 5)), _rand(rng, (4, 5))
    out, f_vjp = bench(jax.vjp, jnp.matmul, jax.device_put(a, device), jax.device_put(b, device))
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5, atol=1e-5)
    ga, gb = f_vjp(ct)
    np.testing.assert_allclose(np.asarray(ga), ct @ b.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gb), a.T @ ct, rtol=1e-5, atol=1e-5)


def test_vjp_pytree(bench, device):
    # Pytree inputs and outputs: the cotangent has the output's structure, the result the inputs'.
    rng = np.random.default_rng(2)
    params = {"w": _rand(rng, (3, 2)), "b": _rand(rng, (2,))}
    x = _rand(rng, (4, 3))

    def model(p, a):
        h = a @ p["w"] + p["b"]
        return {"out": jnp.tanh(h), "sum": h.sum()}

    out, f_vjp = bench(jax.vjp, model, jax.device_put(params, device), jax.device_put(x, device))
    h = x @ params["w"] + params["b"]
    np.testing.assert_allclose(np.asarray(out["out"]), np.tanh(h), rtol=1e-5, atol=1e-6)
    ct = {"out": np.ones((4, 2), np.float32), "sum": np.float32(0.0)}
    gp, gx = f_vjp(ct)
    dh = 1 - np.tanh(h) ** 2
    np.testing.assert_allclose(np.asarray(gp["w"]), x.T @ dh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gp["b"]), dh.sum(0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gx), dh @ params["w"].T, rtol=1e-4, atol=1e-5)


def test_vjp_has_aux(bench, device):
    rng = np.random.default_rng(3)
    x = _rand(rng, (5,))
    out, f_vjp, aux = bench(jax.vjp, lambda a: (jnp.sum(a ** 2), {"mean": a.mean()}),
                            jax.device_put(x, device), has_aux=True)
    np.testing.assert_allclose(float(out), float(np.sum(x.astype(np.float64) ** 2)), rtol=1e-5)
    np.testing.assert_allclose(float(aux["mean"]), float(x.mean()), rtol=1e-5, atol=1e-6)
    (g,) = f_vjp(np.float32(1.0))
    np.testing.assert_allclose(np.asarray(g), 2 * x, rtol=1e-6)


def test_vjp_of_jit(bench, device):
    rng = np.random.default_rng(4)
    x = _rand(rng, (6,))
    out, f_vjp = bench(jax.vjp, jax.jit(lambda a: jnp.exp(a) * 2), jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(out), 2 * np.exp(x), rtol=1e-6)
    (g,) = f_vjp(np.ones(6, np.float32))
    np.testing.assert_allclose(np.asarray(g), 2 * np.exp(x), rtol=1e-6)


def test_vjp_mismatched_cotangent_raises(bench, device):
    # test_vjp_mismatched_arguments: a cotangent of the wrong shape is rejected.
    x = jax.device_put(np.ones(3, np.float32), device)
    out, f_vjp = bench(jax.vjp, jnp.sin, x)
    np.testing.assert_allclose(np.asarray(out), np.sin(np.ones(3)), rtol=1e-6)
    with pytest.raises((ValueError, TypeError)):
        f_vjp(np.ones(4, np.float32))


def test_vjp_large(bench, device):
    rng = np.random.default_rng(5)
    x = _rand(rng, (1024, 1024))
    out, f_vjp = bench(jax.vjp, jnp.tanh, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(out), np.tanh(x), rtol=1e-5, atol=1e-6)
    (g,) = f_vjp(jnp.ones_like(out))
    np.testing.assert_allclose(np.asarray(g), 1 - np.tanh(x.astype(np.float64)) ** 2, rtol=1e-4, atol=1e-5)


# The derivative of the vjp function's output (x's and y's cotangents) with respect to x, y and the cotangent
# itself: second derivatives of sin(x) y, to order 2, in the floating dtypes a device trains in; against the CPU's
# float64 gradient, with check_grads in float64 on the CPU.
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_vjp_backward(backward, device, dtype):
    rng = np.random.default_rng(6)
    x, y, ct = (jax.device_put(_rand(rng, (3, 4), dtype), device) for _ in range(3))
    fn = lambda a, b, c: jax.vjp(_f, a, b)[1](c)  # noqa: E731
    grads = backward(fn, x, y, ct)
    check_gradients(grads, fn, (x, y, ct), tol=5e-2 if dtype is jnp.bfloat16 else None, order=2)
