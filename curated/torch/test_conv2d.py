"""torch.nn.Conv2d: cases adapted from pytorch/pytorch torch/testing/_internal/common_nn.py (the Conv2d entries of module_tests / new_module_tests run by test/test_nn.py: default, strided, padding, dilated, no_bias, groups, depthwise, depthwise_with_multiplier, depthwise_strided, depthwise_padded, depthwise_dilated, zero_batch, pad_valid, pad_same, pad_same_dilated, no_batch_dim) and test/nn/test_convolution.py (padding modes, channels_last inputs, test_Conv2d_large_workspace-style larger layers), and test/test_modules.py (TestModule's test_grad, test_gradgrad and test_memory_format over Conv2d's module inputs: gradients of the input and the parameters, channels_last); UPSTREAM_TESTS below maps each to the cases here.

The module is built and its parameters are set from NumPy before timing; the timed call is the
module's forward. The reference is a direct float64 NumPy convolution (zero, circular, replicate or
reflect padding, stride, dilation, groups), compared with assert_close's defaults for the dtype.
"""
import pytest
import torch
from _gradients import check_gradients
from _support import check_conv, conv_inputs, ids

pytestmark = pytest.mark.function("torch.nn.Conv2d", decile=100, top20=True)

UPSTREAM_TESTS = {
    # test_nn.py generates one test per common_nn entry: test_Conv2d, test_Conv2d_strided, ... (forward and gradients)
    "test/test_nn.py::TestNN::test_Conv2d": ["test_conv2d_module_tests", "test_conv2d_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_conv2d_module_tests", "test_conv2d_padding_modes"],
    "test/test_modules.py::TestModule::test_grad": ["test_conv2d_backward", "test_conv2d_channels_last_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_conv2d_backward"],
    "test/test_modules.py::TestModule::test_memory_format": [
        "test_conv2d_channels_last", "test_conv2d_channels_last_backward"],
    "test/test_modules.py::TestModule::test_cpu_gpu_parity": ["test_conv2d_backward"],
}

# (constructor args, constructor kwargs, input size), after common_nn's Conv2d entries.
MODULE_CASES = {
    "default": ((3, 4, (3, 2)), {}, (2, 3, 7, 5)),
    "strided": ((3, 4, (3, 3), (2, 2)), {}, (2, 3, 6, 6)),
    "padding": ((3, 4, (3, 3), (2, 2), (1, 1)), {}, (2, 3, 6, 6)),
    "dilated": ((3, 4, (3, 4), 1, 0, (3, 2)), {}, (2, 3, 8, 8)),
    "no_bias": ((3, 4, (3, 2), 1, 0, 1, 1, False), {}, (2, 3, 6, 5)),
    "groups": ((4, 6, (3, 2)), {"groups": 2}, (2, 4, 6, 5)),
    "depthwise": ((4, 4, (3, 3)), {"groups": 4}, (2, 4, 6, 6)),
    "depthwise_with_multiplier": ((4, 8, (3, 3)), {"groups": 4}, (2, 4, 6, 6)),
    "depthwise_strided": ((4, 4, (3, 3)), {"stride": (2, 2), "groups": 4}, (2, 4, 6, 6)),
    "depthwise_padded": ((4, 4, (3, 3)), {"padding": (1, 1), "groups": 4}, (2, 4, 6, 6)),
    "depthwise_dilated": ((4, 4, (2, 2)), {"dilation": (2, 2), "groups": 4}, (2, 4, 5, 5)),
    "zero_batch": ((3, 4, (3, 2)), {}, (0, 3, 7, 5)),
    "pad_valid": ((2, 4, (3, 4)), {"padding": "valid"}, (2, 2, 6, 5)),
    "pad_same": ((2, 4, (3, 4)), {"padding": "same"}, (2, 2, 6, 5)),
    "pad_same_dilated": ((2, 4, (3, 4)), {"padding": "same", "dilation": 2}, (2, 2, 6, 5)),
    "no_batch_dim": ((3, 4, 3), {}, (3, 6, 6)),
}


@pytest.mark.parametrize("name", list(MODULE_CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_conv2d_module_tests(bench, device, dtype, name):
    module, x = conv_inputs(torch.nn.Conv2d, *MODULE_CASES[name], device, dtype, seed=0)
    result = bench(module, x)
    check_conv(result, module, x)


# Non-zero padding modes (Conv2d's padding_mode), with a symmetric padding of 1 and 2.
@pytest.mark.parametrize("padding", [1, 2])
@pytest.mark.parametrize("padding_mode", ["circular", "replicate", "reflect"])
def test_conv2d_padding_modes(bench, device, padding_mode, padding):
    kwargs = {"padding": padding, "padding_mode": padding_mode}
    module, x = conv_inputs(torch.nn.Conv2d, (2, 3, 3), kwargs, (1, 2, 5, 6), device, torch.float64, seed=2)
    result = bench(module, x)
    check_conv(result, module, x)


# channels_last input and module (test_convolution's memory-format tests): same values.
@pytest.mark.layout("channels_last")
def test_conv2d_channels_last(bench, device):
    module, x = conv_inputs(torch.nn.Conv2d, (8, 16, 3), {"padding": 1}, (2, 8, 10, 10), device, torch.float32,
                            seed=4)
    module, x = module.to(memory_format=torch.channels_last), x.contiguous(memory_format=torch.channels_last)
    result = bench(module, x)
    check_conv(result, module, x)


# test_grad / test_gradgrad / test_cpu_gpu_parity: the gradients of the input, the weight and the bias (the module's
# parameters) against the CPU's float64 ones; gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("name", ["default", "strided", "groups", "pad_same", "no_bias"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_conv2d_backward(backward, device, dtype, name):
    module, x = conv_inputs(torch.nn.Conv2d, *MODULE_CASES[name], device, dtype, seed=10)
    x.requires_grad_(True)
    grads = backward(module, x)
    assert len(grads) == 2 + (module.bias is not None)  # the input's, the weight's, the bias's
    check_gradients(grads, module, (x,), rtol=1e-5 if dtype == torch.float32 else None, second_order=True)


# test_memory_format: the same gradients through a channels_last input and module.
@pytest.mark.layout("channels_last")
def test_conv2d_channels_last_backward(backward, device):
    module, x = conv_inputs(torch.nn.Conv2d, (4, 6, 3), {"padding": 1}, (2, 4, 6, 6), device, torch.float32, seed=12)
    module = module.to(memory_format=torch.channels_last)
    x = x.contiguous(memory_format=torch.channels_last).requires_grad_(True)
    grads = backward(module, x)
    check_gradients(grads, module, (x,), rtol=1e-5)


# Larger layers, to time realistic 3x3 and strided 7x7 convolutions.
@pytest.mark.parametrize("config", ["3x3", "7x7_stride2"])
def test_conv2d_large(bench, device, config):
    if config == "3x3":
        args, kwargs, input_size, seed = (32, 64, 3), {"padding": 1}, (4, 32, 32, 32), 6
    else:
        args, kwargs, input_size, seed = (3, 32, 7), {"stride": 2, "padding": 3}, (4, 3, 64, 64), 8
    module, x = conv_inputs(torch.nn.Conv2d, args, kwargs, input_size, device, torch.float32, seed=seed)
    result = bench(module, x)
    check_conv(result, module, x)
