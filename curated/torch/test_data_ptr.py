"""torch.Tensor.data_ptr: cases adapted from pytorch/pytorch test/test_torch.py (test_data_ptr-style checks: a view's data_ptr is its base's plus storage_offset * element_size; test_storage_... : the storage's data_ptr is the contiguous tensor's; from_numpy shares the array's buffer; clone gets its own) and test/test_view_ops.py (views share memory: is_view_of compares data pointers and storage). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `t.data_ptr()`. Each case checks the integer it returns against the tensor's
storage address plus its offset, and the relations between tensors that share or do not share
memory.
"""
import numpy as np
import pytest
import torch
from _support import ids, storage_ptr

pytestmark = pytest.mark.function("torch.Tensor.data_ptr", decile=80, top20=False,
                                  backward="an integer address (a memory query): no gradient")

UPSTREAM_TESTS = {
    "test/test_torch.py::TestTorch::test_data_ptr": ["test_data_ptr_contiguous", "test_data_ptr_views",
        "test_data_ptr_inplace"],
    "test/test_torch.py::TestTorch::test_storage": ["test_data_ptr_contiguous", "test_data_ptr_copies_and_aliases"],
    "test/test_torch.py::TestTorch::test_from_numpy": ["test_data_ptr_from_numpy"],
    "test/test_view_ops.py::TestViewOps::test_view_as_real": ["test_data_ptr_views"],
}

_DTYPES = [torch.float32, torch.float64, torch.int8, torch.int64, torch.bool, torch.complex64, torch.float16,
           torch.bfloat16]


# A freshly allocated contiguous tensor: data_ptr is its storage's start, non-zero and aligned.
@pytest.mark.parametrize("dtype", _DTYPES, ids=ids)
def test_data_ptr_contiguous(bench, device, dtype):
    t = torch.zeros((16, 8), dtype=dtype, device=device)
    result = bench(t.data_ptr)
    assert isinstance(result, int)
    assert result != 0
    assert result == storage_ptr(t)
    assert result % t.element_size() == 0


# Views: slicing, narrow, select, a transposed view and every-other-element stride.
@pytest.mark.parametrize("view", ["row_slice", "narrow", "select", "transpose", "step", "flat_offset"])
def test_data_ptr_views(bench, device, view):
    base = torch.arange(60, dtype=torch.float32, device=device).reshape(6, 10)
    v = {"row_slice": lambda: base[2:5], "narrow": lambda: base.narrow(1, 3, 4),
         "select": lambda: base[4], "transpose": lambda: base.t(), "step": lambda: base[1:, ::3],
         "flat_offset": lambda: base.view(-1)[17:]}[view]()
    result = bench(v.data_ptr)
    assert result == base.data_ptr() + v.storage_offset() * v.element_size()
    assert storage_ptr(v) == storage_ptr(base)
    # the first element of the view is the element at that address
    first = v.reshape(-1)[0] if v.is_contiguous() else v.flatten()[0]
    assert float(first) == float(base.view(-1)[v.storage_offset()])


# clone and contiguous() of a non-contiguous view allocate new memory; contiguous() of a contiguous
# tensor and detach() return the same memory.
@pytest.mark.parametrize("op", ["clone", "contiguous_of_transposed", "contiguous_noop", "detach"])
def test_data_ptr_copies_and_aliases(bench, device, op):
    base = torch.randn((8, 5), device=device)
    t = {"clone": lambda: base.clone(), "contiguous_of_transposed": lambda: base.t().contiguous(),
         "contiguous_noop": lambda: base.contiguous(), "detach": lambda: base.detach()}[op]()
    result = bench(t.data_ptr)
    if op in ("clone", "contiguous_of_transposed"):
        assert result != base.data_ptr()
    else:
        assert result == base.data_ptr()


# from_numpy shares the NumPy buffer on the host; the moved copy's pointer is the device storage's.
def test_data_ptr_from_numpy(bench, device):
    array = np.arange(24, dtype=np.float32).reshape(4, 6)
    host = torch.from_numpy(array)
    t = host.to(device)
    result = bench(t.data_ptr)
    if t.device.type == "cpu":
        assert result == array.ctypes.data  # .to(cpu) returns the same tensor: no copy
    else:
        assert result != array.ctypes.data
    assert result == storage_ptr(t) + t.storage_offset() * t.element_size()
    np.testing.assert_array_equal(t.cpu().numpy(), array)


# In-place ops keep the pointer; an out-of-place op gets a new one.
def test_data_ptr_inplace(bench, device):
    t = torch.ones((32, 32), device=device)
    before = t.data_ptr()
    t.mul_(3).add_(1)
    result = bench(t.data_ptr)
    assert result == before
    assert (t + 1).data_ptr() != result
    assert float(t[0, 0]) == 4.0
