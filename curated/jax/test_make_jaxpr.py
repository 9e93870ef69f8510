"""jax.make_jaxpr: cases adapted from tests/api_test.py (APITest / JaxprTest: test_make_jaxpr_static_argnums, test_make_jaxpr_return_shape, test_make_jaxpr_axis_env and the printed-jaxpr checks) and tests/core_test.py (JaxprTypeChecks.test_check_jaxpr_correct and test_check_jaxpr_cond_correct: the jaxprs make_jaxpr builds, with control flow). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

make_jaxpr(fun) returns a tracing function; bench times that function's call on the case's inputs
(the tracing is the work), which returns a ClosedJaxpr rather than arrays, so it is timed eagerly."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.make_jaxpr", decile=60, top20=False,
                                  backward="returns a jaxpr (a Python object), not an array: nothing to differentiate")

UPSTREAM_TESTS = {
    "tests/api_test.py::JaxprTest::test_make_jaxpr_static_argnums": ["test_make_jaxpr_static_argnums"],
    "tests/api_test.py::JaxprTest::test_make_jaxpr_return_shape": ["test_make_jaxpr_return_shape"],
    "tests/api_test.py::JaxprTest::test_make_jaxpr_axis_env": ["test_make_jaxpr_axis_env"],
    "tests/core_test.py::JaxprTypeChecks::test_check_jaxpr_correct": [
        "test_make_jaxpr_simple", "test_make_jaxpr_pytree_args", "test_make_jaxpr_large"],
    "tests/core_test.py::JaxprTypeChecks::test_check_jaxpr_cond_correct": ["test_make_jaxpr_control_flow"],
}


def _primitives(closed):
    return [eqn.primitive.name for eqn in closed.jaxpr.eqns]


def _evaluate(closed, *args):
    # Running the jaxpr must give what the function gives.
    return jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


@pytest.mark.parametrize("shape,dtype", [((3,), np.float32), ((2, 4), np.float16), ((), np.float32), ((5,), np.int32)])
def test_make_jaxpr_simple(bench, device, shape, dtype):
    fun = lambda x: jnp.sin(x) * 2 if np.issubdtype(dtype, np.floating) else x * 2 + 1  # noqa: E731
    x = jax.device_put(np.ones(shape, dtype), device)
    closed = bench(jax.make_jaxpr(fun), x)
    assert [(a.shape, np.dtype(a.dtype)) for a in closed.in_avals] == [(shape, np.dtype(dtype))]
    assert [(a.shape, np.dtype(a.dtype)) for a in closed.out_avals] == [(shape, np.dtype(dtype))]
    assert _primitives(closed) == (["sin", "mul"] if np.issubdtype(dtype, np.floating) else ["mul", "add"])
    (out,) = _evaluate(closed, x)
    np.testing.assert_allclose(np.asarray(out, np.float32), np.asarray(fun(x), np.float32), rtol=1e-6)


def test_make_jaxpr_static_argnums(bench, device):
    # A static argument is baked into the jaxpr: only the array is an input.
    def fun(x, n):
        for _ in range(n):
            x = x + 1.0
        return x

    x = jax.device_put(np.zeros(4, np.float32), device)
    closed = bench(jax.make_jaxpr(fun, static_argnums=1), x, 3)
    assert len(closed.jaxpr.invars) == 1
    assert _primitives(closed) == ["add"] * 3
    (out,) = _evaluate(closed, x)
    np.testing.assert_array_equal(np.asarray(out), np.full(4, 3.0, np.float32))


def test_make_jaxpr_return_shape(bench, device):
    # return_shape=True also gives the output's shape/dtype structure.
    x = jax.device_put(np.ones((2, 3), np.float32), device)
    closed, shape = bench(jax.make_jaxpr(lambda a: (a, a.sum(axis=0)), return_shape=True), x)
    assert isinstance(shape, tuple) and len(shape) == 2
    assert (shape[0].shape, shape[0].dtype) == ((2, 3), np.float32)
    assert (shape[1].shape, shape[1].dtype) == ((3,), np.float32)
    assert len(closed.out_avals) == 2


def test_make_jaxpr_pytree_args(bench, device):
    # Pytree inputs are flattened into one input variable per leaf.
    params = {"w": jax.device_put(np.ones((3, 2), np.float32), device),
              "b": jax.device_put(np.zeros(2, np.float32), device)}
    x = jax.device_put(np.ones((4, 3), np.float32), device)
    closed = bench(jax.make_jaxpr(lambda p, a: jnp.tanh(a @ p["w"] + p["b"])), params, x)
    assert len(closed.jaxpr.invars) == 3
    assert "dot_general" in _primitives(closed) and "tanh" in _primitives(closed)
    leaves = jax.tree_util.tree_leaves((params, x))
    (out,) = _evaluate(closed, *leaves)
    np.testing.assert_allclose(np.asarray(out), np.tanh(np.full((4, 2), 3.0)), rtol=1e-6)


def test_make_jaxpr_axis_env(bench, device):
    # test_make_jaxpr_axis_env: a collective over a named axis traces given the axis size.
    x = jax.device_put(np.ones(3, np.float32), device)
    closed = bench(jax.make_jaxpr(lambda a: lax.psum(a, "i"), axis_env=[("i", 4)]), x)
    assert "psum" in _primitives(closed)
    assert closed.out_avals[0].shape == (3,)


def test_make_jaxpr_control_flow(bench, device):
    # Structured control flow appears as one higher-order primitive.
    x = jax.device_put(np.float32(2.0), device)
    closed = bench(jax.make_jaxpr(lambda a: lax.cond(a > 0, jnp.sin, jnp.cos, a)), x)
    assert "cond" in _primitives(closed)
    (out,) = _evaluate(closed, x)
    np.testing.assert_allclose(float(out), np.sin(2.0), rtol=1e-6)


def test_make_jaxpr_large(bench, device):
    # A long chain of operations: one equation per primitive application.
    def fun(x):
        for i in range(200):
            x = x * 1.001 + i
        return x

    x = jax.device_put(np.ones((64, 64), np.float32), device)
    closed = bench(jax.make_jaxpr(fun), x)
    assert _primitives(closed) == ["mul", "add"] * 200
    (out,) = _evaluate(closed, x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(fun(x)), rtol=1e-5)
