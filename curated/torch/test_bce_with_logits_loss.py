"""torch.nn.BCEWithLogitsLoss: cases adapted from pytorch/pytorch test/test_nn.py (test_bce_with_logits_raises_if_target_and_input_are_different_size, test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss (64x4 inputs, weight of 4, reductions), test_bce_with_logits_has_correct_grad_at_zero, test_bce_with_logits_broadcasts_weights, test_bce_with_logits_broadcasts_pos_weights, test_bce_with_logits_stability, test_bce_with_logits_with_pos_weight_has_correct_grad_at_zero) and torch/testing/_internal/common_nn.py (BCEWithLogitsLoss criterion tests), and test/test_modules.py (TestModule's test_grad and test_gradgrad over BCEWithLogitsLoss' module inputs: the gradients of the logits and the target); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the loss module's forward. The reference is the documented loss in float64 NumPy,
written stably: l = -w * (p * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))), with
log sigmoid(x) = -log(1 + exp(-x)); then the reduction. Compared with assert_close's defaults.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, to_device
from torch import nn

pytestmark = pytest.mark.function("torch.nn.BCEWithLogitsLoss", decile=70, top20=False)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_bce_with_logits_raises_if_target_and_input_are_different_size": (
        "an error for mismatched shapes: the error path, which no case here times"),
    "test/test_nn.py::TestNN::test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss": [
        "test_bce_with_logits_basic", "test_bce_with_logits_soft_targets", "test_bce_with_logits_large"],
    "test/test_nn.py::TestNN::test_bce_with_logits_has_correct_grad_at_zero": [
        "test_bce_with_logits_grad_at_zero", "test_bce_with_logits_backward"],
    "test/test_nn.py::TestNN::test_bce_with_logits_broadcasts_weights": ["test_bce_with_logits_broadcast"],
    "test/test_nn.py::TestNN::test_bce_with_logits_broadcasts_pos_weights": ["test_bce_with_logits_broadcast"],
    "test/test_nn.py::TestNN::test_bce_with_logits_stability": ["test_bce_with_logits_stability"],
    "test/test_nn.py::TestNN::test_bce_with_logits_with_pos_weight_has_correct_grad_at_zero": [
        "test_bce_with_logits_backward"],
    # test_nn.py generates one test per common_nn criterion entry (forward and gradients)
    "test/test_nn.py::TestNN::test_BCEWithLogitsLoss": ["test_bce_with_logits_basic", "test_bce_with_logits_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_bce_with_logits_basic", "test_bce_with_logits_broadcast"],
    "test/test_modules.py::TestModule::test_grad": ["test_bce_with_logits_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_bce_with_logits_backward"],
}


def _np_bce_with_logits(x, y, weight=None, pos_weight=None, reduction="mean"):
    log_sig = -np.logaddexp(0.0, -x)
    log_one_minus = -np.logaddexp(0.0, x)
    p = 1.0 if pos_weight is None else pos_weight
    loss = -(p * y * log_sig + (1 - y) * log_one_minus)
    if weight is not None:
        loss = loss * weight
    if reduction == "mean":
        return np.asarray(loss.mean())
    if reduction == "sum":
        return np.asarray(loss.sum())
    return loss


def _check(result, x, y, weight=None, pos_weight=None, reduction="mean"):
    expected = _np_bce_with_logits(host64(x), host64(y), host64(weight), host64(pos_weight), reduction)
    check_close(result, expected, x.dtype)


# test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss: 64x4 logits, targets in {0, 1}, with
# and without a weight of 4, every reduction; float and double.
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_bce_with_logits_basic(bench, device, dtype, weighted, reduction):
    rng = np.random.default_rng(0)
    x = to_device(rng.standard_normal((64, 4)), device, dtype)
    y = to_device(rng.integers(0, 2, (64, 4)), device, dtype)
    weight = to_device(rng.random(4), device, dtype) if weighted else None
    loss = nn.BCEWithLogitsLoss(weight=weight, reduction=reduction)
    result = bench(loss, x, y)
    _check(result, x, y, weight=weight, reduction=reduction)


# Soft targets in [0, 1] (the loss accepts probabilities, not only labels).
def test_bce_with_logits_soft_targets(bench, device):
    rng = np.random.default_rng(1)
    x = to_device(rng.standard_normal((16, 10)) * 3, device, torch.float32)
    y = to_device(rng.random((16, 10)), device, torch.float32)
    result = bench(nn.BCEWithLogitsLoss(), x, y)
    _check(result, x, y)


# test_bce_with_logits_broadcasts_weights / _pos_weights: a weight of shape (4,) or (16, 1), and
# pos_weight of shape (4,) broadcast over a (16, 4) batch.
@pytest.mark.parametrize("weight_shape, pos_weight_shape", [((4,), None), ((16, 1), None), (None, (4,)),
                                                            ((4,), (4,)), (None, (1, 4))],
                         ids=["weight4", "weight16x1", "pos4", "weight4-pos4", "pos1x4"])
def test_bce_with_logits_broadcast(bench, device, weight_shape, pos_weight_shape):
    rng = np.random.default_rng(2)
    x = to_device(rng.standard_normal((16, 4)), device, torch.float32)
    y = to_device(rng.integers(0, 2, (16, 4)), device, torch.float32)
    weight = None if weight_shape is None else to_device(rng.random(weight_shape), device, torch.float32)
    pos_weight = (None if pos_weight_shape is None
                  else to_device(rng.uniform(0.5, 3.0, pos_weight_shape), device, torch.float32))
    result = bench(nn.BCEWithLogitsLoss(weight=weight, pos_weight=pos_weight, reduction="none"), x, y)
    _check(result, x, y, weight=weight, pos_weight=pos_weight, reduction="none")


# test_bce_with_logits_stability: logits 0 and -120 with targets 0 and 1 (and large positive logits)
# stay finite: the loss for x = -120, y = 1 is 120, not inf.
@pytest.mark.parametrize("use_pos_weight", [False, True], ids=["plain", "pos_weight"])
def test_bce_with_logits_stability(bench, device, use_pos_weight):
    x = to_device([0.0, -120.0, 120.0, -80.0], device, torch.float32)
    y = to_device([0.0, 1.0, 0.0, 1.0], device, torch.float32)
    pos_weight = to_device([1.0, 1.0, 2.0, 0.5], device, torch.float32) if use_pos_weight else None
    result = bench(nn.BCEWithLogitsLoss(pos_weight=pos_weight, reduction="none"), x, y)
    assert torch.isfinite(result).all()
    _check(result, x, y, pos_weight=pos_weight, reduction="none")


# test_bce_with_logits_has_correct_grad_at_zero: at logits 0 the gradient of the summed loss is
# (sigmoid(0) - y) * (pos_weight-scaled), i.e. -0.5 for y = 1 without pos_weight.
def test_bce_with_logits_grad_at_zero(bench, device):
    x = torch.zeros((3, 1), device=device, requires_grad=True)
    y = torch.ones((3, 1), device=device)
    result = bench(nn.BCEWithLogitsLoss(reduction="sum"), x, y)
    torch.testing.assert_close(result.detach().cpu(), torch.tensor(3 * np.log(2.0), dtype=torch.float32))
    result.backward()
    torch.testing.assert_close(x.grad.cpu(), torch.full((3, 1), -0.5))


# A larger batch, to time a realistic loss.
def test_bce_with_logits_large(bench, device):
    rng = np.random.default_rng(3)
    x = to_device(rng.standard_normal((1024, 512)), device, torch.float32)
    y = to_device(rng.integers(0, 2, (1024, 512)), device, torch.float32)
    result = bench(nn.BCEWithLogitsLoss(), x, y)
    _check(result, x, y)


# test_grad / test_gradgrad and the grad-at-zero tests: the gradients of the logits (a few at exactly 0) and of the
# (soft) target, with a weight and a pos_weight or without, every reduction, against the CPU's float64 ones, with
# gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weight_pos_weight"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_bce_with_logits_backward(backward, device, dtype, weighted, reduction):
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((5, 4)) * 2
    logits[0] = 0.0
    x = to_device(logits, device, dtype, requires_grad=True)
    y = to_device(rng.random((5, 4)), device, dtype, requires_grad=True)
    weight, pos_weight = ((to_device(rng.random(4), device, dtype), to_device(rng.uniform(0.5, 3, 4), device, dtype))
                          if weighted else (None, None))
    loss = nn.BCEWithLogitsLoss(weight=weight, pos_weight=pos_weight, reduction=reduction)
    grads = backward(loss, x, y)
    check_gradients(grads, loss, (x, y), second_order=True)
