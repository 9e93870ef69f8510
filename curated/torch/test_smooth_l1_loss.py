"""torch.nn.SmoothL1Loss: cases adapted from pytorch/pytorch test/test_nn.py (test_smoothl1loss_intergral_target: integer targets give the same loss and gradient as float ones, beta 0.5, reductions 'none'/'sum'/'mean'; test_smoothl1loss_negative_beta_not_supported; test_smoothl1loss_zero_beta: beta = 0 equals L1Loss; test_smooth_l1_loss_vs_huber_loss: SmoothL1Loss(beta) * beta equals HuberLoss(delta=beta)) and torch/testing/_internal/common_nn.py (the SmoothL1Loss criterion tests: (5, 10) inputs over the reductions, with beta 0.5 and 1.5 variants, checked against loss_reference_fns['SmoothL1Loss']), and test/test_modules.py (TestModule's test_forward, test_grad and test_gradgrad over SmoothL1Loss' module inputs: the gradients of the input and the target); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the loss module's forward. The reference is the documented pointwise loss in
float64 NumPy: 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (|d| when beta = 0), with
d = input - target, then the reduction. Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, to_device
from torch import nn

pytestmark = pytest.mark.function("torch.nn.SmoothL1Loss", decile=50, top20=False)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_smoothl1loss_intergral_target": ["test_smooth_l1_integral_target"],
    "test/test_nn.py::TestNN::test_smoothl1loss_negative_beta_not_supported": ["test_smooth_l1_errors"],
    "test/test_nn.py::TestNN::test_smoothl1loss_zero_beta": ["test_smooth_l1_zero_beta"],
    "test/test_nn.py::TestNN::test_smooth_l1_loss_vs_huber_loss": ["test_smooth_l1_vs_huber"],
    # test_nn.py generates one test per common_nn criterion entry (forward and gradients)
    "test/test_nn.py::TestNN::test_SmoothL1Loss": [
        "test_smooth_l1_reductions", "test_smooth_l1_gradient", "test_smooth_l1_large", "test_smooth_l1_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_smooth_l1_reductions"],
    "test/test_modules.py::TestModule::test_grad": ["test_smooth_l1_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_smooth_l1_backward"],
}


def _np_smooth_l1(inp, target, reduction="mean", beta=1.0):
    d = np.abs(np.asarray(inp, dtype=np.float64) - np.asarray(target, dtype=np.float64))
    loss = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    if reduction == "mean":
        return np.asarray(loss.mean())
    if reduction == "sum":
        return np.asarray(loss.sum())
    return loss


def _pair(shape, device, dtype, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return tuple(to_device(rng.standard_normal(shape) * scale, device, dtype) for _ in range(2))


def _check(result, x, y, reduction, beta):
    check_close(result, _np_smooth_l1(host64(x), host64(y), reduction, beta), x.dtype)


# common_nn's criterion tests: (5, 10) inputs, every reduction, beta 1 (default), 0.5 and 1.5,
# float32 and float64.
@pytest.mark.parametrize("beta", [1.0, 0.5, 1.5])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_smooth_l1_reductions(bench, device, dtype, reduction, beta):
    x, y = _pair((5, 10), device, dtype, 0)
    loss = nn.SmoothL1Loss(reduction=reduction) if beta == 1.0 else nn.SmoothL1Loss(reduction=reduction, beta=beta)
    result = bench(loss, x, y)
    _check(result, x, y, reduction, beta)


# test_smoothl1loss_zero_beta: with beta = 0 the loss is the L1 loss.
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_smooth_l1_zero_beta(bench, device, reduction):
    x, y = _pair((4, 6), device, torch.float64, 1)
    result = bench(nn.SmoothL1Loss(reduction=reduction, beta=0.0), x, y)
    _check(result, x, y, reduction, 0.0)
    torch.testing.assert_close(result, nn.L1Loss(reduction=reduction)(x, y))


# test_smooth_l1_loss_vs_huber_loss: SmoothL1Loss(beta) * beta == HuberLoss(delta=beta), with
# differences on both sides of beta.
@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
def test_smooth_l1_vs_huber(bench, device, beta):
    x, y = _pair((3, 5, 7), device, torch.float64, 2, scale=2.0)
    result = bench(nn.SmoothL1Loss(reduction="none", beta=beta), x, y)
    _check(result, x, y, "none", beta)
    d = (x - y).abs()
    assert bool((d < beta).any()) and bool((d >= beta).any())
    torch.testing.assert_close(result * beta, nn.HuberLoss(reduction="none", delta=beta)(x, y))


# test_smoothl1loss_intergral_target: an integer target gives the loss (and the input gradient) of the
# same target as floats.
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("target_dtype", [torch.int64, torch.int32, torch.uint8], ids=ids)
def test_smooth_l1_integral_target(bench, device, target_dtype, reduction):
    rng = np.random.default_rng(3)
    x = torch.from_numpy(rng.standard_normal((2, 2)) * 4).float().to(device).requires_grad_(True)
    y = torch.from_numpy(rng.integers(0, 9, (2, 2))).to(device=device, dtype=target_dtype)
    result = bench(nn.SmoothL1Loss(reduction=reduction, beta=0.5), x, y)
    _check(result, x, y, reduction, 0.5)
    result.sum().backward()
    x_float = x.detach().clone().requires_grad_(True)
    nn.SmoothL1Loss(reduction=reduction, beta=0.5)(x_float, y.float()).sum().backward()
    torch.testing.assert_close(x.grad, x_float.grad)


# The gradient: clamp(d / beta, -1, 1) / N for 'mean'.
def test_smooth_l1_gradient(bench, device):
    x, y = _pair((6, 8), device, torch.float64, 4, scale=1.5)
    x.requires_grad_(True)
    result = bench(nn.SmoothL1Loss(beta=0.7), x, y)
    _check(result, x, y, "mean", 0.7)
    (grad,) = torch.autograd.grad(result, x)
    d = (x - y).detach().cpu().numpy()
    torch.testing.assert_close(grad.cpu(), torch.from_numpy(np.clip(d / 0.7, -1, 1) / d.size))


# test_smoothl1loss_negative_beta_not_supported, checked around one valid call; identical inputs
# give zero loss.
def test_smooth_l1_errors(bench, device):
    x, _ = _pair((3, 3), device, torch.float32, 5)
    result = bench(nn.SmoothL1Loss(), x, x.clone())
    assert result.dtype == torch.float32 and float(result) == 0.0
    with pytest.raises(RuntimeError):
        nn.SmoothL1Loss(beta=-1.0)(x, x)


# A large batch of regression outputs (e.g. box regression), to time a realistic call.
def test_smooth_l1_large(bench, device):
    x, y = _pair((512, 1000), device, torch.float32, 6)
    result = bench(nn.SmoothL1Loss(), x, y)
    _check(result, x, y, "mean", 1.0)


# test_grad / test_gradgrad: the gradients of the input and the target (differences on both sides of beta), per
# reduction, against the CPU's float64 ones, with gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("beta", [1.0, 0.5])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_smooth_l1_backward(backward, device, dtype, reduction, beta):
    x, y = (t.requires_grad_(True) for t in _pair((4, 5), device, dtype, 7, scale=1.5))
    loss = nn.SmoothL1Loss(reduction=reduction, beta=beta)
    grads = backward(loss, x, y)
    check_gradients(grads, loss, (x, y), second_order=True)
