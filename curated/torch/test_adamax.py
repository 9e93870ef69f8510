"""torch.optim.Adamax: cases adapted from pytorch/pytorch test/test_optim.py (test_adamax: _test_basic_cases with lr=1e-1, _build_params_dict, weight_decay=1, maximize, foreach, _test_complex_2d).

Parameters follow _test_basic_cases: weight (10, 5) and bias (10,) from randn. The optimizer is
built on the device with fixed gradients set, and the timed call is `opt.step`. The timing harness
calls step many times, so the check reads the step count from the optimizer state and replays that
many Adamax updates in NumPy (in the parameter dtype), then compares with assert_close's defaults.
The configurations are ones whose trajectory stays well-conditioned for any number of steps: no
weight decay (a constant-direction drift) or weight_decay=1 (converges onto a fixed point).
"""
import numpy as np
import pytest
import torch

pytestmark = pytest.mark.function("torch.optim.Adamax", decile=30, top20=False)

BETAS = (0.9, 0.999)
EPS = 1e-8


def _ids(value):
    return str(value).replace("torch.", "")


def _numpy_adamax(param, grad, steps, lr, weight_decay=0.0, maximize=False):
    """Replay `steps` Adamax updates (torch.optim.Adamax's documented algorithm) with a fixed
    gradient. Complex parameters are updated as (real, imag) pairs, like torch's view_as_real."""
    if np.iscomplexobj(param):
        param, grad = param.view(param.real.dtype), grad.view(grad.real.dtype)
        return _numpy_adamax(param, grad, steps, lr, weight_decay, maximize).view(
            np.complex64 if param.dtype == np.float32 else np.complex128)
    dt = param.dtype.type
    beta1, beta2, eps, wd = dt(BETAS[0]), dt(BETAS[1]), dt(EPS), dt(weight_decay)
    p = param.copy()
    exp_avg = np.zeros_like(p)
    exp_inf = np.zeros_like(p)
    for t in range(1, steps + 1):
        g = -grad if maximize else grad
        if weight_decay:
            g = g + wd * p
        exp_avg = exp_avg + (dt(1) - beta1) * (g - exp_avg)
        exp_inf = np.maximum(beta2 * exp_inf, np.abs(g) + eps)
        clr = dt(lr / (1 - BETAS[0] ** t))
        p = p - clr * exp_avg / exp_inf
    return p


def _params(device, dtype, seed=0):
    """weight (10, 5) and bias (10,) with fixed gradients, as leaf tensors on the device."""
    rng = np.random.default_rng(seed)
    complex_ = dtype.is_complex
    tensors = []
    for shape in ((10, 5), (10,)):
        value, grad = rng.standard_normal(shape), rng.standard_normal(shape)
        if complex_:
            value = value + 1j * rng.standard_normal(shape)
            grad = grad + 1j * rng.standard_normal(shape)
        p = torch.from_numpy(value).to(device=device, dtype=dtype).requires_grad_()
        p.grad = torch.from_numpy(grad).to(device=device, dtype=dtype)
        tensors.append(p)
    return tensors


def _host(t):
    return t.detach().cpu().numpy().copy()


def _sample_indices(numel, limit=2048):
    """Adamax is elementwise, so replaying a fixed subset of elements checks them exactly while
    keeping the NumPy replay cheap for many steps on large parameters."""
    if numel <= limit:
        return np.arange(numel)
    return np.sort(np.random.default_rng(numel).choice(numel, limit, replace=False))


def _run_and_check(bench, opt, params, lrs, weight_decay=0.0, maximize=False):
    picks = [_sample_indices(p.numel()) for p in params]
    initial = [_host(p).reshape(-1)[idx] for p, idx in zip(params, picks)]
    grads = [_host(p.grad).reshape(-1)[idx] for p, idx in zip(params, picks)]
    result = bench(opt.step)
    assert result is None  # step without a closure returns None
    for p, idx, p0, g, lr in zip(params, picks, initial, grads, lrs):
        steps = int(opt.state[p]["step"])
        assert steps >= 1
        expected = _numpy_adamax(p0, g, steps, lr, weight_decay, maximize)
        got = p.detach().cpu().reshape(-1)[torch.from_numpy(idx)]
        torch.testing.assert_close(got, torch.from_numpy(expected))


# _test_basic_cases(Adamax([weight, bias], lr=1e-1, maximize=..., foreach=...)).
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=_ids)
def test_adamax_basic(bench, device, dtype, maximize, foreach):
    params = _params(device, dtype)
    opt = torch.optim.Adamax(params, lr=1e-1, maximize=maximize, foreach=foreach)
    _run_and_check(bench, opt, params, [1e-1, 1e-1], maximize=maximize)


# _test_basic_cases with weight_decay=1.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
def test_adamax_weight_decay(bench, device, maximize, foreach):
    params = _params(device, torch.float32, seed=1)
    opt = torch.optim.Adamax(params, lr=1e-1, weight_decay=1, maximize=maximize, foreach=foreach)
    _run_and_check(bench, opt, params, [1e-1, 1e-1], weight_decay=1.0, maximize=maximize)


# _test_basic_cases(Adamax(_build_params_dict(weight, bias, lr=1e-2), lr=1e-1)): per-group lr.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_adamax_param_groups(bench, device, foreach):
    weight, bias = _params(device, torch.float32, seed=2)
    opt = torch.optim.Adamax([{"params": [weight]}, {"params": [bias], "lr": 1e-2}], lr=1e-1,
                             foreach=foreach)
    _run_and_check(bench, opt, [weight, bias], [1e-1, 1e-2])


# _test_complex_2d(Adamax) and _test_complex_2d(partial(Adamax, foreach=True)).
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_adamax_complex(bench, device, foreach):
    params = _params(device, torch.complex64, seed=3)
    opt = torch.optim.Adamax(params, lr=1e-1, foreach=foreach)
    _run_and_check(bench, opt, params, [1e-1, 1e-1])


# A larger parameter set than upstream's, to time a realistic step.
def test_adamax_large(bench, device):
    rng = np.random.default_rng(4)
    params = []
    for shape in ((512, 256), (256, 256), (256,)):
        p = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device).requires_grad_()
        p.grad = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device)
        params.append(p)
    opt = torch.optim.Adamax(params, lr=1e-1)
    _run_and_check(bench, opt, params, [1e-1] * 3)
