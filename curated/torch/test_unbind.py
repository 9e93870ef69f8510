"""torch.unbind: cases adapted from pytorch/pytorch test/test_view_ops.py (TestOldViewOps.test_unbind: unbind of a (3, 10, 10) tensor, every slice equal to select(dim, i), and the slices' gradients flowing back to the input, with gradcheck in float64; TestViewOps.test_unbind_view: the slices are views of the input, so a write to the input shows in them) and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over unbind's OpInfo). Added: more dtypes, a non-contiguous input and zero-size dims. UPSTREAM_TESTS below maps each to the cases here.

The timed call is `torch.unbind(x, dim)`. Each case checks the number of slices, their dtype, shape
and device, their values against NumPy's indexing of the same array, and that they are views
sharing the input's storage (a view of a view is made freshly by every call, so repetition is safe).
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import host, ids, random_tensor

pytestmark = pytest.mark.function("torch.unbind", decile=80, top20=False)

UPSTREAM_TESTS = {
    "test/test_view_ops.py::TestOldViewOps::test_unbind": [
        "test_unbind_dims", "test_unbind_dtypes", "test_unbind_noncontiguous", "test_unbind_zero_size",
        "test_unbind_autograd", "test_unbind_large", "test_unbind_backward"],
    "test/test_view_ops.py::TestViewOps::test_unbind_view": ["test_unbind_is_view"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_unbind_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_unbind_backward"],
}


def _array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * 10
    if dtype.is_complex:
        values = values + 1j * rng.standard_normal(shape)
    if dtype == torch.bool:
        return torch.from_numpy(values > 0)
    return torch.from_numpy(values).to(dtype)


def _check(x, parts, dim):
    x_np = host(x)
    assert isinstance(parts, tuple) and len(parts) == x.shape[dim]
    for i, part in enumerate(parts):
        assert part.dtype == x.dtype and part.device == x.device
        assert tuple(part.shape) == tuple(x.shape[:dim % x.dim()]) + tuple(x.shape[dim % x.dim() + 1:])
        np.testing.assert_array_equal(host(part), np.take(x_np, i, axis=dim))
        assert part._base is x or part._base is x._base  # a view of the input


# test_unbind: (3, 10, 10) along each dim, as in the upstream loop, plus negative dims.
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_unbind_dims(bench, device, dim):
    x = _array((3, 10, 10), torch.float32).to(device)
    parts = bench(torch.unbind, x, dim)
    _check(x, parts, dim)


# Every dtype family: the slices keep the dtype.
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int8,
                                   torch.uint8, torch.bool, torch.complex64], ids=ids)
def test_unbind_dtypes(bench, device, dtype):
    x = _array((4, 6, 5), dtype, seed=1).to(device)
    parts = bench(torch.unbind, x, dim=1)
    _check(x, parts, 1)


# test_unbind_view: the slices alias the input; writing the input shows through them.
def test_unbind_is_view(bench, device):
    x = torch.zeros((5, 5), device=device)
    parts = bench(torch.unbind, x)
    assert len(parts) == 5
    for i, part in enumerate(parts):
        assert part._base is x
        x[i, i] = i + 1
        assert float(part[i]) == i + 1
    np.testing.assert_array_equal(np.stack([host(p) for p in parts]), np.diag(np.arange(1.0, 6.0)).astype(np.float32))


# A non-contiguous (transposed) input: the slices follow its logical layout.
def test_unbind_noncontiguous(bench, device):
    x = _array((8, 16, 4), torch.float32, seed=2).to(device).transpose(0, 2)
    assert not x.is_contiguous()
    parts = bench(torch.unbind, x, 1)
    _check(x, parts, 1)


# Zero-size tensors: unbinding a size-0 dim gives no slices; unbinding another dim gives empty slices.
@pytest.mark.parametrize("shape, dim, count", [((0, 3), 0, 0), ((4, 0), 0, 4), ((2, 0, 3), 2, 3)],
                         ids=["empty-dim", "empty-slices", "middle-empty"])
def test_unbind_zero_size(bench, device, shape, dim, count):
    x = torch.empty(shape, device=device)
    parts = bench(torch.unbind, x, dim)
    assert isinstance(parts, tuple) and len(parts) == count
    for part in parts:
        assert part.numel() == 0 and part.device == x.device


# test_unbind (autograd): gradients of the slices reach the input.
def test_unbind_autograd(bench, device):
    x = _array((3, 4), torch.float64, seed=3).to(device).requires_grad_()
    parts = bench(torch.unbind, x, 0)
    _check(x, parts, 0)
    assert all(p.grad_fn is not None for p in parts)
    (parts[0] * 1 + parts[2] * 3).sum().backward()
    expected = np.zeros((3, 4))
    expected[0], expected[2] = 1, 3
    np.testing.assert_array_equal(host(x.grad), expected)


# A larger input: 512 slices of (1024,).
def test_unbind_large(bench, device):
    x = _array((512, 1024), torch.float32, seed=4).to(device)
    parts = bench(torch.unbind, x, 0)
    assert len(parts) == 512
    np.testing.assert_array_equal(np.stack([host(p) for p in parts]), host(x))
    assert all(p._base is x for p in parts)


# test_unbind's gradcheck, test_fn_grad / test_fn_gradgrad: every slice's cotangent stacked back into the input's
# gradient, against the CPU's float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and
# complex128; a device trains in float32 and bfloat16 too.
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_unbind_backward(backward, device, dtype, dim):
    x = random_tensor((3, 4, 2), dtype, device, 5).requires_grad_(True)
    grads = backward(torch.unbind, x, dim)
    check_gradients(grads, torch.unbind, (x, dim), second_order=True)
