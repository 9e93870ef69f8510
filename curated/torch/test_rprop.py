"""torch.optim.Rprop: cases adapted from pytorch/pytorch test/test_optim.py (test_rprop: _test_basic_cases with lr=2e-4 (and 1e-3), _build_params_dict with a per-group lr of 1e-2, maximize, foreach, custom etas and step_sizes, _test_complex_2d) and torch/testing/_internal/common_optimizers.py (optim_inputs_func_rprop). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Parameters follow _test_basic_cases: weight (10, 5) and bias (10,) from randn. The timed call is
`opt.step` (with fixed gradients, or with a closure that recomputes them). The harness calls step
as many times as its sampling needs. The check replays Rprop (the documented algorithm: the
per-element step size grows by etaplus while the gradient keeps its sign, shrinks by etaminus when
it flips, and is clamped to step_sizes) in NumPy in the parameter dtype and compares with
assert_close's defaults: after every step up to upstream's 200 (_support.StepTrail) and after the
last; the closure case after the last.
"""
import numpy as np
import pytest
import torch
from _support import StepTrail, check_replay, ids, optim_params, replayed

pytestmark = pytest.mark.function("torch.optim.Rprop", decile=10, top20=False,
                                  backward="an optimizer step: updates the parameters in place under no_grad, no "
                                           "differentiable output")

UPSTREAM_TESTS = {
    "test/test_optim.py::TestOptim::test_rprop": ["test_rprop_basic", "test_rprop_param_groups", "test_rprop_complex",
        "test_rprop_large"],
    "test/test_optim.py::TestOptimRenewed::test_forloop_goes_right_direction": ["test_rprop_etas_step_sizes",
        "test_rprop_closure_quadratic"],
}


def _numpy_rprop(param, lr, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False, grad=None, grad_fn=None):
    """Rprop updates with a fixed `grad` or one recomputed by `grad_fn(param)`: the parameter after each step, for
    as many steps as are taken."""
    if np.iscomplexobj(param):
        real = param.real.dtype
        for p in _numpy_rprop(param.view(real), lr, etas, step_sizes, maximize, grad=grad.view(real)):
            yield p.view(param.dtype)
        return
    dt = param.dtype.type
    etaminus, etaplus = dt(etas[0]), dt(etas[1])
    lo, hi = dt(step_sizes[0]), dt(step_sizes[1])
    p = param.copy()
    prev = np.zeros_like(p)
    step_size = np.full_like(p, dt(lr))
    while True:
        g = grad if grad_fn is None else grad_fn(p)
        g = -g if maximize else g.copy()
        s = np.sign(g * prev)
        factor = np.where(s > 0, etaplus, np.where(s < 0, etaminus, dt(1)))
        step_size = np.clip(step_size * factor, lo, hi)
        g = np.where(factor == etaminus, dt(0), g)
        p = p - np.sign(g) * step_size
        prev = g
        yield p


# _test_basic_cases(Rprop([weight, bias], lr=2e-4, maximize=..., foreach=...)), and lr=1e-3.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
@pytest.mark.parametrize("lr", [2e-4, 1e-3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_rprop_basic(bench, device, dtype, lr, maximize, foreach):
    params = optim_params(device, dtype)
    # maximize is passed only when set, so the minimize cases also run where Rprop predates it.
    extra = {"maximize": True} if maximize else {}
    opt = torch.optim.Rprop(params, lr=lr, foreach=foreach, **extra)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [lr, lr], _numpy_rprop, maximize=maximize)


# _test_basic_cases(Rprop(_build_params_dict(weight, bias, lr=1e-2), lr=2e-4)): per-group lr.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_rprop_param_groups(bench, device, foreach):
    weight, bias = optim_params(device, torch.float32, seed=1)
    opt = torch.optim.Rprop([{"params": [weight]}, {"params": [bias], "lr": 1e-2}], lr=2e-4, foreach=foreach)
    trail = StepTrail(opt, [weight, bias])
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [2e-4, 1e-2], _numpy_rprop)


# Non-default etas and step_sizes (optim_inputs_func_rprop): a low step_size_max caps the growth.
@pytest.mark.parametrize("etas, step_sizes", [((0.3, 1.5), (5e-4, 1e-2)), ((0.5, 1.2), (1e-6, 1e-3))],
                         ids=["etas0.3,1.5-max1e-2", "max1e-3"])
def test_rprop_etas_step_sizes(bench, device, etas, step_sizes):
    params = optim_params(device, torch.float64, seed=2)
    opt = torch.optim.Rprop(params, lr=1e-3, etas=etas, step_sizes=step_sizes)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-3, 1e-3], _numpy_rprop, etas=etas, step_sizes=step_sizes)


# _test_complex_2d(Rprop): complex parameters are updated as (real, imag) pairs.
@pytest.mark.layout("complex")
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_rprop_complex(bench, device, foreach):
    params = optim_params(device, torch.complex64, seed=3)
    opt = torch.optim.Rprop(params, lr=1e-3, foreach=foreach)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-3, 1e-3], _numpy_rprop)


# With a closure that recomputes the gradient of sum(c * (p - t)^2): the gradient flips sign as p
# crosses t, so the etaminus branch runs. step returns the closure's loss at the starting point.
def test_rprop_closure_quadratic(bench, device):
    rng = np.random.default_rng(4)
    p0, target, scale = rng.standard_normal(50), rng.standard_normal(50), rng.uniform(0.5, 2.0, 50)
    p = torch.from_numpy(p0.copy()).to(device).requires_grad_()  # a copy: p0 must survive the steps
    t, c = torch.from_numpy(target).to(device), torch.from_numpy(scale).to(device)
    opt = torch.optim.Rprop([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (c * (p - t) ** 2).sum()
        loss.backward()
        return loss

    result = bench(opt.step, closure)
    torch.testing.assert_close(float(result.detach()), float((scale * (p0 - target) ** 2).sum()))
    steps = int(opt.state[p]["step"])
    expected = replayed(_numpy_rprop(p0, 0.1, grad_fn=lambda q: (scale * 2.0) * (q - target)), steps)
    torch.testing.assert_close(p.detach().cpu(), torch.from_numpy(expected))


# A larger parameter set than upstream's, to time a realistic step.
def test_rprop_large(bench, device):
    params = optim_params(device, torch.float32, seed=5, shapes=((512, 256), (256,)))
    opt = torch.optim.Rprop(params, lr=1e-3)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-3, 1e-3], _numpy_rprop)
