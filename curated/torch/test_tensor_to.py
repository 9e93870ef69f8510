"""torch.Tensor.to: cases adapted from pytorch/pytorch test/test_torch.py (test_to: to(dtype), to(device), to(device, dtype), to(other) and copy=True, with `a.to(a.device) is a` when nothing changes; test_to_with_tensor: to(other) takes the other tensor's device; test_memory_format_to / test_memory_format_type: memory_format=torch.channels_last) and test_type_conversions (float -> integer truncates toward zero, values to bool, int -> float); test/test_cuda.py (TestCuda.test_to_non_blocking: a pinned host tensor to the GPU and a GPU tensor to pinned host memory, non_blocking); test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over the 'to' OpInfo: the gradient goes back to the source's device, dtype and layout). UPSTREAM_TESTS below maps each to the cases here.

The timed call is `x.to(...)`. Moving a host tensor to the cell's device is the function's own work,
so those cases build x on the CPU; the others build it on the device. Each case checks dtype,
device, shape (and strides for memory_format), the values against NumPy exactly, and whether the
result is `x` itself (no conversion needed) or a new tensor (copy=True or a real conversion).
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import host, ids, need_cuda, np_dtype, randn

pytestmark = pytest.mark.function("torch.Tensor.to", decile=100, top20=True)

UPSTREAM_TESTS = {
    "test/test_torch.py::TestTorch::test_to": [
        "test_to_dtype", "test_to_noop_and_copy", "test_to_host_to_device", "test_to_autograd", "test_to_bfloat16"],
    "test/test_torch.py::TestTorch::test_to_with_tensor": ["test_to_noop_and_copy", "test_to_host_to_device"],
    "test/test_torch.py::TestTorch::test_memory_format_to": ["test_to_channels_last"],
    "test/test_cuda.py::TestCuda::test_to_non_blocking": ["test_to_pinned_non_blocking"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_to_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_to_backward"],
}


# test_to: to(dtype) on the device, between floating, integer, bool and complex dtypes.
@pytest.mark.parametrize("src, dst", [
    (torch.float32, torch.float64), (torch.float64, torch.float32), (torch.float32, torch.float16),
    (torch.float32, torch.int32), (torch.float64, torch.int64), (torch.int64, torch.float32),
    (torch.int32, torch.int8), (torch.float32, torch.bool), (torch.float32, torch.complex64),
    (torch.uint8, torch.float32),
], ids=ids)
def test_to_dtype(bench, device, src, dst):
    rng = np.random.default_rng(0)
    values = np.round(rng.uniform(-50, 50, (64, 64)), 2)
    if not src.is_floating_point:
        values = np.trunc(values) % 128 if src == torch.uint8 else np.trunc(values)
    values[0, :4] = 0  # some zeros, so the bool conversion has both values
    x_np = values.astype(np_dtype(src))
    x = torch.from_numpy(x_np).to(device)
    y = bench(x.to, dst)
    assert y.dtype == dst and y.device == x.device and tuple(y.shape) == (64, 64) and y is not x
    # NumPy's astype truncates floats toward zero and maps non-zero to True, as torch does.
    np.testing.assert_array_equal(host(y), x_np.astype(np_dtype(dst)))


# test_to: when dtype and device already match, `to` returns the tensor itself; copy=True a new one.
@pytest.mark.parametrize("copy", [False, True], ids=["same", "copy"])
@pytest.mark.parametrize("how", ["dtype", "device", "device-dtype", "other"])
def test_to_noop_and_copy(bench, device, how, copy):
    x = torch.arange(24, dtype=torch.float32, device=device).reshape(2, 3, 4)
    args = {"dtype": (torch.float32,), "device": (x.device,), "device-dtype": (x.device, torch.float32),
            "other": (torch.empty(1, dtype=torch.float32, device=device),)}[how]
    y = bench(x.to, *args, copy=copy)
    assert y.dtype == torch.float32 and y.device == x.device
    if copy:
        assert y is not x and y.data_ptr() != x.data_ptr()
    else:
        assert y is x
    np.testing.assert_array_equal(host(y), np.arange(24, dtype=np.float32).reshape(2, 3, 4))


# test_to / test_to_with_tensor: a host tensor moved to the cell's device (with and without a dtype,
# and with non_blocking=True, which is only a hint for a CPU source that is not pinned).
@pytest.mark.parametrize("how", ["device", "device-dtype", "other", "non_blocking"])
def test_to_host_to_device(bench, device, how):
    x_np = np.random.default_rng(1).standard_normal((128, 256)).astype(np.float32)
    x = torch.from_numpy(x_np)  # on the host
    target = torch.empty(0, dtype=torch.float64, device=device)
    args, kwargs, dtype = {
        "device": ((device,), {}, torch.float32),
        "device-dtype": ((device, torch.float64), {}, torch.float64),
        "other": ((target,), {}, torch.float64),
        "non_blocking": ((device,), {"non_blocking": True}, torch.float32),
    }[how]
    y = bench(x.to, *args, **kwargs)
    assert y.device.type == device.type and y.dtype == dtype and tuple(y.shape) == (128, 256)
    if device.type == "cpu" and dtype == torch.float32:
        assert y is x  # already there: no copy
    np.testing.assert_array_equal(host(y), x_np.astype(np_dtype(dtype)))


# test_memory_format_to: channels_last gives NHWC strides and the same logical values.
@pytest.mark.layout("channels_last")
@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (4, 16, 5, 7)], ids=str)
def test_to_channels_last(bench, device, shape):
    x_np = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    x = torch.from_numpy(x_np).to(device)
    y = bench(x.to, memory_format=torch.channels_last)
    n, c, h, w = shape
    assert y.is_contiguous(memory_format=torch.channels_last) and not y.is_contiguous()
    assert y.stride() == (h * w * c, 1, w * c, c)
    assert tuple(y.shape) == shape and y.dtype == torch.float32 and y.device == x.device
    np.testing.assert_array_equal(host(y), x_np)


# to(dtype) keeps autograd: the result of a float64 -> float32 conversion is differentiable.
def test_to_autograd(bench, device):
    x = torch.linspace(-1, 1, 50, dtype=torch.float64, device=device).requires_grad_()
    y = bench(x.to, torch.float32)
    assert y.dtype == torch.float32 and y.requires_grad and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.dtype == torch.float64
    np.testing.assert_allclose(host(x.grad), 2 * host(x).astype(np.float32), rtol=1e-6)


# to(bfloat16) rounds to the nearest representable value (checked against the float32 round trip).
def test_to_bfloat16(bench, device):
    x_np = np.random.default_rng(3).standard_normal(4096).astype(np.float32)
    x = torch.from_numpy(x_np).to(device)
    y = bench(x.to, torch.bfloat16)
    assert y.dtype == torch.bfloat16 and y.device == x.device
    got = host(y)
    # bfloat16 keeps 8 significant bits: relative error at most 2**-8.
    np.testing.assert_allclose(got, x_np, rtol=2.0 ** -8, atol=0)
    np.testing.assert_array_equal(got, host(torch.from_numpy(x_np).to(torch.bfloat16)))


# TestCuda.test_to_non_blocking: a pinned host tensor copied to the GPU, and a GPU tensor copied to the host (which
# then lands in pinned memory), both with non_blocking=True; each equals its source once the device has synchronized.
# Pinned memory needs CUDA: elsewhere the case skips.
@pytest.mark.layout("pinned")
@pytest.mark.parametrize("direction", ["host_to_device", pytest.param("device_to_host", marks=pytest.mark.host_output(
    "a copy to the host"))])
def test_to_pinned_non_blocking(bench, device, direction):
    need_cuda(device, "pinned memory: ")
    x_np = np.random.default_rng(4).standard_normal((256, 1024)).astype(np.float32)
    if direction == "host_to_device":
        x = torch.from_numpy(x_np).pin_memory()
        y = bench(x.to, device, non_blocking=True)
        assert y.device.type == device.type
    else:
        x = torch.from_numpy(x_np).to(device)
        y = bench(x.to, "cpu", non_blocking=True)
        assert y.is_pinned()
    torch.cuda.synchronize(device)
    np.testing.assert_array_equal(host(y), x_np)


# test_fn_grad / test_fn_gradgrad over the 'to' OpInfo's kinds of call: to another dtype (the gradient comes back in
# the source's), from the host to the cell's device (the gradient comes back to the host) and to channels_last (the
# gradient comes back in the source's layout), against the CPU's float64 gradient, with gradcheck and gradgradcheck
# on the CPU.
@pytest.mark.parametrize("how", ["dtype",
                                 pytest.param("host_to_device", marks=pytest.mark.host_output("the host input's gradient")),
                                 pytest.param("channels_last", marks=pytest.mark.layout("channels_last"))])
def test_to_backward(backward, device, how):
    x = randn((2, 3, 4, 5), "cpu" if how == "host_to_device" else device, torch.float32, 5, requires_grad=True)
    args, kwargs = {"dtype": ((torch.float64,), {}), "host_to_device": ((device,), {}),
                    "channels_last": ((), {"memory_format": torch.channels_last})}[how]
    grads = backward(torch.Tensor.to, x, *args, **kwargs)
    assert grads[0].device == x.device and grads[0].dtype == x.dtype
    check_gradients(grads, torch.Tensor.to, (x, *args), kwargs, second_order=True)
