"""torch.nn.functional.group_norm: cases adapted from pytorch/pytorch torch/testing/_internal/common_methods_invocations.py (sample_inputs_group_norm: ((1, 6, 3), 2, eps=0.5), ((2, 6, 3), 2, eps=-0.5), ((1, 3), 1, eps=1e-5), ((0, 2), 1, eps=1e-5), ((S, S, S), 1, eps=1e-5), with and without weight and bias; reference_group_norm) and test/test_nn.py (test_GroupNorm_general over 4-D and 5-D shapes, test_GroupNorm_numeric, channels_last inputs), and test/test_ops_gradients.py (TestBwdGradients' test_fn_grad and test_fn_gradgrad over group_norm's OpInfo: the gradients of the input, the weight and the bias); UPSTREAM_TESTS below maps each to the cases here.

The timed call is F.group_norm(x, num_groups, weight, bias, eps). The reference is the documented
computation in float64 NumPy: per sample and group, subtract the mean and divide by
sqrt(biased variance + eps), then scale and shift per channel. Compared with assert_close's
defaults for the dtype (bfloat16 at upstream's 1e-2-style tolerance).
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _gradients import check_gradients
from _support import check_close, host64, ids, to_device

pytestmark = pytest.mark.function("torch.nn.functional.group_norm", decile=40, top20=False)

UPSTREAM_TESTS = {
    "test/test_ops.py::TestCommon::test_compare_cpu": ["test_group_norm_samples", "test_group_norm_bfloat16"],
    "test/test_nn.py::TestNNDeviceType::test_GroupNorm_general": ["test_group_norm_general", "test_group_norm_large"],
    "test/test_nn.py::TestNNDeviceType::test_GroupNorm_numeric": ["test_group_norm_samples"],
    "test/test_nn.py::TestNNDeviceType::test_GroupNorm_memory_format": [
        "test_group_norm_channels_last", "test_group_norm_channels_last_backward"],
    "test/test_nn.py::TestNNDeviceType::test_GroupNorm_raises_error_if_one_value_per_group":
        "an error message for a bad num_groups: no device computes anything",
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": [
        "test_group_norm_backward", "test_group_norm_channels_last_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_group_norm_backward"],
}


def _np_group_norm(x, groups, weight, bias, eps):
    n, c = x.shape[0], x.shape[1]
    grouped = x.reshape(n, groups, int(np.prod(x.shape[1:], dtype=np.int64)) // groups)
    mean = grouped.mean(-1, keepdims=True)
    var = grouped.var(-1, keepdims=True)
    out = ((grouped - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _run_and_check(bench, device, shape, groups, eps, dtype, affine=True, seed=0, channels_last=False):
    rng = np.random.default_rng(seed)
    x = to_device(rng.standard_normal(shape) * 2 + 0.5, device, dtype)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    c = shape[1]
    weight = to_device(rng.uniform(0.5, 1.5, c), device, dtype) if affine else None
    bias = to_device(rng.uniform(-0.5, 0.5, c), device, dtype) if affine else None
    result = bench(F.group_norm, x, groups, weight, bias, eps)
    expected = _np_group_norm(host64(x), groups, host64(weight), host64(bias), eps)
    assert tuple(result.shape) == tuple(shape)
    check_close(result, expected, dtype, bfloat16_tol=(1.6e-2, 1e-2))


# sample_inputs_group_norm's cases (S = 5), affine and not.
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize("shape, groups, eps", [((1, 6, 3), 2, 0.5), ((2, 6, 3), 2, -0.5), ((1, 3), 1, 1e-5),
                                                ((0, 2), 1, 1e-5), ((5, 5, 5), 1, 1e-5)],
                         ids=["1x6x3-g2-eps0.5", "2x6x3-g2-eps-0.5", "1x3-g1", "0x2-g1", "5x5x5-g1"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_group_norm_samples(bench, device, dtype, shape, groups, eps, affine):
    _run_and_check(bench, device, shape, groups, eps, dtype, affine=affine)


# test_GroupNorm_general: 4-D and 5-D inputs, groups from 1 (layer-norm-like) to C (instance-norm-like).
@pytest.mark.parametrize("shape, groups", [((2, 6, 4, 4), 3), ((2, 6, 4, 4), 1), ((2, 6, 4, 4), 6),
                                           ((2, 4, 3, 4, 5), 2)],
                         ids=["4d-g3", "4d-g1", "4d-g6", "5d-g2"])
def test_group_norm_general(bench, device, shape, groups):
    _run_and_check(bench, device, shape, groups, 1e-5, torch.float32, seed=1)


# bfloat16 (the CPU kernel accumulates in float).
def test_group_norm_bfloat16(bench, device):
    _run_and_check(bench, device, (4, 8, 6, 6), 4, 1e-5, torch.bfloat16, seed=2)


# channels_last 4-D input (test_GroupNorm's memory-format variant).
@pytest.mark.layout("channels_last")
def test_group_norm_channels_last(bench, device):
    _run_and_check(bench, device, (2, 8, 5, 5), 4, 1e-5, torch.float32, seed=3, channels_last=True)


# A larger activation (8 x 64 channels of 32 x 32), 32 groups, as in ResNet-style GroupNorm layers.
def test_group_norm_large(bench, device):
    _run_and_check(bench, device, (8, 64, 32, 32), 32, 1e-5, torch.float32, seed=4)


def _backward_inputs(device, shape, dtype, seed, affine=True, memory_format=torch.contiguous_format):
    rng = np.random.default_rng(seed)
    x = to_device(rng.standard_normal(shape) * 2 + 0.5, device, dtype).contiguous(memory_format=memory_format)
    c = shape[1]
    weight = to_device(rng.uniform(0.5, 1.5, c), device, dtype, requires_grad=True) if affine else None
    bias = to_device(rng.uniform(-0.5, 0.5, c), device, dtype, requires_grad=True) if affine else None
    return x.requires_grad_(True), weight, bias


# test_fn_grad / test_fn_gradgrad: the gradients of the input, the weight and the bias against the CPU's float64
# ones, with gradcheck and gradgradcheck on the CPU; float32 and float64 as upstream, bfloat16 as a device trains.
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 2), ((2, 4, 3, 3), 4)], ids=["2x6x3-g2", "2x4x3x3-g4"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
def test_group_norm_backward(backward, device, dtype, shape, groups, affine):
    x, weight, bias = _backward_inputs(device, shape, dtype, seed=5, affine=affine)
    grads = backward(F.group_norm, x, groups, weight, bias, 1e-5)
    assert len(grads) == (3 if affine else 1)
    tolerance = {"rtol": 5e-2, "atol": 5e-2} if dtype == torch.bfloat16 else {"rtol": 1e-4, "atol": 1e-5}
    check_gradients(grads, F.group_norm, (x, groups, weight, bias, 1e-5), second_order=True, **tolerance)


# The same gradients through a channels_last input.
@pytest.mark.layout("channels_last")
def test_group_norm_channels_last_backward(backward, device):
    x, weight, bias = _backward_inputs(device, (2, 4, 3, 3), torch.float32, seed=6,
                                       memory_format=torch.channels_last)
    grads = backward(F.group_norm, x, 2, weight, bias, 1e-5)
    check_gradients(grads, F.group_norm, (x, 2, weight, bias, 1e-5), rtol=1e-4, atol=1e-5)
