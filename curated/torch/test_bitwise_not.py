"""torch.bitwise_not: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal / _small / _extremal and test_contig_vs_every_other / test_non_contig for the UnaryUfuncInfo 'bitwise_not', reference np.bitwise_not, dtypes integral_types_and(bool)) and torch/testing/_internal/common_methods_invocations.py (its sample inputs: 0-d, empty, (S, S, S), non-contiguous). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.bitwise_not(x). The result must equal np.bitwise_not exactly, in the input
dtype and shape.
"""
import numpy as np
import pytest
import torch
from _support import ids, np_dtype, random_array

pytestmark = pytest.mark.function("torch.bitwise_not", decile=10, top20=False,
                                  backward="integer and bool operands and output: not differentiable")

UPSTREAM_TESTS = {
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_normal": ["test_bitwise_not_normal",
        "test_bitwise_not_large"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_small": ["test_bitwise_not_normal"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_extremal": ["test_bitwise_not_extremal"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_contig_vs_every_other": ["test_bitwise_not_non_contiguous"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_non_contig": ["test_bitwise_not_non_contiguous"],
    "test/test_ops.py::TestCommon::test_out": ["test_bitwise_not_out"],
    "test/test_ops.py::TestCommon::test_dtypes": ["test_bitwise_not_rejects_float"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad":
        "bitwise_not's OpInfo says supports_autograd=False: integer and bool values have no gradient",
}

INTEGRAL_AND_BOOL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def _check(result, array, dtype):
    assert result.dtype == dtype
    assert tuple(result.shape) == array.shape
    np.testing.assert_array_equal(result.cpu().numpy(), np.bitwise_not(array))


# test_reference_numerics_normal over the sample shapes: 0-d, empty, (S, S, S) with S = 5, and a long 1-D run.
@pytest.mark.parametrize("shape", [(), (0,), (5, 5, 5), (1024,)], ids=["scalar", "empty", "5x5x5", "1024"])
@pytest.mark.parametrize("dtype", INTEGRAL_AND_BOOL, ids=ids)
def test_bitwise_not_normal(bench, device, dtype, shape):
    array = random_array(shape, dtype, len(shape))
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)


# test_reference_numerics_extremal-style values: each integer type's min, max, 0 and -1 (all ones).
@pytest.mark.parametrize("dtype", INTEGRAL_AND_BOOL[1:], ids=ids)
def test_bitwise_not_extremal(bench, device, dtype):
    info = np.iinfo(np_dtype(dtype))
    values = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        values.append(-1)
    array = np.asarray(values, dtype=np_dtype(dtype))
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)


# test_non_contig / test_contig_vs_every_other: a transposed view and every other element.
@pytest.mark.parametrize("layout", ["transposed", "every_other"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.int64], ids=ids)
def test_bitwise_not_non_contiguous(bench, device, dtype, layout):
    array = random_array((20, 30), dtype, 3)
    x = torch.from_numpy(array.copy()).to(device)
    if layout == "transposed":
        x, array = x.t(), array.T
    else:
        x, array = x.reshape(-1)[::2], array.reshape(-1)[::2]
    assert not x.is_contiguous()
    result = bench(torch.bitwise_not, x)
    _check(result, np.ascontiguousarray(array), dtype)


# out= variant (the OpInfo's supports_out) into a preallocated tensor.
def test_bitwise_not_out(bench, device):
    array = random_array((7, 9), torch.int16, 4)
    x = torch.from_numpy(array.copy()).to(device)
    out = torch.empty((7, 9), dtype=torch.int16, device=device)
    result = bench(torch.bitwise_not, x, out=out)
    assert result.data_ptr() == out.data_ptr()
    _check(result, array, torch.int16)


# Floating inputs are rejected (the op is defined for integral and bool only); checked beside one valid call.
def test_bitwise_not_rejects_float(bench, device):
    array = random_array((4, 4), torch.uint8, 5)
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, torch.uint8)
    with pytest.raises(RuntimeError):
        torch.bitwise_not(torch.ones(3, device=device))


# A larger tensor, to time a realistic elementwise op.
@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8], ids=ids)
def test_bitwise_not_large(bench, device, dtype):
    array = random_array((1000, 1000), dtype, 6)
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)
