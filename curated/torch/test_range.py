"""torch.range: cases adapted from pytorch/pytorch test/test_tensor_creation_ops.py (test_range: range(0, 1) and its out= variant, out= into a non-contiguous narrow() view, a negative step range(1, 0, -1), equal bounds with step 1 and -1; test_range_warning: every call warns that torch.range is deprecated; test_arange's step/dtype cases, here with torch.range's inclusive end) and torch/_torch_docs.py (range(1, 4) -> [1, 2, 3, 4], range(1, 4, 0.5) -> 7 values). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

torch.range is deprecated (it includes `end`, unlike Python's range) and may be gone from a recent
version; the harness then records missing_api. The timed call is torch.range(start, end, step, ...);
the result must have floor((end - start) / step) + 1 elements, the default float dtype unless a
dtype is given, and equal start + i * step (as NumPy computes it in float64), exactly for values
that are exact in the dtype.
"""
import math

import numpy as np
import pytest
import torch
from _support import ids

# Every call warns (a UserWarning): the cases check the result, one case checks the warning.
pytestmark = [pytest.mark.function("torch.range", decile=100, top20=True,
                                   backward="a factory from Python numbers: no tensor input to differentiate"),
              pytest.mark.filterwarnings("ignore:torch.range is deprecated:UserWarning")]

UPSTREAM_TESTS = {
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_range": ["test_range_default_dtype",
        "test_range_equal_bounds", "test_range_out", "test_range_out_noncontiguous", "test_range_large"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_range_warning": ["test_range_warning_and_errors"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_arange": ["test_range_dtypes",
        "test_range_inexact_step"],
}


def _expected(start, end, step):
    n = math.floor((end - start) / step) + 1
    return start + np.arange(n, dtype=np.float64) * step


def _check(result, start, end, step, dtype, rtol=0.0, atol=0.0):
    expected = _expected(start, end, step)
    assert result.dtype == dtype and tuple(result.shape) == expected.shape
    np.testing.assert_allclose(result.cpu().double().numpy(), expected, rtol=rtol, atol=atol)


# _torch_docs / test_range: integer and fractional steps, both ends included, default float32.
@pytest.mark.parametrize("start,end,step", [(0, 1, 1), (1, 4, 1), (1, 4, 0.5), (0, 1, 0.25),
                                            (-1.5, 1.5, 0.5), (1, 0, -1), (10, -10, -2.5), (0, 1000, 1)],
                         ids=["0_1", "1_4", "1_4_half", "0_1_quarter", "neg_start", "neg_step",
                              "neg_frac_step", "0_1000"])
def test_range_default_dtype(bench, device, start, end, step):
    result = bench(torch.range, start, end, step, device=device)
    _check(result, start, end, step, torch.get_default_dtype())
    assert float(result[0]) == start and float(result[-1]) == end


# test_range (equal bounds): range(1, 1, +-1) is the single value 1.
@pytest.mark.parametrize("step", [1, -1])
def test_range_equal_bounds(bench, device, step):
    result = bench(torch.range, 1, 1, step, device=device)
    _check(result, 1, 1, step, torch.float32)
    torch.testing.assert_close(result.cpu(), torch.ones(1), rtol=0, atol=0)


# Explicit dtypes (test_arange's dtype cases): integer and floating results.
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float64, torch.float16, torch.bfloat16],
                         ids=ids)
def test_range_dtypes(bench, device, dtype):
    result = bench(torch.range, -4, 20, 2, dtype=dtype, device=device)
    _check(result, -4, 20, 2, dtype)


# A step that is not exact in binary: the values agree with start + i * step to float32 precision.
def test_range_inexact_step(bench, device):
    result = bench(torch.range, 0, 1, 0.1, device=device)
    _check(result, 0, 1, 0.1, torch.float32, rtol=1.3e-6, atol=1e-5)
    assert result.numel() == 11


# test_range: the out= variant, into a fresh tensor and into a non-contiguous narrow() view.
def test_range_out(bench, device):
    out = torch.tensor((), device=device)
    result = bench(torch.range, 0, 1, out=out)
    assert result.data_ptr() == out.data_ptr()
    torch.testing.assert_close(out.cpu(), torch.tensor([0.0, 1.0]), rtol=0, atol=0)


def test_range_out_noncontiguous(bench, device):
    x = torch.zeros(2, 3, device=device)
    view = x.narrow(1, 1, 2)
    assert not view.is_contiguous()
    bench(torch.range, 0, 3, out=view)
    expected = torch.tensor([[0.0, 0.0, 1.0], [0.0, 2.0, 3.0]])
    torch.testing.assert_close(x.cpu(), expected, rtol=0, atol=0)


# test_range_warning: each call warns that torch.range is deprecated; a zero step or a step of the
# wrong sign raises.
def test_range_warning_and_errors(bench, device):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        result = bench(torch.range, 2, 5, device=device)
    _check(result, 2, 5, 1, torch.float32)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.range(0, 1, 0, device=device)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        torch.range(0, 1, -1, device=device)


# A long range, to time a realistic fill.
def test_range_large(bench, device):
    result = bench(torch.range, 0, 999999, dtype=torch.int64, device=device)
    assert result.dtype == torch.int64 and result.numel() == 1000000
    assert torch.equal(result.cpu(), torch.arange(1000000))
