"""torch.nn.Dropout3d: cases adapted from pytorch/pytorch test/test_nn.py (test_Dropout3d: an input of 1000 feature maps (N, C, D, H, W) filled with 1 - p, p = 0.2, through _test_dropout (mean within 0.05 of 1 - p, eval mode is the identity, channels_last_3d layout kept), _test_dropoutNd_no_batch (an unbatched (C, D, H, W) input) and _test_dropoutNd_channel_zero (a channel is dropped as a whole)), whose gradients _test_dropout checks too; UPSTREAM_TESTS below maps each to the cases here.

The timed call is the module's forward. Each (sample, channel) feature map of the output must be
either all zero or the input map scaled by 1 / (1 - p); the fraction of dropped maps must be within
a statistical bound of p. The random generator is seeded before the call.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients, seeded_on_cpu
from _support import ids, uniform
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Dropout3d", decile=20, top20=False)

UPSTREAM_TESTS = {
    "test/nn/test_dropout.py::TestDropoutNNDeviceType::test_Dropout3d": [
        "test_dropout3d_upstream", "test_dropout3d_p", "test_dropout3d_channels_last", "test_dropout3d_no_batch",
        "test_dropout3d_edges", "test_dropout3d_large", "test_dropout3d_backward"],
    "test/nn/test_dropout.py::TestDropoutNN::test_invalid_dropout_p": "an error message for a p outside [0, 1]: no "
                                                                      "device computes anything",
}


def _check_channelwise(result, x, p, bound=None, unbatched=False):
    assert result.dtype == x.dtype and result.shape == x.shape
    got, src = result.detach().cpu().double(), x.detach().cpu().double()
    if unbatched:
        got, src = got.unsqueeze(0), src.unsqueeze(0)
    maps_got = got.reshape(got.shape[0] * got.shape[1], -1)
    maps_src = src.reshape(src.shape[0] * src.shape[1], -1)
    dropped = (maps_got == 0).all(dim=1)
    kept = (maps_got != 0).all(dim=1)
    assert bool((dropped | kept).all()), "a feature map is partly dropped"
    tol = 1e-6 if x.dtype == torch.float32 else 1e-12
    torch.testing.assert_close(maps_got[kept], maps_src[kept] / (1 - p), rtol=tol, atol=0)
    frac = dropped.double().mean().item()
    n = maps_got.shape[0]
    bound = bound if bound is not None else 4 * np.sqrt(p * (1 - p) / n)
    assert abs(frac - p) <= bound, (frac, p, bound)


# test_Dropout3d / _test_dropout: 1000 feature maps of (b, d, w, h), filled with 1 - p, p = 0.2.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_dropout3d_upstream(bench, device, dtype):
    p = 0.2
    x = torch.full((1000, 3, 2, 4, 5), 1 - p, device=device, dtype=dtype)
    torch.manual_seed(0)
    result = bench(nn.Dropout3d(p), x)
    assert abs(float(result.mean()) - (1 - p)) < 0.05
    _check_channelwise(result, x, p)


# Several p over a (N, C, D, H, W) batch of 8 x 64 maps.
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout3d_p(bench, device, p):
    x = uniform((8, 64, 2, 3, 4), device, torch.float32, 1, 0.5, 2.0)
    torch.manual_seed(1)
    result = bench(nn.Dropout3d(p), x)
    _check_channelwise(result, x, p)


# _test_dropout's channels_last_3d variant: the layout is kept.
@pytest.mark.layout("channels_last")
def test_dropout3d_channels_last(bench, device):
    x = uniform((4, 32, 3, 4, 5), device, torch.float32, 2, 0.5, 2.0).contiguous(memory_format=torch.channels_last_3d)
    torch.manual_seed(2)
    result = bench(nn.Dropout3d(0.3), x)
    assert result.is_contiguous(memory_format=torch.channels_last_3d)
    _check_channelwise(result, x, 0.3)


# _test_dropoutNd_no_batch: an unbatched (C, D, H, W) input drops whole channels too.
def test_dropout3d_no_batch(bench, device):
    x = uniform((200, 2, 3, 4), device, torch.float32, 3, 0.5, 2.0)
    torch.manual_seed(3)
    result = bench(nn.Dropout3d(0.4), x)
    _check_channelwise(result, x, 0.4, unbatched=True)


# Eval mode and p = 0 are the identity, p = 1 zeros everything.
@pytest.mark.parametrize("case", ["eval", "p0", "p1"])
def test_dropout3d_edges(bench, device, case):
    x = uniform((2, 4, 2, 3, 3), device, torch.float32, 4, 0.5, 2.0)
    p = {"eval": 0.5, "p0": 0.0, "p1": 1.0}[case]
    module = nn.Dropout3d(p)
    if case == "eval":
        module.eval()
    result = bench(module, x)
    expected = torch.zeros_like(x.cpu()) if case == "p1" else x.cpu()
    assert result.shape == x.shape
    torch.testing.assert_close(result.cpu(), expected, rtol=0, atol=0)


# A larger volume batch, to time a realistic layer.
def test_dropout3d_large(bench, device):
    x = uniform((4, 64, 8, 16, 16), device, torch.float32, 5, 0.5, 2.0)
    torch.manual_seed(5)
    result = bench(nn.Dropout3d(0.5), x)
    _check_channelwise(result, x, 0.5)


# _test_dropout's gradient: the cotangent of each kept feature map times 1 / (1 - p), zero on a dropped one (the
# cotangent itself in eval mode), against the CPU's float64 gradient of the same mask, with gradcheck on the CPU.
# Training draws its mask from the generator, seeded before each call (seeded_on_cpu).
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_dropout3d_backward(backward, device, dtype, training):
    module = nn.Dropout3d(0.5).train(training)
    fn = seeded_on_cpu(module, device, seed=6) if training else module
    x = uniform((2, 6, 2, 3, 2), device, dtype, 6, 0.5, 2.0, requires_grad=True)
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), second_order=True)
