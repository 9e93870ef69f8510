"""torch.autograd.functional.jvp: cases adapted from pytorch/pytorch test/autograd/test_functional.py (test_jvp_output: reducer x.sum(dim=1) on a 4x4 input with v of ones; test_jvp_scalar: x.sum() and exp of a 0-d input; test_jvp_multiple_inputs / outputs; test_jvp_create_graph; test_jvp_no_grad; test_jvp_err_check's v shape mismatch). test_jvp_create_graph also runs gradcheck and gradgradcheck through jvp(..., create_graph=True): its outputs are differentiable in the inputs and in v, which the backward cases check. UPSTREAM_TESTS below maps each to the cases here.

The timed call is jvp(func, inputs, v, ...). It returns (func(inputs), J v); both are compared in
float64 with the analytic Jacobian-vector product computed in NumPy (assert_close's defaults).
"""
import numpy as np
import pytest
import torch
from _support import check_close, to_device
from _gradients import check_gradients
from torch.autograd.functional import jvp

pytestmark = pytest.mark.function("torch.autograd.functional.jvp", decile=30, top20=False)

UPSTREAM_TESTS = {
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_output": ["test_jvp_reducer",
                                                                                  "test_jvp_elementwise"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_scalar": ["test_jvp_scalar"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_multiple_inputs": ["test_jvp_multiple_inputs"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_multiple_outputs": [
        "test_jvp_multiple_outputs"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_create_graph": [
        "test_jvp_create_graph", "test_jvp_backward"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_no_grad": ["test_jvp_detached_and_errors"],
    "test/autograd/test_functional.py::TestAutogradFunctional::test_jvp_err_check": ["test_jvp_detached_and_errors"],
}


# test_jvp_output: reducer(x) = x.sum(dim=1) on a 4x4 input; v of ones (upstream) and random.
@pytest.mark.parametrize("v_kind", ["ones", "random"])
def test_jvp_reducer(bench, device, v_kind):
    rng = np.random.default_rng(0)
    x_np = rng.random((4, 4))
    v_np = np.ones((4, 4)) if v_kind == "ones" else rng.standard_normal((4, 4))
    x, v = to_device(x_np, device), to_device(v_np, device)
    out, jv = bench(jvp, lambda a: a.sum(dim=1), x, v)
    check_close(out, x_np.sum(axis=1), torch.float64)
    check_close(jv, v_np.sum(axis=1), torch.float64)


# Elementwise functions: d(2 x^3) = 6 x^2 v, d(exp x) = exp(x) v, d(tanh x) = (1 - tanh^2 x) v.
@pytest.mark.parametrize("fn", ["cube", "exp", "tanh"])
def test_jvp_elementwise(bench, device, fn):
    rng = np.random.default_rng(1)
    x_np, v_np = rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    x, v = to_device(x_np, device), to_device(v_np, device)
    func = {"cube": lambda a: 2 * a ** 3, "exp": torch.exp, "tanh": torch.tanh}[fn]
    value = {"cube": 2 * x_np ** 3, "exp": np.exp(x_np), "tanh": np.tanh(x_np)}[fn]
    deriv = {"cube": 6 * x_np ** 2, "exp": np.exp(x_np), "tanh": 1 - np.tanh(x_np) ** 2}[fn]
    out, jv = bench(jvp, func, x, v)
    check_close(out, value, torch.float64)
    check_close(jv, deriv * v_np, torch.float64)


# test_jvp_scalar: a 0-d input to exp (v = ones([])), and a sum reducer to a 0-d output.
@pytest.mark.parametrize("case", ["scalar_in", "scalar_out"])
def test_jvp_scalar(bench, device, case):
    rng = np.random.default_rng(2)
    if case == "scalar_in":
        x_np, v_np = np.asarray(rng.random()), np.asarray(1.0)
        out, jv = bench(jvp, torch.exp, to_device(x_np, device), to_device(v_np, device))
        check_close(out, np.exp(x_np), torch.float64)
        check_close(jv, np.exp(x_np) * v_np, torch.float64)
    else:
        x_np, v_np = rng.random((4, 4)), np.ones((4, 4))
        out, jv = bench(jvp, lambda a: a.sum(), to_device(x_np, device), to_device(v_np, device))
        check_close(out, np.asarray(x_np.sum()), torch.float64)
        check_close(jv, np.asarray(v_np.sum()), torch.float64)


# Multiple inputs: f(x, y) = x @ y, J (vx, vy) = vx @ y + x @ vy.
def test_jvp_multiple_inputs(bench, device):
    rng = np.random.default_rng(3)
    x_np, y_np = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    vx_np, vy_np = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    x, y, vx, vy = (to_device(a, device) for a in (x_np, y_np, vx_np, vy_np))
    out, jv = bench(jvp, torch.matmul, (x, y), (vx, vy))
    check_close(out, x_np @ y_np, torch.float64)
    check_close(jv, vx_np @ y_np + x_np @ vy_np, torch.float64)


# Multiple outputs: f(x) = (sin x, cos x) gives (cos x v, -sin x v).
def test_jvp_multiple_outputs(bench, device):
    rng = np.random.default_rng(4)
    x_np, v_np = rng.standard_normal(7), rng.standard_normal(7)
    out, jv = bench(jvp, lambda a: (a.sin(), a.cos()), to_device(x_np, device), to_device(v_np, device))
    assert isinstance(out, tuple) and isinstance(jv, tuple) and len(out) == len(jv) == 2
    check_close(out[0], np.sin(x_np), torch.float64)
    check_close(out[1], np.cos(x_np), torch.float64)
    check_close(jv[0], np.cos(x_np) * v_np, torch.float64)
    check_close(jv[1], -np.sin(x_np) * v_np, torch.float64)


# test_jvp_create_graph: with create_graph=True the product is differentiable; its gradient w.r.t. v
# for f = x^2 (J v = 2 x v) summed is 2 x.
def test_jvp_create_graph(bench, device):
    rng = np.random.default_rng(5)
    x_np, v_np = rng.standard_normal(6), rng.standard_normal(6)
    x = to_device(x_np, device).requires_grad_()
    v = to_device(v_np, device).requires_grad_()
    out, jv = bench(jvp, lambda a: a ** 2, x, v, create_graph=True)
    check_close(out, x_np ** 2, torch.float64)
    check_close(jv, 2 * x_np * v_np, torch.float64)
    assert jv.requires_grad
    (gv,) = torch.autograd.grad(jv.sum(), v)
    check_close(gv, 2 * x_np, torch.float64)


# Without create_graph the outputs are detached (test_jvp_no_grad-style), and a v of the wrong shape
# is rejected (test_jvp_err_check, outside the timed call).
def test_jvp_detached_and_errors(bench, device):
    rng = np.random.default_rng(6)
    x_np, v_np = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    x = to_device(x_np, device).requires_grad_()
    out, jv = bench(jvp, torch.sin, x, to_device(v_np, device))
    assert not out.requires_grad and not jv.requires_grad
    check_close(jv, np.cos(x_np) * v_np, torch.float64)
    with pytest.raises(RuntimeError):
        jvp(torch.sin, to_device(x_np, device), to_device(np.ones(4), device))


# A larger layer, to time a realistic product: f(x) = tanh(x @ W) with x (64, 256), W (256, 128).
def test_jvp_large(bench, device):
    rng = np.random.default_rng(7)
    w_np = rng.standard_normal((256, 128)) / 16
    x_np, v_np = rng.standard_normal((64, 256)), rng.standard_normal((64, 256))
    w = to_device(w_np, device)
    out, jv = bench(jvp, lambda a: torch.tanh(a @ w), to_device(x_np, device), to_device(v_np, device))
    h = np.tanh(x_np @ w_np)
    check_close(out, h, torch.float64)
    check_close(jv, (1 - h ** 2) * (v_np @ w_np), torch.float64)


def _jvp_of_layer(x, w, v):
    """(tanh(x @ w), its product with v), differentiable: jvp with create_graph=True, as test_jvp_create_graph."""
    return jvp(lambda a, b: torch.tanh(a @ b), (x, w), (v, torch.zeros_like(w)), create_graph=True)


# test_jvp_create_graph's gradcheck / gradgradcheck: the gradients of both outputs, the value and J v, with respect
# to the inputs x and W and to v, against the CPU's float64 ones, with gradcheck and gradgradcheck on the CPU.
# Upstream checks float64; a device trains in float32 too.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=lambda d: str(d).replace("torch.", ""))
def test_jvp_backward(backward, device, dtype):
    rng = np.random.default_rng(8)
    x, w, v = (to_device(rng.standard_normal(shape) / 2, device, dtype, requires_grad=True)
               for shape in ((3, 4), (4, 2), (3, 4)))
    grads = backward(_jvp_of_layer, x, w, v)
    check_gradients(grads, _jvp_of_layer, (x, w, v), rtol=1e-5 if dtype == torch.float32 else None,
                    second_order=True)
