"""torch.nn.KLDivLoss: cases adapted from pytorch/pytorch test/test_nn.py (test_KLDivLoss_batch_mean: log_softmax input (2, 5) and softmax target, 'batchmean' = sum / batch size; test_KLDivLoss_batch_mean_log_target; test_kl_div_with_diff_type / zero targets) and torch/testing/_internal/common_nn.py (the KLDivLoss criterion tests over reductions, with loss_reference_fns['KLDivLoss'] / ['KLDivLoss_log_target']) and test/test_modules.py (TestModule's test_grad and test_gradgrad over KLDivLoss' module inputs: the gradients of the input and the target); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the loss module's forward. The reference is the documented pointwise loss in
float64 NumPy: target * (log target - input) (0 where target is 0), or with log_target=True
exp(target) * (target - input), then the reduction ('none', 'sum', 'mean' over elements,
'batchmean' over the first dimension). Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, to_device
from torch import nn

pytestmark = pytest.mark.function("torch.nn.KLDivLoss", decile=30, top20=False)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_KLDivLoss_batch_mean": ["test_kl_div_reductions", "test_kl_div_batchmean_nd",
                                                           "test_kl_div_large"],
    "test/test_nn.py::TestNN::test_KLDivLoss_batch_mean_log_target": ["test_kl_div_reductions",
                                                                      "test_kl_div_identical"],
    # test_nn.py generates one test per common_nn criterion entry (forward and gradients)
    "test/test_nn.py::TestNN::test_KLDivLoss": ["test_kl_div_reductions", "test_kl_div_zero_targets",
                                                "test_kl_div_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_kl_div_reductions"],
    "test/test_modules.py::TestModule::test_grad": ["test_kl_div_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_kl_div_backward"],
}


def _np_kl_div(inp, target, reduction, log_target):
    if log_target:
        loss = np.exp(target) * (target - inp)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(target > 0, target * (np.log(np.where(target > 0, target, 1.0)) - inp), 0.0)
    if reduction == "sum":
        return np.asarray(loss.sum())
    if reduction == "mean":
        return np.asarray(loss.mean())
    if reduction == "batchmean":
        return np.asarray(loss.sum() / inp.shape[0])
    return loss


def _log_softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def _check(result, inp, target, reduction, log_target):
    check_close(result, _np_kl_div(host64(inp), host64(target), reduction, log_target), inp.dtype)


# test_KLDivLoss_batch_mean (+ _log_target) and common_nn's reductions: log_softmax input (2, 5),
# softmax (or log_softmax) target.
@pytest.mark.parametrize("log_target", [False, True], ids=["prob_target", "log_target"])
@pytest.mark.parametrize("reduction", ["batchmean", "sum", "mean", "none"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_kl_div_reductions(bench, device, dtype, reduction, log_target):
    rng = np.random.default_rng(0)
    inp = _log_softmax(rng.standard_normal((2, 5)))
    log_t = _log_softmax(rng.standard_normal((2, 5)))
    target = log_t if log_target else np.exp(log_t)
    x, y = to_device(inp, device, dtype), to_device(target, device, dtype)
    result = bench(nn.KLDivLoss(reduction=reduction, log_target=log_target), x, y)
    _check(result, x, y, reduction, log_target)


# Zero entries in a probability target contribute 0 (not NaN): 0 * log 0 is taken as 0.
def test_kl_div_zero_targets(bench, device):
    rng = np.random.default_rng(1)
    inp = _log_softmax(rng.standard_normal((4, 6)))
    target = np.exp(_log_softmax(rng.standard_normal((4, 6))))
    target[:, :2] = 0.0
    target /= target.sum(axis=1, keepdims=True)
    x, y = to_device(inp, device, torch.float64), to_device(target, device, torch.float64)
    result = bench(nn.KLDivLoss(reduction="none"), x, y)
    assert torch.isfinite(result).all()
    assert bool((result[:, :2] == 0).all())
    _check(result, x, y, "none", False)


# Higher-rank inputs: 'batchmean' divides by the first dimension only.
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 4)], ids=["3d", "4d"])
def test_kl_div_batchmean_nd(bench, device, shape):
    rng = np.random.default_rng(2)
    inp = _log_softmax(rng.standard_normal(shape), axis=1)
    target = np.exp(_log_softmax(rng.standard_normal(shape), axis=1))
    x, y = to_device(inp, device, torch.float32), to_device(target, device, torch.float32)
    result = bench(nn.KLDivLoss(reduction="batchmean"), x, y)
    _check(result, x, y, "batchmean", False)


# KL(p || p) = 0.
def test_kl_div_identical(bench, device):
    logp = _log_softmax(np.random.default_rng(3).standard_normal((8, 10)))
    x, y = to_device(logp, device, torch.float64), to_device(logp, device, torch.float64)
    result = bench(nn.KLDivLoss(reduction="batchmean", log_target=True), x, y)
    torch.testing.assert_close(result.cpu(), torch.tensor(0.0, dtype=torch.float64))


# A large batch of distributions (a distillation-style loss), to time a realistic call.
def test_kl_div_large(bench, device):
    rng = np.random.default_rng(4)
    inp = _log_softmax(rng.standard_normal((512, 1000)))
    target = np.exp(_log_softmax(rng.standard_normal((512, 1000))))
    x, y = to_device(inp, device, torch.float32), to_device(target, device, torch.float32)
    result = bench(nn.KLDivLoss(reduction="batchmean"), x, y)
    _check(result, x, y, "batchmean", False)


# test_grad / test_gradgrad: the gradients of the log-probability input and of the target (probabilities or, with
# log_target, log-probabilities), per reduction, against the CPU's float64 ones, with gradcheck and gradgradcheck on
# the CPU.
@pytest.mark.parametrize("log_target", [False, True], ids=["prob_target", "log_target"])
@pytest.mark.parametrize("reduction", ["batchmean", "none"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_kl_div_backward(backward, device, dtype, reduction, log_target):
    rng = np.random.default_rng(5)
    log_t = _log_softmax(rng.standard_normal((3, 5)))
    x = to_device(_log_softmax(rng.standard_normal((3, 5))), device, dtype, requires_grad=True)
    y = to_device(log_t if log_target else np.exp(log_t), device, dtype, requires_grad=True)
    loss = nn.KLDivLoss(reduction=reduction, log_target=log_target)
    grads = backward(loss, x, y)
    check_gradients(grads, loss, (x, y), second_order=True)
