"""torch.nn.Conv3d: cases adapted from pytorch/pytorch torch/testing/_internal/common_nn.py (the Conv3d entries of module_tests / new_module_tests run by test/test_nn.py: default, no_bias, 1x1x1_no_bias, groups, stride, stride_padding, zero_batch, dilated, dilated_strided, pad_valid, pad_same, pad_same_dilated, no_batch_dim) and test/nn/test_convolution.py (padding modes, same padding), and test/test_modules.py (TestModule's test_grad, test_gradgrad and test_memory_format over Conv3d's module inputs: gradients of the input and the parameters, channels_last_3d); UPSTREAM_TESTS below maps each to the cases here.

The module is built and its parameters are set from NumPy before timing; the timed call is the
module's forward. The reference is a direct float64 NumPy convolution (zero, circular, replicate or
reflect padding, stride, dilation, groups), compared with assert_close's defaults for the dtype.
"""
import pytest
import torch
from _gradients import check_conv_gradients
from _support import check_conv, conv_backward_inputs, conv_inputs, ids

pytestmark = pytest.mark.function("torch.nn.Conv3d", decile=80, top20=False)

UPSTREAM_TESTS = {
    # test_nn.py generates one test per common_nn entry: test_Conv3d, test_Conv3d_no_bias, ... (forward and gradients)
    "test/test_nn.py::TestNN::test_Conv3d": ["test_conv3d_module_tests", "test_conv3d_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_conv3d_module_tests", "test_conv3d_padding_modes"],
    "test/test_modules.py::TestModule::test_grad": ["test_conv3d_backward", "test_conv3d_channels_last_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_conv3d_backward"],
    "test/test_modules.py::TestModule::test_memory_format": [
        "test_conv3d_channels_last", "test_conv3d_channels_last_backward"],
    "test/test_modules.py::TestModule::test_cpu_gpu_parity": ["test_conv3d_backward"],
}

# (constructor args, constructor kwargs, input size), after common_nn's Conv3d entries.
MODULE_CASES = {
    "default": ((2, 3, (2, 3, 2)), {}, (1, 2, 4, 5, 4)),
    "no_bias": ((3, 4, (2, 3, 4), 1, 0, 1, 1, False), {}, (2, 3, 3, 4, 5)),
    "1x1x1_no_bias": ((2, 3, (1, 1, 1), 1, 0, 1, 1, False), {}, (2, 2, 3, 4, 5)),
    "groups": ((2, 4, (2, 3, 4)), {"groups": 2}, (1, 2, 4, 5, 4)),
    "stride": ((3, 4, 2, 2), {}, (2, 3, 5, 5, 5)),
    "stride_padding": ((3, 4, 2, 2, 1), {}, (2, 3, 5, 5, 5)),
    "zero_batch": ((3, 4, (2, 3, 4)), {}, (0, 3, 3, 4, 5)),
    "dilated": ((3, 4, 2, 1, 0, 2), {}, (2, 3, 5, 5, 5)),
    "dilated_strided": ((3, 4, 2, 2, 0, 2), {}, (2, 3, 5, 5, 5)),
    "pad_valid": ((3, 4, (2, 3, 4)), {"padding": "valid"}, (2, 3, 6, 5, 4)),
    "pad_same": ((3, 4, (2, 3, 4)), {"padding": "same"}, (2, 3, 6, 5, 4)),
    "pad_same_dilated": ((3, 4, (2, 3, 4)), {"padding": "same", "dilation": 2}, (2, 3, 6, 5, 4)),
    "no_batch_dim": ((3, 4, 3), {}, (3, 5, 5, 5)),
}


@pytest.mark.parametrize("name", list(MODULE_CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_conv3d_module_tests(bench, device, dtype, name):
    module, x = conv_inputs(torch.nn.Conv3d, *MODULE_CASES[name], device, dtype, seed=0)
    result = bench(module, x)
    check_conv(result, module, x)


# Non-zero padding modes (Conv3d's padding_mode), with a symmetric padding of 1 and 2.
@pytest.mark.parametrize("padding", [1, 2])
@pytest.mark.parametrize("padding_mode", ["circular", "replicate", "reflect"])
def test_conv3d_padding_modes(bench, device, padding_mode, padding):
    kwargs = {"padding": padding, "padding_mode": padding_mode}
    module, x = conv_inputs(torch.nn.Conv3d, (2, 3, 3), kwargs, (1, 2, 4, 5, 6), device, torch.float64, seed=2)
    result = bench(module, x)
    check_conv(result, module, x)


# A larger volume than upstream's, to time a realistic 3x3x3 layer.
def test_conv3d_large(bench, device):
    module, x = conv_inputs(torch.nn.Conv3d, (8, 16, 3), {"padding": 1}, (2, 8, 16, 16, 16), device, torch.float32,
                            seed=4)
    result = bench(module, x)
    check_conv(result, module, x)


# channels_last_3d input and module (test_memory_format): same values.
@pytest.mark.layout("channels_last")
def test_conv3d_channels_last(bench, device):
    module, x = conv_inputs(torch.nn.Conv3d, (4, 8, 3), {"padding": 1}, (2, 4, 6, 6, 6), device, torch.float32, seed=6)
    module = module.to(memory_format=torch.channels_last_3d)
    x = x.contiguous(memory_format=torch.channels_last_3d)
    result = bench(module, x)
    check_conv(result, module, x)


# test_grad / test_gradgrad / test_cpu_gpu_parity: the gradients of the input, the weight and the bias (the module's
# parameters) against the CPU's float64 ones; gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("name", ["default", "no_bias", "groups", "stride_padding", "pad_same"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_conv3d_backward(backward, device, dtype, name):
    module, x = conv_backward_inputs(torch.nn.Conv3d, *MODULE_CASES[name], device, dtype, seed=10)
    grads = backward(module, x)
    check_conv_gradients(grads, module, x)


# test_memory_format: the same gradients through a channels_last_3d input and module.
@pytest.mark.layout("channels_last")
def test_conv3d_channels_last_backward(backward, device):
    module, x = conv_backward_inputs(torch.nn.Conv3d, (2, 3, 2), {"padding": 1}, (2, 2, 4, 4, 4), device, torch.float32,
                                     seed=12, memory_format=torch.channels_last_3d)
    grads = backward(module, x)
    check_conv_gradients(grads, module, x, second_order=False)
