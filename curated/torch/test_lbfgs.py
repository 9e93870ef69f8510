"""torch.optim.LBFGS: cases adapted from pytorch/pytorch test/test_optim.py (test_lbfgs: _test_basic_cases over weight (10, 5), bias (10,) and the loss (weight @ input + bias).pow(2).sum(), with and without line_search_fn="strong_wolfe"; test_lbfgs_returns_consistent_type; _test_rosenbrock) and torch/testing/_internal/common_optimizers.py (optim_inputs_func_lbfgs: lr, history_size, tolerance_grad, line_search_fn). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The parameters live on the cell's device and the timed call is `opt.step(closure)`. On an XLA device the closure
ends the lazy graph (`end_lazy_graph`, torch_xla.sync) after each evaluation, as a torch_xla program does once a
step: LBFGS's convergence tests read a scalar every iteration, and without the cut each read compiles a graph of
every iteration before it (pytorch/xla issue 2545, "huge slowdowns at the first call of step()"; here 163 graphs
and 100 s for one least-squares step against 8 s with it, on XLA's CPU backend). Other devices are unchanged. The harness
calls step several times (once in paper mode), so every check holds after any number of steps:
the returned value is the loss at the starting point (which the first step returns), the loss has
gone down, and on problems with a unique minimum the parameters sit at it (least squares against
NumPy's lstsq, Rosenbrock at (1, 1)); max_iter is large enough for one step to converge.
"""
import numpy as np
import pytest
import torch
from _support import end_lazy_graph, ids, to_device

pytestmark = pytest.mark.function("torch.optim.LBFGS", decile=40, top20=False,
                                  backward="an optimizer step: updates the parameters in place under no_grad, no "
                                           "differentiable output")

UPSTREAM_TESTS = {
    "test/test_optim.py::TestOptim::test_lbfgs": ["test_lbfgs_basic", "test_lbfgs_least_squares"],
    "test/test_optim.py::TestOptim::test_lbfgs_returns_consistent_type": ["test_lbfgs_basic"],
    "test/test_optim.py::TestOptim::test_rosenbrock": ["test_lbfgs_rosenbrock"],
}


def _closure(opt, loss_fn, device):
    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        end_lazy_graph(device)
        return loss
    return closure


# _test_basic_cases: weight (10, 5), bias (10,), input (5,), loss sum((W x + b)^2) whose minimum is 0.
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"], ids=["no_line_search", "strong_wolfe"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_lbfgs_basic(bench, device, dtype, line_search_fn):
    rng = np.random.default_rng(0)
    w0, b0, inp = rng.standard_normal((10, 5)), rng.standard_normal(10), rng.standard_normal(5)
    weight = to_device(w0, device, dtype, requires_grad=True)
    bias = to_device(b0, device, dtype, requires_grad=True)
    x = to_device(inp, device, dtype)
    opt = torch.optim.LBFGS([weight, bias], lr=1 if line_search_fn else 0.5, max_iter=50,
                            line_search_fn=line_search_fn)

    def loss_fn():
        return (weight.mv(x) + bias).pow(2).sum()

    initial = float(((w0 @ inp + b0) ** 2).sum())
    result = bench(opt.step, _closure(opt, loss_fn, device))
    # test_lbfgs_returns_consistent_type: step returns the closure's loss tensor.
    assert isinstance(result, torch.Tensor) and result.dtype == dtype and result.dim() == 0
    torch.testing.assert_close(float(result.detach()), initial, rtol=1e-5, atol=0)
    final = float(loss_fn().detach())
    assert final < 1e-6 * initial
    assert weight.dtype == dtype and tuple(weight.shape) == (10, 5)


# Least squares with a unique solution: the parameters converge to NumPy's lstsq answer.
@pytest.mark.parametrize("history_size", [3, 10, 100])
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"], ids=["no_line_search", "strong_wolfe"])
def test_lbfgs_least_squares(bench, device, line_search_fn, history_size):
    rng = np.random.default_rng(history_size)
    a_np, y_np = rng.standard_normal((40, 6)), rng.standard_normal(40)
    a = torch.from_numpy(a_np).to(device)
    y = torch.from_numpy(y_np).to(device)
    w = to_device(np.zeros(6), device, torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], lr=1, max_iter=100, history_size=history_size,
                            tolerance_grad=1e-12, tolerance_change=1e-14, line_search_fn=line_search_fn)

    def loss_fn():
        return 0.5 * (a.mv(w) - y).pow(2).sum()

    result = bench(opt.step, _closure(opt, loss_fn, device))
    torch.testing.assert_close(float(result.detach()), float(0.5 * (y_np ** 2).sum()))
    expected = np.linalg.lstsq(a_np, y_np, rcond=None)[0]
    torch.testing.assert_close(w.detach().cpu(), torch.from_numpy(expected), rtol=1e-6, atol=1e-6)


# _test_rosenbrock: from (1.5, 1.5) (and (-1.5, 2)) to the minimum at (1, 1).
@pytest.mark.parametrize("start", [(1.5, 1.5), (-1.5, 2.0)], ids=["1.5,1.5", "-1.5,2"])
def test_lbfgs_rosenbrock(bench, device, start):
    params = to_device(start, device, torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([params], lr=1, max_iter=500, tolerance_grad=1e-10,
                            tolerance_change=1e-14, line_search_fn="strong_wolfe")

    def loss_fn():
        x, y = params[0], params[1]
        return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2

    x0, y0 = start
    result = bench(opt.step, _closure(opt, loss_fn, device))
    torch.testing.assert_close(float(result.detach()), (1 - x0) ** 2 + 100 * (y0 - x0 ** 2) ** 2)
    torch.testing.assert_close(params.detach().cpu(), torch.tensor([1.0, 1.0], dtype=torch.float64),
                               rtol=0, atol=1e-5)
    state = opt.state[opt._params[0]]
    assert state["func_evals"] >= 1 and state["n_iter"] >= 1
