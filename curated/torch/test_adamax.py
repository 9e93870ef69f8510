"""torch.optim.Adamax: cases adapted from pytorch/pytorch test/test_optim.py (test_adamax: _test_basic_cases with lr=1e-1, _build_params_dict, weight_decay=1, maximize, foreach, _test_complex_2d). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Parameters follow _test_basic_cases: weight (10, 5) and bias (10,) from randn. The optimizer is
built on the device with fixed gradients set, and the timed call is `opt.step`. The timing harness
calls step as many times as its sampling needs. The check compares the parameters after every step
up to upstream's 200 (_support.StepTrail keeps them, untimed, before each step) and after the last
with a NumPy replay of Adamax in the parameter dtype, with assert_close's defaults: a miss within the
steps every run takes fails the case whatever the sample count (docs/compiled.md).
The configurations are ones whose trajectory stays well-conditioned for any number of steps: no
weight decay (a constant-direction drift) or weight_decay=1 (converges onto a fixed point).
"""
import itertools

import numpy as np
import pytest
import torch
from _support import StepTrail, check_replay, ids, optim_params

pytestmark = pytest.mark.function("torch.optim.Adamax", decile=30, top20=False,
                                  backward="an optimizer step: updates the parameters in place under no_grad, no "
                                           "differentiable output")

UPSTREAM_TESTS = {
    "test/test_optim.py::TestOptim::test_adamax": ["test_adamax_basic", "test_adamax_weight_decay",
        "test_adamax_param_groups", "test_adamax_complex", "test_adamax_large"],
}

BETAS = (0.9, 0.999)
EPS = 1e-8


def _numpy_adamax(param, lr, grad, weight_decay=0.0, maximize=False):
    """Adamax updates (torch.optim.Adamax's documented algorithm) with a fixed gradient: the parameter after each
    step, for as many steps as are taken. Complex parameters are updated as (real, imag) pairs, like torch's
    view_as_real."""
    if np.iscomplexobj(param):
        real = param.real.dtype
        for p in _numpy_adamax(param.view(real), lr, grad.view(real), weight_decay, maximize):
            yield p.view(param.dtype)
        return
    dt = param.dtype.type
    beta1, beta2, eps, wd = dt(BETAS[0]), dt(BETAS[1]), dt(EPS), dt(weight_decay)
    p = param.copy()
    exp_avg = np.zeros_like(p)
    exp_inf = np.zeros_like(p)
    for t in itertools.count(1):
        g = -grad if maximize else grad
        if weight_decay:
            g = g + wd * p
        exp_avg = exp_avg + (dt(1) - beta1) * (g - exp_avg)
        exp_inf = np.maximum(beta2 * exp_inf, np.abs(g) + eps)
        clr = dt(lr / (1 - BETAS[0] ** t))
        p = p - clr * exp_avg / exp_inf
        yield p


# _test_basic_cases(Adamax([weight, bias], lr=1e-1, maximize=..., foreach=...)).
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_adamax_basic(bench, device, dtype, maximize, foreach):
    params = optim_params(device, dtype)
    opt = torch.optim.Adamax(params, lr=1e-1, maximize=maximize, foreach=foreach)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-1, 1e-1], _numpy_adamax, maximize=maximize)


# _test_basic_cases with weight_decay=1.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
def test_adamax_weight_decay(bench, device, maximize, foreach):
    params = optim_params(device, torch.float32, seed=1)
    opt = torch.optim.Adamax(params, lr=1e-1, weight_decay=1, maximize=maximize, foreach=foreach)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-1, 1e-1], _numpy_adamax, weight_decay=1.0, maximize=maximize)


# _test_basic_cases(Adamax(_build_params_dict(weight, bias, lr=1e-2), lr=1e-1)): per-group lr.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_adamax_param_groups(bench, device, foreach):
    weight, bias = optim_params(device, torch.float32, seed=2)
    opt = torch.optim.Adamax([{"params": [weight]}, {"params": [bias], "lr": 1e-2}], lr=1e-1,
                             foreach=foreach)
    trail = StepTrail(opt, [weight, bias])
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-1, 1e-2], _numpy_adamax)


# _test_complex_2d(Adamax) and _test_complex_2d(partial(Adamax, foreach=True)).
@pytest.mark.layout("complex")
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_adamax_complex(bench, device, foreach):
    params = optim_params(device, torch.complex64, seed=3)
    opt = torch.optim.Adamax(params, lr=1e-1, foreach=foreach)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-1, 1e-1], _numpy_adamax)


# A larger parameter set than upstream's, to time a realistic step.
def test_adamax_large(bench, device):
    params = optim_params(device, torch.float32, seed=4, shapes=((512, 256), (256, 256), (256,)))
    opt = torch.optim.Adamax(params, lr=1e-1)
    trail = StepTrail(opt, params)
    result = bench.with_setup(trail.record, opt.step)
    check_replay(result, trail, [1e-1] * 3, _numpy_adamax)
