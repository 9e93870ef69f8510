"""jax.core.eval_context: no upstream test targets it directly; the cases follow how JAX itself uses it (jax/_src/shard_map.py, jax/_src/error_check.py: building concrete arrays while a jit/grad/vmap trace is active) in the style of tests/api_test.py's tracing checks, so UPSTREAM_TESTS below is empty. Not differentiable (the marker's backward= says why): no backward cases.

jax.core.eval_context returns a context manager: bench times that call; each case enters the returned
context (inside a trace where it matters) and checks its effect."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.core.eval_context", decile=30, top20=False,
                                  backward="returns a context manager: it changes which trace is current and computes "
                                           "no array itself")

UPSTREAM_TESTS = {}  # no upstream test method targets eval_context (the docstring says where the cases come from)


def _is_tracer(x):
    return isinstance(x, jax.core.Tracer)


def test_eval_context_inside_jit(bench, device):
    # Inside a jit trace, arrays built in the context are concrete and usable by Python code.
    seen = {}
    ctx = bench(jax.core.eval_context)

    @jax.jit
    def f(x):
        seen["x_is_tracer"] = _is_tracer(x)
        with ctx:
            table = jnp.arange(4, dtype=jnp.float32) ** 2
            seen["table_is_tracer"] = _is_tracer(table)
            n = int(jnp.sum(table))      # concretization works: the table is a real array
        return x * n + table

    x = np.arange(4, dtype=np.float32)
    out = f(jax.device_put(x, device))
    # (With jit disabled globally, as in the paper mode, x itself is concrete too.)
    assert seen == {"x_is_tracer": not jax.config.jax_disable_jit, "table_is_tracer": False}
    assert out.shape == (4,) and out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), x * 14 + np.arange(4, dtype=np.float32) ** 2)


def test_eval_context_top_level(bench, device):
    # Outside any trace the context changes nothing: values are the ordinary eager results.
    x = jax.device_put(np.linspace(-1, 1, 6, dtype=np.float32), device)
    ctx = bench(jax.core.eval_context)
    with ctx:
        y = jnp.tanh(x)
    assert isinstance(y, jax.Array) and not _is_tracer(y)
    assert y.shape == (6,) and y.dtype == np.float32
    np.testing.assert_allclose(np.asarray(y), np.tanh(np.linspace(-1, 1, 6, dtype=np.float32)), rtol=1e-6, atol=1e-6)


def test_eval_context_inside_grad(bench, device):
    # A constant built in the context does not depend on the differentiated input.
    seen = []
    ctx = bench(jax.core.eval_context)

    def loss(x):
        with ctx:
            scale = jnp.float32(3.0) * 2
            seen.append(_is_tracer(scale))
        return jnp.sum(x * scale)

    g = jax.grad(loss)(jax.device_put(np.ones(3, np.float32), device))
    assert seen == [False]
    assert g.shape == (3,) and g.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(g), np.full(3, 6.0, np.float32))


def test_eval_context_inside_vmap(bench, device):
    # Under vmap the array built in the context is unbatched and broadcasts against the batch.
    seen = []
    ctx = bench(jax.core.eval_context)

    def per_example(x):
        with ctx:
            offsets = jnp.arange(3, dtype=jnp.float32)
            seen.append(offsets.shape)
        return x + offsets

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = jax.vmap(per_example)(jax.device_put(x, device))
    assert seen == [(3,)]
    assert out.shape == (4, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), x + np.arange(3, dtype=np.float32))


def test_eval_context_restores_trace(bench, device):
    # After the context exits, computation inside the jit is traced again.
    seen = []
    ctx = bench(jax.core.eval_context)

    @jax.jit
    def f(x):
        with ctx:
            seen.append(_is_tracer(jnp.ones(2)))
        y = x + 1
        seen.append(_is_tracer(y))
        return y

    out = f(jax.device_put(np.zeros(2, np.float32), device))
    assert seen == [False, not jax.config.jax_disable_jit]
    np.testing.assert_array_equal(np.asarray(out), np.ones(2, np.float32))
