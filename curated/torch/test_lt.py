"""torch.lt: cases adapted from pytorch/pytorch test/test_binary_ufuncs.py (test_reference_numerics / test_comparison_ops_type_promotion_and_broadcasting / test_comparison_ops_must_take_bool_output / test_compare_scalars_with_nan / test_broadcasting for the BinaryUfuncInfo 'lt', reference np.less, dtypes all_types_and(bool, float16, bfloat16)) and torch/testing/_internal/common_methods_invocations.py (sample_inputs_comparison_ops: elementwise-binary samples plus lhs compared with its own clone). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.lt(a, b). The result must be a bool tensor equal to np.less on the same
values (after type promotion), with the broadcast shape.
"""
import numpy as np
import pytest
import torch
from _support import host64, ids, random_tensor, to_device

pytestmark = pytest.mark.function("torch.lt", decile=60, top20=False,
                                  backward="bool output (a comparison): not differentiable")

UPSTREAM_TESTS = {
    "test/test_binary_ufuncs.py::TestBinaryUfuncs::test_reference_numerics": ["test_lt_same_dtype",
        "test_lt_self_clone", "test_lt_large"],
    "test/test_binary_ufuncs.py::TestBinaryUfuncs::test_comparison_ops_type_promotion_and_broadcasting":
        ["test_lt_promotion_broadcasting"],
    "test/test_binary_ufuncs.py::TestBinaryUfuncs::test_comparison_ops_must_take_bool_output": ["test_lt_out"],
    "test/test_binary_ufuncs.py::TestBinaryUfuncs::test_compare_scalars_with_nan": ["test_lt_nan_inf"],
    "test/test_binary_ufuncs.py::TestBinaryUfuncs::test_broadcasting": ["test_lt_promotion_broadcasting",
        "test_lt_scalar"],
    "test/test_ops.py::TestCommon::test_noncontiguous_samples": ["test_lt_non_contiguous"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad":
        "lt's OpInfo says supports_autograd=False: a bool output has no gradient",
}

_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8,
           torch.uint8, torch.bool]


def _make(shape, dtype, device, seed):
    """make_tensor-like values: integers in [-9, 10) (uint8 [0, 10)), floats from the same small range so
    that ties occur, bools at random."""
    if dtype.is_floating_point:
        return to_device(np.random.default_rng(seed).integers(-18, 20, shape) / 2.0, device, dtype)
    return random_tensor(shape, dtype, device, seed)


def _check(result, a, b):
    expected = np.less(host64(a), host64(b))
    assert result.dtype == torch.bool
    assert tuple(result.shape) == np.shape(expected)
    np.testing.assert_array_equal(result.cpu().numpy(), expected)


# test_reference_numerics over the dtypes, (5, 5) against (5, 5) with ties.
@pytest.mark.parametrize("dtype", _DTYPES, ids=ids)
def test_lt_same_dtype(bench, device, dtype):
    a, b = _make((5, 5), dtype, device, 0), _make((5, 5), dtype, device, 1)
    result = bench(torch.lt, a, b)
    _check(result, a, b)


# sample_inputs_comparison_ops: a tensor compared with its own clone is all False.
def test_lt_self_clone(bench, device):
    a = _make((5, 5), torch.float32, device, 2)
    result = bench(torch.lt, a, a.clone())
    assert not result.any()
    _check(result, a, a)


# test_comparison_ops_type_promotion_and_broadcasting: mixed dtypes and broadcast shapes.
@pytest.mark.parametrize("dtypes, shapes", [((torch.int64, torch.float32), ((5, 1), (1, 4))),
                                            ((torch.uint8, torch.int8), ((3, 4), (4,))),
                                            ((torch.bool, torch.float64), ((2, 3, 1), (3, 5))),
                                            ((torch.float16, torch.float32), ((), (6,)))],
                         ids=["int64-float32", "uint8-int8", "bool-float64", "float16-float32"])
def test_lt_promotion_broadcasting(bench, device, dtypes, shapes):
    a, b = _make(shapes[0], dtypes[0], device, 3), _make(shapes[1], dtypes[1], device, 4)
    result = bench(torch.lt, a, b)
    _check(result, a, b)


# Python scalar on the right (lt(tensor, number)).
@pytest.mark.parametrize("other", [0, 2.5, -1, True], ids=["0", "2.5", "-1", "True"])
def test_lt_scalar(bench, device, other):
    a = _make((4, 6), torch.int32, device, 5)
    result = bench(torch.lt, a, other)
    _check(result, a, other)


# test_compare_scalars_with_nan: comparisons with NaN are False; with inf as ordered.
def test_lt_nan_inf(bench, device):
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([nan, 1.0, nan, -inf, inf, 0.0, -0.0], device=device)
    b = torch.tensor([1.0, nan, nan, 0.0, inf, -0.0, 0.0], device=device)
    result = bench(torch.lt, a, b)
    _check(result, a, b)
    assert result.cpu().tolist() == [False, False, False, True, False, False, False]


# out= into a preallocated bool tensor (test_comparison_ops_must_take_bool_output).
def test_lt_out(bench, device):
    a, b = _make((8, 8), torch.float32, device, 6), _make((8, 8), torch.float32, device, 7)
    out = torch.empty((8, 8), dtype=torch.bool, device=device)
    result = bench(torch.lt, a, b, out=out)
    assert result.data_ptr() == out.data_ptr()
    _check(result, a, b)


# Non-contiguous operands (a transposed view and every other column).
def test_lt_non_contiguous(bench, device):
    a = _make((20, 30), torch.float64, device, 8).t()
    b = _make((30, 40), torch.float64, device, 9)[:, ::2]
    assert not a.is_contiguous() and not b.is_contiguous()
    result = bench(torch.lt, a, b)
    _check(result, a, b)


# A large comparison, to time a realistic elementwise op.
def test_lt_large(bench, device):
    a, b = _make((1000, 1000), torch.float32, device, 10), _make((1000, 1000), torch.float32, device, 11)
    result = bench(torch.lt, a, b)
    _check(result, a, b)
