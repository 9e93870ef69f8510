"""jax.named_call: cases adapted from tests/api_test.py (NamedCallTest.test_jax_transforms and test_static_argnums: the wrapped function computes the same values under jit, grad and vmap, and its name shows in the jaxpr / lowered module) and tests/name_stack_test.py (NameStackTest.test_name_call_name_stack: names pushed onto the name stack); the wrapped function's gradient, to order 2, is the backward case; UPSTREAM_TESTS below maps each to the cases here.

jax.named_call returns a wrapped Python function (not an array), so the harness times it eagerly;
each case then checks the returned function's behaviour."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients

pytestmark = pytest.mark.function("jax.named_call", decile=60, top20=False)

UPSTREAM_TESTS = {
    "tests/api_test.py::NamedCallTest::test_jax_transforms": [
        "test_named_call_values", "test_named_call_grad", "test_named_call_vmap", "test_named_call_pytree_output",
        "test_named_call_backward"],
    "tests/api_test.py::NamedCallTest::test_static_argnums": ["test_named_call_static_argument"],
    "tests/name_stack_test.py::NameStackTest::test_name_call_name_stack": ["test_named_call_name_in_lowering"],
}


def _f(x, y):
    return jnp.sin(x) * y + 1.0


def _inputs(device, shape=(3, 4)):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    return x, y, jax.device_put(x, device), jax.device_put(y, device)


@pytest.mark.parametrize("name", ["my_f", "layer_1", None])
def test_named_call_values(bench, device, name):
    x, y, xd, yd = _inputs(device)
    wrapped = bench(jax.named_call, _f, name=name)
    assert callable(wrapped)
    for out in (wrapped(xd, yd), jax.jit(wrapped)(xd, yd)):
        assert out.shape == x.shape and out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), np.sin(x) * y + 1.0, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["my_f", "outer_block"])
def test_named_call_name_in_lowering(bench, device, name):
    # The name appears in the lowered module's location metadata / name stack.
    _, _, xd, yd = _inputs(device)
    wrapped = bench(jax.named_call, _f, name=name)
    text = jax.jit(wrapped).lower(xd, yd).as_text(debug_info=True)
    assert name in text


def test_named_call_grad(bench, device):
    x, y, xd, yd = _inputs(device, (5,))
    wrapped = bench(jax.named_call, _f, name="g")
    g = jax.grad(lambda a, b: wrapped(a, b).sum())(xd, yd)
    assert g.shape == (5,) and g.dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), np.cos(x) * y, rtol=1e-6, atol=1e-6)


def test_named_call_vmap(bench, device):
    x, y, xd, yd = _inputs(device, (4, 3))
    wrapped = bench(jax.named_call, lambda a, b: jnp.dot(a, b), name="dot")
    out = jax.vmap(wrapped)(xd, yd)
    assert out.shape == (4,)
    np.testing.assert_allclose(np.asarray(out), np.sum(x * y, axis=1), rtol=1e-5, atol=1e-5)


def test_named_call_static_argument(bench, device):
    # Non-array arguments pass through to the wrapped function unchanged.
    def f(x, get_shape):
        return jnp.broadcast_to(x, get_shape())

    wrapped = bench(jax.named_call, f, name="bcast")
    xd = jax.device_put(np.arange(4, dtype=np.float32).reshape(1, 4), device)
    out = wrapped(xd, lambda: (3, 4))
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(out), np.tile(np.arange(4, dtype=np.float32), (3, 1)))


def test_named_call_pytree_output(bench, device):
    x, y, xd, yd = _inputs(device, (2, 2))
    wrapped = bench(jax.named_call, lambda a, b: {"s": a + b, "p": (a * b,)}, name="tree")
    out = jax.jit(wrapped)(xd, yd)
    assert set(out) == {"s", "p"}
    np.testing.assert_allclose(np.asarray(out["s"]), x + y, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out["p"][0]), x * y, rtol=1e-6)


# test_jax_transforms under grad: the named function's gradients are the plain function's (cos(x) y and sin(x)
# times the cotangent), to order 2, in the floating dtypes a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_named_call_backward(backward, device, dtype):
    rng = np.random.default_rng(1)
    x, y = (jax.device_put(rng.standard_normal((3, 4)).astype(dtype), device) for _ in range(2))
    wrapped = jax.named_call(lambda a, b: jnp.sin(a) * b, name="layer")
    grads = backward(wrapped, x, y)
    check_gradients(grads, wrapped, (x, y), tol=5e-2 if dtype is jnp.bfloat16 else None, order=2)
