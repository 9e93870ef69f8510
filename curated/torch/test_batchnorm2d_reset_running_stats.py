"""torch.nn.BatchNorm2d.reset_running_stats: cases adapted from pytorch/pytorch test/test_nn.py (test_batchnorm_simple_average / _test_batchnorm_simple_average: with momentum=None, a pass on data1, reset_running_stats() restoring running_mean = 0 and running_var = 1, a pass on data2, another reset, then both passes again give the same outputs and running stats equal to the average of the two; test_batchnorm_update_stats: a training pass changes the running stats and increments num_batches_tracked; test_batchnorm_buffers_when_stats_are_not_tracked: with track_running_stats=False there are no running buffers) and torch/nn/modules/batchnorm.py's documented contract (reset_parameters = reset_running_stats + affine reset). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `bn.reset_running_stats()` on a BatchNorm2d whose running statistics a training
forward on the cell's device has moved away from their defaults. It is in place and idempotent, so
the harness may repeat it: afterwards running_mean is 0, running_var is 1 and num_batches_tracked is 0
(the same buffer tensors, dtype and device), the affine weight and bias are untouched, and the next
forward uses the reset statistics. Reference values (per-channel batch mean and unbiased variance,
the normalised output) come from float64 NumPy with the tolerances of the dtype.
"""
import numpy as np
import pytest
import torch
from _support import host64, ids, uniform
from torch import nn

pytestmark = pytest.mark.function("torch.nn.BatchNorm2d.reset_running_stats", decile=20, top20=False,
                                  backward="resets the running-statistics buffers in place: returns None, nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNNDeviceType::test_batchnorm_simple_average": ["test_reset_simple_average",
        "test_reset_then_momentum_update"],
    "test/test_nn.py::TestNNDeviceType::test_batchnorm_update_stats": ["test_reset_after_training",
        "test_reset_eval_forward", "test_reset_large"],
    "test/test_nn.py::TestNNDeviceType::test_batchnorm_buffers_when_stats_are_not_tracked": ["test_reset_fresh",
        "test_reset_not_tracking"],
}


def _batch_stats(x):
    a = host64(x)
    mean = a.mean(axis=(0, 2, 3))
    var = a.var(axis=(0, 2, 3), ddof=1)  # running_var tracks the unbiased variance
    return mean, var


def _bn(num_features, device, dtype, seed=0, **kwargs):
    bn = nn.BatchNorm2d(num_features, **kwargs).to(device=device, dtype=dtype)
    if bn.affine:
        rng = np.random.default_rng(seed)
        with torch.no_grad():
            bn.weight.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, num_features)))
            bn.bias.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, num_features)))
    return bn


def _assert_reset(bn, dtype):
    c = bn.num_features
    assert bn.running_mean.dtype == dtype and bn.running_var.dtype == dtype
    assert bn.num_batches_tracked.dtype == torch.int64 and int(bn.num_batches_tracked) == 0
    torch.testing.assert_close(bn.running_mean.cpu(), torch.zeros(c, dtype=dtype), rtol=0, atol=0)
    torch.testing.assert_close(bn.running_var.cpu(), torch.ones(c, dtype=dtype), rtol=0, atol=0)


# test_batchnorm_update_stats: a training pass moves the stats (and the counter); reset restores them
# in place, leaving the affine parameters alone.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("passes", [1, 3])
def test_reset_after_training(bench, device, dtype, passes):
    bn = _bn(3, device, dtype)
    for i in range(passes):
        bn(uniform((4, 3, 5, 5), device, dtype, i, 0, 1))
    assert int(bn.num_batches_tracked) == passes
    assert not torch.equal(bn.running_mean.cpu(), torch.zeros(3, dtype=dtype))
    weight, bias = bn.weight.detach().clone(), bn.bias.detach().clone()
    buffers = (bn.running_mean.data_ptr(), bn.running_var.data_ptr(), bn.num_batches_tracked.data_ptr())
    result = bench(bn.reset_running_stats)
    assert result is None
    _assert_reset(bn, dtype)
    assert (bn.running_mean.data_ptr(), bn.running_var.data_ptr(), bn.num_batches_tracked.data_ptr()) == buffers
    assert bn.running_mean.device == bn.weight.device
    assert torch.equal(bn.weight.detach(), weight) and torch.equal(bn.bias.detach(), bias)


# test_batchnorm_simple_average (momentum=None, a cumulative average): after a reset the statistics
# start again from the next batch; two batches after a reset average to the mean of their stats.
def test_reset_simple_average(bench, device):
    dtype = torch.float64
    bn = _bn(3, device, dtype, momentum=None)
    data1, data2 = uniform((4, 3, 2, 2), device, dtype, 1, 0, 1), uniform((4, 3, 2, 2), device, dtype, 2, 0, 1)
    res1 = bn(data1)
    mean1, var1 = bn.running_mean.clone(), bn.running_var.clone()
    bn.reset_running_stats()
    res2 = bn(data2)
    mean2, var2 = bn.running_mean.clone(), bn.running_var.clone()
    bench(bn.reset_running_stats)
    _assert_reset(bn, dtype)
    res3, res4 = bn(data1), bn(data2)
    torch.testing.assert_close(res3, res1)
    torch.testing.assert_close(res4, res2)
    torch.testing.assert_close(bn.running_mean, (mean1 + mean2) / 2)
    torch.testing.assert_close(bn.running_var, (var1 + var2) / 2)
    # and against NumPy: each cumulative stat is the batch's own mean / unbiased variance
    m1, v1 = _batch_stats(data1)
    m2, v2 = _batch_stats(data2)
    torch.testing.assert_close(bn.running_mean.cpu(), torch.from_numpy((m1 + m2) / 2))
    torch.testing.assert_close(bn.running_var.cpu(), torch.from_numpy((v1 + v2) / 2))
    assert int(bn.num_batches_tracked) == 2


# With the default momentum (0.1), the first training pass after a reset gives
# running = 0.9 * default + 0.1 * batch stat.
def test_reset_then_momentum_update(bench, device):
    dtype = torch.float32
    bn = _bn(8, device, dtype)
    bn(uniform((2, 8, 6, 6), device, dtype, 3, 0, 1) * 5 + 2)
    bench(bn.reset_running_stats)
    _assert_reset(bn, dtype)
    x = uniform((2, 8, 6, 6), device, dtype, 4, 0, 1)
    bn(x)
    m, v = _batch_stats(x)
    torch.testing.assert_close(bn.running_mean.cpu(), torch.from_numpy(0.1 * m).float())
    torch.testing.assert_close(bn.running_var.cpu(), torch.from_numpy(0.9 + 0.1 * v).float())
    assert int(bn.num_batches_tracked) == 1


# In eval mode after a reset the layer normalises with mean 0 and variance 1:
# y = x / sqrt(1 + eps) * weight + bias.
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
def test_reset_eval_forward(bench, device, affine):
    dtype = torch.float64
    bn = _bn(4, device, dtype, affine=affine)
    bn(uniform((3, 4, 5, 5), device, dtype, 5, 0, 1) * 3 - 1)
    bn.eval()
    bench(bn.reset_running_stats)
    _assert_reset(bn, dtype)
    x = uniform((3, 4, 5, 5), device, dtype, 6, 0, 1)
    out = bn(x)
    expected = x.cpu().numpy() / np.sqrt(1 + bn.eps)
    if affine:
        w = bn.weight.detach().cpu().numpy()[None, :, None, None]
        b = bn.bias.detach().cpu().numpy()[None, :, None, None]
        expected = expected * w + b
    torch.testing.assert_close(out.detach().cpu(), torch.from_numpy(expected))


# A layer that never ran (the defaults already) and a layer with track_running_stats=False (no
# buffers: reset is a no-op) both stay valid.
def test_reset_fresh(bench, device):
    bn = _bn(5, device, torch.float32)
    bench(bn.reset_running_stats)
    _assert_reset(bn, torch.float32)
    assert sorted(bn.state_dict()) == ["bias", "num_batches_tracked", "running_mean", "running_var", "weight"]


def test_reset_not_tracking(bench, device):
    bn = _bn(5, device, torch.float32, track_running_stats=False)
    x = uniform((2, 5, 3, 3), device, torch.float32, 7, 0, 1)
    before = bn(x)
    result = bench(bn.reset_running_stats)
    assert result is None
    assert bn.running_mean is None and bn.running_var is None and bn.num_batches_tracked is None
    assert sorted(bn.state_dict()) == ["bias", "weight"]
    torch.testing.assert_close(bn(x), before)  # still batch statistics, unchanged


# A wide layer (as in a ResNet's last stage), to time a realistic reset.
def test_reset_large(bench, device):
    bn = _bn(2048, device, torch.float32)
    bn(uniform((2, 2048, 4, 4), device, torch.float32, 8, 0, 1))
    bench(bn.reset_running_stats)
    _assert_reset(bn, torch.float32)
