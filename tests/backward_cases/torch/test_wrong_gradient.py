"""A function whose forward is right and whose gradient is wrong, for tests/test_backward.py (not a curated function:
it lives under tests/, beside copies of the project's curated/torch helpers). sin through a custom autograd
Function: `off_in_float32`'s backward is 1e-3 off outside float64 (what a device's backward kernel that diverges looks
like: the float64 reference and gradcheck stay right); `off_everywhere`'s is 1e-2 off in float64 too (only the CPU's
finite differences can tell; gradcheck's rtol is 1e-3)."""
import numpy as np
import pytest
import torch
from _gradients import check_gradients

pytestmark = pytest.mark.function("torch.sin")


def _sin(error, wrong_in_float64):
    class Sin(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.sin(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            grad = g * torch.cos(x)
            return grad * (1 + error) if wrong_in_float64 or grad.dtype != torch.float64 else grad

    return Sin.apply


off_in_float32, off_everywhere = _sin(1e-3, False), _sin(1e-2, True)


def _x(device, requires_grad=False):
    values = np.linspace(-3.0, 3.0, 32)
    return torch.from_numpy(values).to(device=device, dtype=torch.float32).requires_grad_(requires_grad)


def test_forward(bench, device):
    x = _x(device)
    torch.testing.assert_close(bench(off_in_float32, x).cpu(), torch.sin(x).cpu())


def test_backward_off_in_float32(backward, device):
    x = _x(device, requires_grad=True)
    check_gradients(backward(off_in_float32, x), off_in_float32, (x,))


def test_backward_off_everywhere(backward, device):
    x = _x(device, requires_grad=True)
    check_gradients(backward(off_everywhere, x), off_everywhere, (x,))
