"""torch.nn.functional.dropout: cases adapted from pytorch/pytorch test/test_nn.py (_test_dropout / test_Dropout: a 1000-element input filled with 1 - p, p = 0.2, mean within 0.05 of 1 - p, gradients likewise, eval mode is the identity; test_dropout_... p = 0 and p = 1 edge cases; channels_last inputs keep their layout) and torch/testing/_internal/common_methods_invocations.py (sample_inputs_dropout: p in {0, 0.5, 1}, training on/off, inplace) and test/test_ops_gradients.py (TestBwdGradients' test_fn_grad and test_fn_gradgrad over dropout's OpInfo, the generator seeded before each call); UPSTREAM_TESTS below maps each to the cases here.

The timed call is F.dropout(x, p, training, inplace). Each kept element must equal x / (1 - p) and
each dropped one 0; the dropped fraction must be within a statistical bound of p (upstream's 0.05 on
the mean for 1000 elements, about four standard deviations); training=False and p=0 return the
input's values unchanged, p=1 zeros everything. The random generator is seeded before the call.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _gradients import check_gradients, seeded_on_cpu
from _support import ids, uniform

pytestmark = pytest.mark.function("torch.nn.functional.dropout", decile=100, top20=False)

UPSTREAM_TESTS = {
    "test/nn/test_dropout.py::TestDropoutNNDeviceType::test_Dropout": [
        "test_dropout_upstream_mean", "test_dropout_edges", "test_dropout_grad", "test_dropout_channels_last"],
    "test/test_ops.py::TestCommon::test_compare_cpu": ["test_dropout_training", "test_dropout_large"],
    "test/test_ops.py::TestCommon::test_variant_consistency_eager": ["test_dropout_inplace_p0"],
    "test/nn/test_dropout.py::TestDropoutNNDeviceType::test_empty_dropout": ["test_dropout_empty"],
    "test/nn/test_dropout.py::TestDropoutNN::test_native_dropout_corner_case": ["test_dropout_edges"],
    "test/nn/test_dropout.py::TestDropoutNN::test_invalid_dropout_p": "an error message for a p outside [0, 1]: no "
                                                                      "device computes anything",
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_dropout_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_dropout_backward"],
}


def _check_dropout(result, x, p, bound=None):
    assert result.dtype == x.dtype and result.shape == x.shape
    got = result.detach().cpu().double()
    src = x.detach().cpu().double()
    kept = got != 0
    expected = torch.where(kept, src / (1 - p), torch.zeros_like(src))
    tol = {torch.float32: 1e-6, torch.float64: 1e-12, torch.bfloat16: 1e-2, torch.float16: 1e-3}[x.dtype]
    torch.testing.assert_close(got, expected, rtol=tol, atol=0)
    dropped = 1.0 - kept.double().mean().item()
    n = x.numel()
    bound = bound if bound is not None else 4 * np.sqrt(p * (1 - p) / n) + 1e-12
    assert abs(dropped - p) <= bound, (dropped, p, bound)


# _test_dropout: 1000 elements filled with 1 - p (p = 0.2): the output's mean stays within 0.05 of 1 - p.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_dropout_upstream_mean(bench, device, dtype):
    p = 0.2
    x = torch.full((1000,), 1 - p, device=device, dtype=dtype)
    torch.manual_seed(0)
    result = bench(F.dropout, x, p, True)
    assert abs(float(result.mean()) - (1 - p)) < 0.05
    _check_dropout(result, x, p, bound=0.05)


# sample_inputs_dropout-style p values on a larger input, float32/float64/bfloat16.
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
def test_dropout_training(bench, device, dtype, p):
    x = uniform((64, 256), device, dtype, 1, 0.5, 2.0)
    torch.manual_seed(1)
    result = bench(F.dropout, x, p=p, training=True)
    _check_dropout(result, x, p)


# Edge cases: p = 0 keeps everything, p = 1 drops everything, training=False is the identity.
@pytest.mark.parametrize("case", ["p0", "p1", "eval"])
def test_dropout_edges(bench, device, case):
    x = uniform((32, 32), device, torch.float32, 2, 0.5, 2.0)
    p, training = {"p0": (0.0, True), "p1": (1.0, True), "eval": (0.5, False)}[case]
    result = bench(F.dropout, x, p=p, training=training)
    assert result.dtype == x.dtype and result.shape == x.shape
    expected = torch.zeros_like(x.cpu()) if case == "p1" else x.cpu()
    torch.testing.assert_close(result.cpu(), expected, rtol=0, atol=0)


# _test_dropout's gradient: the backward of a dropout mask scales the kept positions by 1 / (1 - p).
def test_dropout_grad(bench, device):
    p = 0.2
    x = uniform((1000,), device, torch.float64, 3, 0.5, 2.0, requires_grad=True)
    torch.manual_seed(3)
    result = bench(F.dropout, x, p, True)
    _check_dropout(result, x, p)
    result.backward(torch.ones_like(result))
    kept = (result.detach() != 0).cpu().double()
    torch.testing.assert_close(x.grad.cpu(), kept / (1 - p))


# channels_last 4-D input (test_Dropout's memory-format variant): the layout is kept.
@pytest.mark.layout("channels_last")
def test_dropout_channels_last(bench, device):
    x = uniform((2, 8, 16, 16), device, torch.float32, 4, 0.5, 2.0).contiguous(memory_format=torch.channels_last)
    torch.manual_seed(4)
    result = bench(F.dropout, x, 0.3, True)
    assert result.is_contiguous(memory_format=torch.channels_last)
    _check_dropout(result, x, 0.3)


# inplace=True with p = 0 (the only in-place setting the repeated calls leave unchanged): same tensor back.
def test_dropout_inplace_p0(bench, device):
    x = uniform((16, 16), device, torch.float32, 5, 0.5, 2.0)
    before = x.clone()
    result = bench(F.dropout, x, 0.0, True, True)
    assert result.data_ptr() == x.data_ptr()
    torch.testing.assert_close(result.cpu(), before.cpu(), rtol=0, atol=0)


# test_empty_dropout: an empty input gives an empty output of its size.
def test_dropout_empty(bench, device):
    x = torch.tensor([], device=device)
    result = bench(F.dropout, x)
    assert result.shape == x.shape and result.dtype == x.dtype and result.device == x.device


# A large activation, to time a realistic dropout.
def test_dropout_large(bench, device):
    x = uniform((1000, 1000), device, torch.float32, 6, 0.5, 2.0)
    torch.manual_seed(6)
    result = bench(F.dropout, x, 0.5, True)
    _check_dropout(result, x, 0.5)


# test_fn_grad / test_fn_gradgrad: the gradient (the cotangent where the mask kept an element, times 1 / (1 - p); the
# cotangent itself in eval mode) against the CPU's float64 one of the same mask, with gradcheck and gradgradcheck on
# the CPU. Training draws its mask from the generator, seeded before each call (seeded_on_cpu).
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
def test_dropout_backward(backward, device, dtype, training):
    fn = seeded_on_cpu(F.dropout, device, seed=7) if training else F.dropout
    x = uniform((6, 5), device, dtype, 7, 0.5, 2.0, requires_grad=True)
    grads = backward(fn, x, 0.5, training)
    check_gradients(grads, fn, (x, 0.5, training), second_order=True)
