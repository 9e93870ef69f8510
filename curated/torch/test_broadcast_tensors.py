"""torch.broadcast_tensors: cases adapted from pytorch/pytorch torch/testing/_internal/common_methods_invocations.py (sample_inputs_broadcast_tensors: ((3,), (1, 2, 1), (1, 1), (5, 1, 1)); reference_inputs_broadcast_tensors: ((), (1, 1), (1, 1, 7, 1), (3, 1, 1)) and ((3, 5, 6), (1, 3, 5, 6), (1, 1, 1, 1, 6), (8, 3, 5, 6)), contiguous and not; incompatible shapes raise) and test/test_view_ops.py (test_broadcast_tensors_* : outputs are expanded views of the inputs, dtypes are kept).

The timed call is torch.broadcast_tensors(*tensors). Each output must equal NumPy's
np.broadcast_arrays of the inputs exactly, keep its input's dtype and device, and be a view of its
input (same storage, no copy).
"""
import numpy as np
import pytest
import torch
from _support import random_array, storage_ptr

pytestmark = pytest.mark.function("torch.broadcast_tensors", decile=50, top20=False)

_DTYPES = [torch.float32, torch.int64, torch.bool, torch.float64, torch.complex64]


def _noncontiguous(array, device):
    """The same values in a tensor that is a strided view (every other element of a larger buffer)."""
    buffer = np.zeros(array.shape + (2,), dtype=array.dtype)
    buffer[..., 0] = array
    return torch.from_numpy(buffer).to(device)[..., 0]


def _run_and_check(bench, device, shapes, dtypes, noncontiguous=False):
    arrays = [random_array(s, d, i) for i, (s, d) in enumerate(zip(shapes, dtypes))]
    if noncontiguous:
        tensors = [_noncontiguous(a, device) for a in arrays]
        for t in tensors:
            assert t.numel() <= 1 or not t.is_contiguous()
    else:
        tensors = [torch.from_numpy(a.copy()).to(device) for a in arrays]
    result = bench(torch.broadcast_tensors, *tensors)
    expected = np.broadcast_arrays(*arrays)
    assert len(result) == len(tensors)
    for out, t, e in zip(result, tensors, expected):
        assert out.dtype == t.dtype and out.device == t.device
        assert tuple(out.shape) == e.shape
        assert storage_ptr(out) == storage_ptr(t)  # a view, not a copy
        np.testing.assert_array_equal(out.cpu().numpy(), e)


# sample_inputs_broadcast_tensors' shape sets, in float32.
@pytest.mark.parametrize("noncontiguous", [False, True], ids=["contiguous", "noncontiguous"])
@pytest.mark.parametrize("shapes", [((3,), (1, 2, 1), (1, 1), (5, 1, 1)), ((), (1, 1), (1, 1, 7, 1), (3, 1, 1)),
                                    ((3, 5, 6), (1, 3, 5, 6), (1, 1, 1, 1, 6), (8, 3, 5, 6))],
                         ids=["3|1x2x1|1x1|5x1x1", "scalar|1x1|1x1x7x1|3x1x1", "3x5x6|1x3x5x6|1x1x1x1x6|8x3x5x6"])
def test_broadcast_tensors_sample_shapes(bench, device, shapes, noncontiguous):
    _run_and_check(bench, device, shapes, [torch.float32] * len(shapes), noncontiguous)


# Mixed dtypes: broadcasting never promotes, each output keeps its own dtype.
def test_broadcast_tensors_mixed_dtypes(bench, device):
    shapes = [(4, 1), (1, 6), (), (4, 6), (1, 1)]
    _run_and_check(bench, device, shapes, _DTYPES)


# Edge cases: a single tensor, already-equal shapes, a zero-sized dimension that broadcasts.
@pytest.mark.parametrize("shapes", [((2, 3),), ((2, 3), (2, 3)), ((0, 1), (1, 4)), ((3, 0, 1), (5,))],
                         ids=["single", "equal", "0x1|1x4", "3x0x1|5"])
def test_broadcast_tensors_edge(bench, device, shapes):
    _run_and_check(bench, device, shapes, [torch.float64] * len(shapes))


# Larger inputs: a (512, 1) column against a (1, 1024) row gives two (512, 1024) views.
def test_broadcast_tensors_large(bench, device):
    _run_and_check(bench, device, [(512, 1), (1, 1024), (512, 1024)], [torch.float32] * 3)


# error_inputs_broadcast_tensors: incompatible shapes raise (checked beside a valid call).
def test_broadcast_tensors_incompatible(bench, device):
    _run_and_check(bench, device, [(1, 3), (4, 1)], [torch.float32] * 2)
    a, b = torch.zeros((1, 3), device=device), torch.zeros((4, 5), device=device)
    with pytest.raises(RuntimeError):
        torch.broadcast_tensors(a, b)
