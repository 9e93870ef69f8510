"""jax.disable_jit: cases adapted from tests/api_test.py (APITest.test_disable_jit: a jitted function's Python body runs on every call inside the context and is traced once outside it) and tests/lax_control_flow_test.py (LaxControlFlowTest.testForiLoopIssue8152, testCondJitDisabled and test_disable_jit_cond_with_vmap: control flow run as plain Python under disable_jit, also under vmap). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

jax.disable_jit returns a context manager: bench times that call; each case then enters the returned
context and checks its effect."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

pytestmark = pytest.mark.function("jax.disable_jit", decile=40, top20=False,
                                  backward="returns a context manager: it changes how calls run and computes no array "
                                           "itself")

UPSTREAM_TESTS = {
    "tests/api_test.py::JitTest::test_disable_jit": [
        "test_disable_jit_runs_python_each_call", "test_disable_jit_false_keeps_jit", "test_disable_jit_nested"],
    "tests/lax_control_flow_test.py::LaxControlFlowTest::testForiLoopIssue8152": ["test_disable_jit_lax_loops"],
    "tests/lax_control_flow_test.py::LaxControlFlowTest::testCondJitDisabled": [
        "test_disable_jit_python_control_flow", "test_disable_jit_lax_loops"],
    "tests/lax_control_flow_test.py::LaxControlFlowTest::test_disable_jit_cond_with_vmap": [
        "test_disable_jit_with_transforms"],
}


def _counting_jit():
    """A jitted function that records, per Python-level execution, the type of its argument."""
    seen = []

    @jax.jit
    def f(x):
        seen.append(isinstance(x, jax.core.Tracer))
        return jnp.sin(x) * 2

    return f, seen


@pytest.mark.parametrize("args", [(), (True,)])
def test_disable_jit_runs_python_each_call(bench, device, args):
    # test_disable_jit: inside the context each call runs the Python body on concrete values.
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    x_dev = jax.device_put(x, device)
    f, seen = _counting_jit()
    before = jax.config.jax_disable_jit
    ctx = bench(jax.disable_jit, *args)
    with ctx:
        assert jax.config.jax_disable_jit is True
        r1, r2 = f(x_dev), f(x_dev)
    assert jax.config.jax_disable_jit == before  # the previous setting comes back on exit
    assert seen == [False, False]
    for r in (r1, r2):
        assert r.shape == x.shape and r.dtype == np.float32
        np.testing.assert_allclose(np.asarray(r), 2 * np.sin(x), rtol=1e-6, atol=1e-6)


def test_disable_jit_false_keeps_jit(bench, device):
    # disable=False (re-)enables jit: the body is traced once and the compiled call is reused.
    x_dev = jax.device_put(np.arange(6, dtype=np.float32), device)
    f, seen = _counting_jit()
    ctx = bench(jax.disable_jit, False)
    with ctx:
        assert jax.config.jax_disable_jit is False
        r1, r2 = f(x_dev), f(x_dev)
    assert seen == [True]
    np.testing.assert_allclose(np.asarray(r2), np.asarray(r1), rtol=0, atol=0)
    np.testing.assert_allclose(np.asarray(r1), 2 * np.sin(np.arange(6, dtype=np.float32)), rtol=1e-6, atol=1e-6)


def test_disable_jit_python_control_flow(bench, device):
    # Value-dependent Python branching, which jit rejects, works inside the context.
    @jax.jit
    def relu_sum(x):
        return jnp.sum(x) if float(jnp.sum(x)) > 0 else jnp.zeros((), x.dtype)

    xs = [np.array([1.0, 2.0, -0.5], np.float32), np.array([-3.0, 1.0], np.float32)]
    ctx = bench(jax.disable_jit)
    with ctx:
        results = [relu_sum(jax.device_put(x, device)) for x in xs]
    assert [float(r) for r in results] == [2.5, 0.0]
    assert all(r.dtype == np.float32 and r.shape == () for r in results)


def test_disable_jit_lax_loops(bench, device):
    # lax.fori_loop / lax.cond run their Python bodies eagerly: the body sees concrete values.
    seen = []

    def body(i, carry):
        seen.append(isinstance(carry, jax.core.Tracer))
        return carry + i

    ctx = bench(jax.disable_jit)
    with ctx:
        total = lax.fori_loop(0, 5, body, jax.device_put(np.float32(0), device))
        branch = lax.cond(total > 5, lambda v: v * 2, lambda v: v, total)
    assert seen == [False] * 5
    assert float(total) == 10.0 and float(branch) == 20.0


def test_disable_jit_nested(bench, device):
    # An inner disable_jit(False) re-enables jit; leaving it restores the outer setting.
    f, seen = _counting_jit()
    x_dev = jax.device_put(np.ones(3, np.float32), device)
    outer = bench(jax.disable_jit)
    with outer:
        f(x_dev)
        with jax.disable_jit(False):
            f(x_dev)
        assert jax.config.jax_disable_jit is True
        f(x_dev)
    assert seen == [False, True, False]


def test_disable_jit_with_transforms(bench, device):
    # grad and vmap still work (eagerly) inside the context.
    x = np.linspace(0.1, 1.0, 5, dtype=np.float32)
    ctx = bench(jax.disable_jit)
    with ctx:
        g = jax.jit(jax.vmap(jax.grad(lambda a: jnp.sin(a) ** 2)))(jax.device_put(x, device))
    assert g.shape == x.shape and g.dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), np.sin(2 * x.astype(np.float64)), rtol=1e-5, atol=1e-6)
