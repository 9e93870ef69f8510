"""torch.nn.AdaptiveAvgPool3d: cases adapted from pytorch/pytorch torch/testing/_internal/common_nn.py (the AdaptiveAvgPool3d entries run by test/test_nn.py: single, tuple, tuple_none, last_dim, no_batch_dim) and test/nn/test_pooling.py (test_adaptive_pooling_size_none, output size 1 (global pooling), channels_last_3d inputs, empty batch, the CPU dtype sweep), and test/test_modules.py (TestModule's test_grad, test_gradgrad and test_memory_format over AdaptiveAvgPool3d's module inputs: the input's gradient, channels_last_3d); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the module's forward. The reference is the documented adaptive pooling in float64
NumPy: output cell i along a dimension of length L averages input positions floor(i * L / out) to
ceil((i + 1) * L / out) - 1. Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, ntuple, randn

pytestmark = pytest.mark.function("torch.nn.AdaptiveAvgPool3d", decile=30, top20=False)

UPSTREAM_TESTS = {
    # test_nn.py generates one test per common_nn entry: test_AdaptiveAvgPool3d_single, ... (forward and gradients)
    "test/test_nn.py::TestNN::test_AdaptiveAvgPool3d": [
        "test_adaptive_avg_pool3d_module_tests", "test_adaptive_avg_pool3d_backward"],
    "test/nn/test_pooling.py::TestPoolingNN::test_adaptive_pooling_size_none": [
        "test_adaptive_avg_pool3d_module_tests"],
    "test/test_modules.py::TestModule::test_forward": [
        "test_adaptive_avg_pool3d_module_tests", "test_adaptive_avg_pool3d_non_contiguous",
        "test_adaptive_avg_pool3d_empty_batch", "test_adaptive_avg_pool3d_large"],
    "test/test_modules.py::TestModule::test_grad": [
        "test_adaptive_avg_pool3d_backward", "test_adaptive_avg_pool3d_channels_last_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_adaptive_avg_pool3d_backward"],
    "test/test_modules.py::TestModule::test_memory_format": [
        "test_adaptive_avg_pool3d_channels_last", "test_adaptive_avg_pool3d_channels_last_backward"],
}


def _np_adaptive_avg_pool3d(x, output_size):
    """x: (..., D, H, W) float64; output_size: three ints or None (keep that dimension)."""
    sizes = [s if o is None else o for s, o in zip(x.shape[-3:], output_size)]
    out = np.empty(x.shape[:-3] + tuple(sizes))
    bounds = []
    for length, n in zip(x.shape[-3:], sizes):
        bounds.append([(i * length // n, -(-(i + 1) * length // n)) for i in range(n)])
    for i, (d0, d1) in enumerate(bounds[0]):
        for j, (h0, h1) in enumerate(bounds[1]):
            for k, (w0, w1) in enumerate(bounds[2]):
                out[..., i, j, k] = x[..., d0:d1, h0:h1, w0:w1].mean(axis=(-3, -2, -1))
    return out


def _check(result, x, output_size):
    check_close(result, _np_adaptive_avg_pool3d(host64(x), ntuple(output_size, 3)), x.dtype)


# common_nn's AdaptiveAvgPool3d entries (output size, input size).
MODULE_CASES = {
    "single": (3, (2, 3, 5, 2, 7)),
    "tuple": ((3, 4, 5), (2, 3, 5, 3, 7)),
    "tuple_none": ((None, 4, 5), (2, 3, 5, 3, 7)),
    "last_dim": ((3, 1, 5), (2, 3, 5, 2, 5)),
    "no_batch_dim": ((3, 4, 5), (3, 5, 3, 7)),
    "global": (1, (2, 4, 6, 6, 6)),
    "upsample": ((6, 5, 8), (1, 2, 3, 4, 5)),
}


@pytest.mark.parametrize("name", list(MODULE_CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_adaptive_avg_pool3d_module_tests(bench, device, dtype, name):
    output_size, input_size = MODULE_CASES[name]
    x = randn(input_size, device, dtype, seed=len(name))
    result = bench(torch.nn.AdaptiveAvgPool3d(output_size), x)
    _check(result, x, output_size)


# channels_last_3d input: the values must not depend on the memory format.
@pytest.mark.layout("channels_last")
@pytest.mark.parametrize("output_size", [(2, 3, 4), 1], ids=["2x3x4", "1"])
def test_adaptive_avg_pool3d_channels_last(bench, device, output_size):
    x = randn((2, 5, 6, 7, 8), device, torch.float32, seed=1).contiguous(memory_format=torch.channels_last_3d)
    result = bench(torch.nn.AdaptiveAvgPool3d(output_size), x)
    _check(result, x, output_size)


# A non-contiguous (permuted) input.
def test_adaptive_avg_pool3d_non_contiguous(bench, device):
    x = randn((2, 3, 6, 5, 4), device, torch.float64, seed=2).transpose(2, 4)
    assert not x.is_contiguous()
    result = bench(torch.nn.AdaptiveAvgPool3d((2, 2, 3)), x)
    _check(result, x, (2, 2, 3))


# An empty batch (test_pooling's zero-batch checks): the output is empty with the pooled shape.
def test_adaptive_avg_pool3d_empty_batch(bench, device):
    x = torch.empty((0, 3, 4, 4, 4), device=device)
    result = bench(torch.nn.AdaptiveAvgPool3d((2, 2, 2)), x)
    assert tuple(result.shape) == (0, 3, 2, 2, 2) and result.dtype == torch.float32


# A larger volume, to time a realistic pooling.
@pytest.mark.parametrize("output_size", [(4, 4, 4), 1], ids=["4x4x4", "global"])
def test_adaptive_avg_pool3d_large(bench, device, output_size):
    x = randn((2, 16, 16, 32, 32), device, torch.float32, seed=3)
    result = bench(torch.nn.AdaptiveAvgPool3d(output_size), x)
    _check(result, x, output_size)


# test_grad / test_gradgrad (and common_nn's gradient checks): the input's gradient, each output cell's cotangent
# spread evenly over its window, against the CPU's float64 one, with gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("name", ["single", "tuple_none", "upsample"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_adaptive_avg_pool3d_backward(backward, device, dtype, name):
    output_size, input_size = MODULE_CASES[name]
    x = randn(input_size, device, dtype, seed=len(name) + 10, requires_grad=True)
    module = torch.nn.AdaptiveAvgPool3d(output_size)
    grads = backward(module, x)
    check_gradients(grads, module, (x,), second_order=True)


# test_memory_format: the same gradient through a channels_last_3d input.
@pytest.mark.layout("channels_last")
def test_adaptive_avg_pool3d_channels_last_backward(backward, device):
    x = randn((2, 3, 4, 5, 6), device, torch.float32, seed=12).contiguous(memory_format=torch.channels_last_3d)
    x.requires_grad_(True)
    module = torch.nn.AdaptiveAvgPool3d((2, 3, 2))
    grads = backward(module, x)
    check_gradients(grads, module, (x,))
