"""jax.interpreters.partial_eval.trace_to_jaxpr_dynamic: cases adapted from tests/core_test.py (CoreTest.test_jit over its CallSpec functions, such as simple_fun, elementwise and pytree-shaped, staged by core_call from input avals; JaxprTypeChecks: core.check_jaxpr accepts the staged jaxprs, including cond) and tests/api_test.py (the jaxprs make_jaxpr builds with this tracer: primitives, consts, out avals). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

trace_to_jaxpr_dynamic takes a lu.WrappedFun and a list of input avals and returns (jaxpr, out_avals,
consts[, ...]) — Python objects, so the harness times the call eagerly."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import shaped_aval
from jax import lax
from jax.interpreters import partial_eval as pe

pytestmark = pytest.mark.function("jax.interpreters.partial_eval.trace_to_jaxpr_dynamic", decile=10, top20=False,
                                  paper_label="jax._src.interpreters.partial_eval.trace_to_jaxpr_dynamic",
                                  backward="returns a jaxpr, its output avals and constants (Python objects), not "
                                           "arrays: nothing to differentiate")

UPSTREAM_TESTS = {
    "tests/core_test.py::CoreTest::test_jit": [
        "test_trace_elementwise", "test_trace_multiple_inputs_outputs", "test_trace_closed_over_constant",
        "test_trace_long_chain"],
    "tests/core_test.py::JaxprTypeChecks::test_check_jaxpr_cond_correct": ["test_trace_control_flow"],
}


def _wrap(f, n_args):
    """A WrappedFun of f (flat positional arrays in, a list of arrays out)."""
    from jax._src import linear_util as lu

    flat = lambda *args: list(f(*args))  # noqa: E731
    try:
        from jax._src import api_util

        dbg = api_util.debug_info("curated", flat, (None,) * n_args, {})
        return lu.wrap_init(flat, debug_info=dbg)
    except (ImportError, AttributeError, TypeError):
        return lu.wrap_init(flat)  # versions before debug_info was required


def _trace(bench, f, avals):
    result = bench(pe.trace_to_jaxpr_dynamic, _wrap(f, len(avals)), avals)
    jaxpr, out_avals, consts = result[:3]  # later elements (attrs) differ across versions
    return jaxpr, list(out_avals), list(consts)


def _check_jaxpr(jaxpr):
    try:
        from jax.extend.core import check_jaxpr  # where newer versions keep it
    except ImportError:
        check_jaxpr = jax.core.check_jaxpr
    check_jaxpr(jaxpr)


def _prims(jaxpr):
    _check_jaxpr(jaxpr)  # JaxprTypeChecks: the staged jaxpr type-checks
    return [e.primitive.name for e in jaxpr.eqns]


@pytest.mark.parametrize("shape,dtype", [((3,), np.float32), ((2, 4), np.float16), ((), np.float32), ((5,), np.int32)])
def test_trace_elementwise(bench, device, shape, dtype):
    floating = np.issubdtype(dtype, np.floating)
    f = (lambda x: (jnp.sin(x) * 2,)) if floating else (lambda x: (x * 2 + 1,))
    jaxpr, out_avals, consts = _trace(bench, f, [shaped_aval(shape, dtype)])
    assert len(jaxpr.invars) == 1 and len(jaxpr.outvars) == 1
    assert [(a.shape, np.dtype(a.dtype)) for a in out_avals] == [(shape, np.dtype(dtype))]
    assert _prims(jaxpr) == (["sin", "mul"] if floating else ["mul", "add"])
    assert consts == []
    x = jax.device_put(np.ones(shape, dtype), device)
    (out,) = jax.core.eval_jaxpr(jaxpr, consts, x)
    np.testing.assert_allclose(np.asarray(out, np.float32), np.asarray(f(x)[0], np.float32), rtol=1e-6)


def test_trace_multiple_inputs_outputs(bench, device):
    f = lambda a, b: (a @ b, jnp.sum(a, axis=0))  # noqa: E731
    jaxpr, out_avals, consts = _trace(bench, f, [shaped_aval((4, 3)), shaped_aval((3, 2))])
    assert [a.shape for a in out_avals] == [(4, 2), (3,)]
    assert "dot_general" in _prims(jaxpr) and "reduce_sum" in _prims(jaxpr)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((3, 2)).astype(np.float32)
    out = jax.core.eval_jaxpr(jaxpr, consts, jax.device_put(a, device), jax.device_put(b, device))
    np.testing.assert_allclose(np.asarray(out[0]), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(out[1]), a.sum(0), rtol=1e-5, atol=1e-6)


def test_trace_closed_over_constant(bench, device):
    # A closed-over array becomes a constant of the jaxpr (a constvar with its value in consts).
    c = jax.device_put(np.arange(6, dtype=np.float32), device)
    jaxpr, out_avals, consts = _trace(bench, lambda x: (x + c,), [shaped_aval((6,))])
    assert out_avals[0].shape == (6,)
    # Newer versions may keep small constants inline in the equations instead of in consts.
    assert len(consts) == len(jaxpr.constvars) <= 1
    x = jax.device_put(np.ones(6, np.float32), device)
    (out,) = jax.core.eval_jaxpr(jaxpr, consts, x)
    np.testing.assert_array_equal(np.asarray(out), np.arange(6, dtype=np.float32) + 1)


def test_trace_control_flow(bench, device):
    f = lambda x: (lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x),)  # noqa: E731
    jaxpr, out_avals, consts = _trace(bench, f, [shaped_aval((3,))])
    assert "cond" in _prims(jaxpr)
    x = np.array([0.5, 1.0, -0.2], np.float32)
    (out,) = jax.core.eval_jaxpr(jaxpr, consts, jax.device_put(x, device))
    np.testing.assert_allclose(np.asarray(out), np.sin(x), rtol=1e-6)


def test_trace_long_chain(bench, device):
    def f(x):
        for i in range(200):
            x = x * 1.001 + i
        return (x,)

    jaxpr, out_avals, consts = _trace(bench, f, [shaped_aval((64, 64))])
    assert _prims(jaxpr) == ["mul", "add"] * 200
    x = jax.device_put(np.ones((64, 64), np.float32), device)
    (out,) = jax.core.eval_jaxpr(jaxpr, consts, x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(f(x)[0]), rtol=1e-5)
