"""torch.moveaxis: cases adapted from pytorch/pytorch test/test_shape_ops.py (test_movedim: inputs of 0 to 4 dims with sizes 5..10 in int64/float32/complex128, every ordered pair of source/destination dims, positive and negative, then tuples of dims, each checked against np.moveaxis; test_movedim_invalid: out-of-range dims raise IndexError, mismatched or repeated dims raise RuntimeError) and torch/testing/_internal/common_methods_invocations.py (sample_movedim_moveaxis: a (4, 3, 2, 1) input with sources (0, 1, 2, 3) -> (3, 2, 1, 0) and (0, -1) -> (1, 2)), and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over the movedim OpInfo, of which moveaxis is the alias); UPSTREAM_TESTS below maps each to the cases here.

The timed call is torch.moveaxis(x, source, destination), which returns a view of x. Each result is
compared exactly with np.moveaxis on the same data (shape, dtype, values) and must share x's storage.
"""
import itertools

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import ids, random_array, random_tensor

pytestmark = pytest.mark.function("torch.moveaxis", decile=70, top20=False)

UPSTREAM_TESTS = {
    "test/test_shape_ops.py::TestShapeOps::test_movedim": [
        "test_moveaxis_int_dims", "test_moveaxis_negative_dims", "test_moveaxis_tuple_dims", "test_moveaxis_low_rank",
        "test_moveaxis_noncontiguous", "test_moveaxis_large"],
    "test/test_shape_ops.py::TestShapeOps::test_movedim_invalid": ["test_moveaxis_invalid"],
    "test/test_ops.py::TestCommon::test_compare_cpu": ["test_moveaxis_tuple_dims"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_moveaxis_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_moveaxis_backward"],
}

def _check(result, x, a, source, destination):
    expected = np.moveaxis(a, source, destination)
    assert result.dtype == x.dtype and tuple(result.shape) == expected.shape
    assert result.data_ptr() == x.data_ptr()  # a view, no copy
    np.testing.assert_array_equal(result.cpu().numpy(), expected)


_SHAPE = (5, 6, 7, 8)
_PAIRS = list(itertools.permutations(range(4), 2))


# test_movedim: every ordered pair of dims of a 4-d input, in three dtypes.
@pytest.mark.parametrize("src,dst", _PAIRS, ids=["%d_to_%d" % p for p in _PAIRS])
@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.complex128], ids=ids)
def test_moveaxis_int_dims(bench, device, dtype, src, dst):
    a = random_array(_SHAPE, dtype, 0, ints=(-100, 100))
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, src, dst)
    _check(result, x, a, src, dst)


# test_movedim's random_negative branch: negative source and/or destination dims.
@pytest.mark.parametrize("src,dst", [(-1, 0), (0, -1), (-4, -2), (-3, 3), (2, -3)],
                         ids=lambda v: str(v))
def test_moveaxis_negative_dims(bench, device, src, dst):
    a = random_array((3, 4, 5, 6), torch.float32, 1)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, src, dst)
    _check(result, x, a, src, dst)


# test_movedim (tuple branch) and sample_movedim_moveaxis: several dims at once.
@pytest.mark.parametrize("src,dst", [
    ((0, 1, 2, 3), (3, 2, 1, 0)),
    ((0, -1), (1, 2)),
    ((1, 3), (0, 1)),
    ((0,), (-1,)),
    ((), ()),
    ([2, 0], [0, 3]),
], ids=["reverse", "pair_neg", "two_front", "one_tuple", "empty_tuple", "lists"])
def test_moveaxis_tuple_dims(bench, device, src, dst):
    a = random_array((4, 3, 2, 1), torch.float32, 2)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, src, dst)
    _check(result, x, a, src, dst)


# Low-rank inputs: a 0-d tensor (source = destination = 0 is valid for dim -1/0) and 1-d / 2-d.
@pytest.mark.parametrize("shape,src,dst", [((), 0, 0), ((7,), 0, -1), ((5, 9), 0, 1), ((5, 9), -1, 0)],
                         ids=["0d", "1d", "2d", "2d_neg"])
def test_moveaxis_low_rank(bench, device, shape, src, dst):
    a = random_array(shape, torch.int64, 3, ints=(-100, 100))
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, src, dst)
    if shape == ():
        assert tuple(result.shape) == () and int(result) == int(a)
    else:
        _check(result, x, a, src, dst)


# A non-contiguous input (a transposed slice): moveaxis composes with the existing strides.
def test_moveaxis_noncontiguous(bench, device):
    base = random_array((6, 10, 8), torch.float32, 4)
    xb = torch.from_numpy(base).to(device)
    x = xb.transpose(0, 2)[:, ::2]
    a = np.ascontiguousarray(np.swapaxes(base, 0, 2)[:, ::2])
    assert not x.is_contiguous()
    result = bench(torch.moveaxis, x, 0, 2)
    expected = np.moveaxis(a, 0, 2)
    assert tuple(result.shape) == expected.shape and result.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(result.cpu().numpy(), expected)


# test_movedim_invalid: the errors, checked around one valid call.
def test_moveaxis_invalid(bench, device):
    a = random_array((2, 3, 4), torch.float32, 5)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, (0, 2), (2, 0))
    _check(result, x, a, (0, 2), (2, 0))
    with pytest.raises(IndexError):
        torch.moveaxis(x, 5, 0)
    with pytest.raises(IndexError):
        torch.moveaxis(x, 0, 5)
    with pytest.raises(RuntimeError, match="movedim: Invalid source or destination dims"):
        torch.moveaxis(x, (1, 0), (0,))
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        torch.moveaxis(x, (0, 0), (0, 1))
    with pytest.raises(RuntimeError, match="repeated dim in `destination`"):
        torch.moveaxis(x, (0, 1), (1, 1))


# A larger tensor (channels-last to channels-first of an image batch).
def test_moveaxis_large(bench, device):
    a = random_array((16, 64, 64, 3), torch.float32, 6)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.moveaxis, x, -1, 1)
    _check(result, x, a, -1, 1)


# test_fn_grad / test_fn_gradgrad on sample_movedim_moveaxis' dims: the gradient (the cotangent moved back) against
# the CPU's float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a device
# trains in float32 and bfloat16 too.
@pytest.mark.parametrize("src,dst", [((0, 1, 2, 3), (3, 2, 1, 0)), ((0, -1), (1, 2)), (1, 3)],
                         ids=["reverse", "pair_neg", "one"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_moveaxis_backward(backward, device, dtype, src, dst):
    x = random_tensor((4, 3, 2, 1), dtype, device, 7).requires_grad_(True)
    grads = backward(torch.moveaxis, x, src, dst)
    check_gradients(grads, torch.moveaxis, (x, src, dst), second_order=True)
