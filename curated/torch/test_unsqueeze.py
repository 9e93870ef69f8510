"""torch.unsqueeze: cases adapted from pytorch/pytorch test/test_view_ops.py (TestViewOps.test_unsqueeze_view: the result is a view, so writes through it reach the input), unsqueeze's OpInfo in torch/testing/_internal/common_methods_invocations.py as test/test_ops.py runs it (TestCommon.test_compare_cpu and test_noncontiguous_samples: every valid position, negative dims counting from the new rank, 0-d tensors; an out-of-range dim raising IndexError), compared with NumPy's expand_dims, test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over the same OpInfo) and test/test_sparse.py (TestSparse.test_unsqueeze: sparse COO inputs, along sparse and dense dims). Added: more dtypes. UPSTREAM_TESTS below maps each to the cases here.

The timed call is `torch.unsqueeze(x, dim)`. Each case checks the shape and strides of the result, its
dtype and device, its values against np.expand_dims, and that it is a view of the input.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_equal, host, ids, randn, random_tensor

pytestmark = pytest.mark.function("torch.unsqueeze", decile=100, top20=True)

UPSTREAM_TESTS = {
    "test/test_view_ops.py::TestViewOps::test_unsqueeze_view": ["test_unsqueeze_is_view"],
    "test/test_ops.py::TestCommon::test_compare_cpu": [
        "test_unsqueeze_every_dim", "test_unsqueeze_low_rank", "test_unsqueeze_dtypes", "test_unsqueeze_out_of_range",
        "test_unsqueeze_large"],
    "test/test_ops.py::TestCommon::test_noncontiguous_samples": ["test_unsqueeze_noncontiguous"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_unsqueeze_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_unsqueeze_backward"],
    "test/test_sparse.py::TestSparse::test_unsqueeze": ["test_unsqueeze_sparse"],
}


def _check(x, y, dim):
    x_np = host(x)
    expected = np.expand_dims(x_np, dim)
    assert tuple(y.shape) == expected.shape and y.dtype == x.dtype and y.device == x.device
    assert y.dim() == x.dim() + 1
    np.testing.assert_array_equal(host(y), expected)
    assert y.data_ptr() == x.data_ptr() and (y._base is x or (x._base is not None and y._base is x._base))


# Every valid dim of a 3-D tensor: 0..3 and -4..-1 (negative dims count in the result's rank).
@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -2, -3, -4])
def test_unsqueeze_every_dim(bench, device, dim):
    x = randn((4, 5, 6), device, torch.float32, 0)
    y = bench(torch.unsqueeze, x, dim)
    _check(x, y, dim)


# 0-d and 1-d inputs.
@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((7,), 0), ((7,), 1), ((7,), -1)],
                         ids=["0d-0", "0d-neg1", "1d-0", "1d-1", "1d-neg1"])
def test_unsqueeze_low_rank(bench, device, shape, dim):
    x = torch.from_numpy(np.asarray(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 1.5)).to(device)
    y = bench(torch.unsqueeze, x, dim)
    _check(x, y, dim)


# dtypes: the result keeps the dtype.
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int64, torch.int16, torch.uint8,
                                   torch.bool, torch.complex128], ids=ids)
def test_unsqueeze_dtypes(bench, device, dtype):
    values = np.random.default_rng(1).integers(0, 100, (3, 8))
    x = torch.from_numpy(values).to(dtype).to(device)
    y = bench(torch.unsqueeze, x, 1)
    _check(x, y, 1)


# test_unsqueeze_view: a write through the result reaches the input.
def test_unsqueeze_is_view(bench, device):
    x = torch.ones((5, 5), device=device)
    y = bench(torch.unsqueeze, x, 1)
    assert tuple(y.shape) == (5, 1, 5) and y._base is x
    y[1, 0, 1] = 2
    assert float(x[1, 1]) == 2
    expected = np.ones((5, 5), dtype=np.float32)
    expected[1, 1] = 2
    np.testing.assert_array_equal(host(y), expected[:, None, :])


# Non-contiguous inputs (a transpose, a strided slice): the strides of the new size-1 dim fit in.
@pytest.mark.parametrize("kind", ["transposed", "sliced"])
@pytest.mark.parametrize("dim", [0, 2, -1])
def test_unsqueeze_noncontiguous(bench, device, kind, dim):
    base = randn((6, 8, 10), device, torch.float32, 2)
    x = base.transpose(0, 2) if kind == "transposed" else base[::2, :, 1::3]
    assert not x.is_contiguous()
    y = bench(torch.unsqueeze, x, dim)
    _check(x, y, dim)
    d = dim % y.dim()
    # The other dims keep their strides.
    assert y.stride()[:d] + y.stride()[d + 1:] == x.stride()


# A dim outside [-rank-1, rank] raises IndexError (checked around one valid call).
def test_unsqueeze_out_of_range(bench, device):
    x = torch.zeros((2, 3), device=device)
    y = bench(torch.unsqueeze, x, 2)
    _check(x, y, 2)
    for bad in (3, -4):
        with pytest.raises(IndexError):
            torch.unsqueeze(x, bad)


# A larger input: (256, 1024), unsqueezed in the middle.
def test_unsqueeze_large(bench, device):
    x = randn((256, 1024), device, torch.float32, 3)
    y = bench(torch.unsqueeze, x, 1)
    _check(x, y, 1)


# test_fn_grad / test_fn_gradgrad: the gradient (the cotangent with the new dim squeezed out) against the CPU's
# float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a device trains in
# float32 and bfloat16 too.
@pytest.mark.parametrize("dim", [0, 2, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_unsqueeze_backward(backward, device, dtype, dim):
    x = random_tensor((3, 4), dtype, device, 4).requires_grad_(True)
    grads = backward(torch.unsqueeze, x, dim)
    check_gradients(grads, torch.unsqueeze, (x, dim), second_order=True)


# TestSparse.test_unsqueeze: a sparse COO input with 3 sparse dims and 2 dense ones, unsqueezed before, between and
# after them; the result's dense form equals the unsqueezed dense input. Float64 and complex128, as upstream.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("dim", [0, 3, 4, -1])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=ids)
def test_unsqueeze_sparse(bench, device, dtype, dim):
    dense = random_tensor((5, 7, 3, 2, 4), dtype, device, 5)
    dense[:, 1::2] = 0  # about half of the sparse entries absent
    x = dense.to_sparse(3)
    y = bench(torch.unsqueeze, x, dim)
    assert y.layout == torch.sparse_coo and y.dim() == 6 and y.dtype == dtype
    check_equal(y.to_dense(), np.expand_dims(host(dense), dim))
