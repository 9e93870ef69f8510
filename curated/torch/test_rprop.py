"""torch.optim.Rprop: cases adapted from pytorch/pytorch test/test_optim.py (test_rprop: _test_basic_cases with lr=2e-4 (and 1e-3), _build_params_dict with a per-group lr of 1e-2, maximize, foreach, custom etas and step_sizes, _test_complex_2d) and torch/testing/_internal/common_optimizers.py (optim_inputs_func_rprop).

Parameters follow _test_basic_cases: weight (10, 5) and bias (10,) from randn. The timed call is
`opt.step` (with fixed gradients, or with a closure that recomputes them). The harness calls step
several times, so the check reads the step count from the optimizer state and replays that many
Rprop updates (the documented algorithm: the per-element step size grows by etaplus while the
gradient keeps its sign, shrinks by etaminus when it flips, and is clamped to step_sizes) in NumPy
in the parameter dtype, then compares with assert_close's defaults.
"""
import numpy as np
import pytest
import torch

pytestmark = pytest.mark.function("torch.optim.Rprop", decile=10, top20=False)


def _ids(value):
    return str(value).replace("torch.", "")


def _numpy_rprop(param, steps, lr, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False, grad=None,
                 grad_fn=None):
    """Replay `steps` Rprop updates, with a fixed `grad` or one recomputed by `grad_fn(param)`."""
    if np.iscomplexobj(param):
        real_dtype = param.real.dtype
        complex_dtype = param.dtype
        p = _numpy_rprop(param.view(real_dtype), steps, lr, etas, step_sizes, maximize,
                         grad=grad.view(real_dtype))
        return p.view(complex_dtype)
    dt = param.dtype.type
    etaminus, etaplus = dt(etas[0]), dt(etas[1])
    lo, hi = dt(step_sizes[0]), dt(step_sizes[1])
    p = param.copy()
    prev = np.zeros_like(p)
    step_size = np.full_like(p, dt(lr))
    for _ in range(steps):
        g = grad if grad_fn is None else grad_fn(p)
        g = -g if maximize else g.copy()
        s = np.sign(g * prev)
        factor = np.where(s > 0, etaplus, np.where(s < 0, etaminus, dt(1)))
        step_size = np.clip(step_size * factor, lo, hi)
        g = np.where(factor == etaminus, dt(0), g)
        p = p - np.sign(g) * step_size
        prev = g
    return p


def _params(device, dtype, seed=0):
    """weight (10, 5) and bias (10,) with fixed gradients, as leaf tensors on the device."""
    rng = np.random.default_rng(seed)
    tensors = []
    for shape in ((10, 5), (10,)):
        value, grad = rng.standard_normal(shape), rng.standard_normal(shape)
        if dtype.is_complex:
            value = value + 1j * rng.standard_normal(shape)
            grad = grad + 1j * rng.standard_normal(shape)
        p = torch.from_numpy(value).to(device=device, dtype=dtype).requires_grad_()
        p.grad = torch.from_numpy(grad).to(device=device, dtype=dtype)
        tensors.append(p)
    return tensors


def _host(t):
    return t.detach().cpu().numpy().copy()


def _sample_indices(numel, limit=2048):
    """Rprop is elementwise, so replaying a fixed subset of elements checks them exactly while
    keeping the NumPy replay cheap for many steps on large parameters."""
    if numel <= limit:
        return np.arange(numel)
    return np.sort(np.random.default_rng(numel).choice(numel, limit, replace=False))


def _run_and_check(bench, opt, params, lrs, **kwargs):
    picks = [_sample_indices(p.numel()) for p in params]
    initial = [_host(p).reshape(-1)[idx] for p, idx in zip(params, picks)]
    grads = [_host(p.grad).reshape(-1)[idx] for p, idx in zip(params, picks)]
    shapes = [tuple(p.shape) for p in params]
    result = bench(opt.step)
    assert result is None  # step without a closure returns None
    for p, idx, p0, g, lr, shape in zip(params, picks, initial, grads, lrs, shapes):
        steps = int(opt.state[p]["step"])
        assert steps >= 1
        assert tuple(p.shape) == shape and p.dtype == torch.from_numpy(p0).dtype
        expected = _numpy_rprop(p0, steps, lr, grad=g, **kwargs)
        got = p.detach().cpu().reshape(-1)[torch.from_numpy(idx)]
        torch.testing.assert_close(got, torch.from_numpy(expected))


# _test_basic_cases(Rprop([weight, bias], lr=2e-4, maximize=..., foreach=...)), and lr=1e-3.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("maximize", [False, True], ids=["minimize", "maximize"])
@pytest.mark.parametrize("lr", [2e-4, 1e-3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=_ids)
def test_rprop_basic(bench, device, dtype, lr, maximize, foreach):
    params = _params(device, dtype)
    # maximize is passed only when set, so the minimize cases also run where Rprop predates it.
    extra = {"maximize": True} if maximize else {}
    opt = torch.optim.Rprop(params, lr=lr, foreach=foreach, **extra)
    _run_and_check(bench, opt, params, [lr, lr], maximize=maximize)


# _test_basic_cases(Rprop(_build_params_dict(weight, bias, lr=1e-2), lr=2e-4)): per-group lr.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_rprop_param_groups(bench, device, foreach):
    weight, bias = _params(device, torch.float32, seed=1)
    opt = torch.optim.Rprop([{"params": [weight]}, {"params": [bias], "lr": 1e-2}], lr=2e-4, foreach=foreach)
    _run_and_check(bench, opt, [weight, bias], [2e-4, 1e-2])


# Non-default etas and step_sizes (optim_inputs_func_rprop): a low step_size_max caps the growth.
@pytest.mark.parametrize("etas, step_sizes", [((0.3, 1.5), (5e-4, 1e-2)), ((0.5, 1.2), (1e-6, 1e-3))],
                         ids=["etas0.3,1.5-max1e-2", "max1e-3"])
def test_rprop_etas_step_sizes(bench, device, etas, step_sizes):
    params = _params(device, torch.float64, seed=2)
    opt = torch.optim.Rprop(params, lr=1e-3, etas=etas, step_sizes=step_sizes)
    _run_and_check(bench, opt, params, [1e-3, 1e-3], etas=etas, step_sizes=step_sizes)


# _test_complex_2d(Rprop): complex parameters are updated as (real, imag) pairs.
@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
def test_rprop_complex(bench, device, foreach):
    params = _params(device, torch.complex64, seed=3)
    opt = torch.optim.Rprop(params, lr=1e-3, foreach=foreach)
    _run_and_check(bench, opt, params, [1e-3, 1e-3])


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
    expected = _numpy_rprop(p0, steps, 0.1, grad_fn=lambda q: (scale * 2.0) * (q - target))
    torch.testing.assert_close(p.detach().cpu(), torch.from_numpy(expected))


# A larger parameter set than upstream's, to time a realistic step.
def test_rprop_large(bench, device):
    rng = np.random.default_rng(5)
    params = []
    for shape in ((512, 256), (256,)):
        q = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device).requires_grad_()
        q.grad = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device)
        params.append(q)
    opt = torch.optim.Rprop(params, lr=1e-3)
    _run_and_check(bench, opt, params, [1e-3, 1e-3])
