"""torch.Tensor.size: cases adapted from pytorch/pytorch test/test_torch.py (test_dim_function_empty: a (0, 1, 2, 0) tensor's size(3) = 0 and size(2) = 2; test_Size: torch.Size is a tuple whose slices and sums are torch.Size, numel(); the "Dimension out of range (expected to be in range of [-2, 1], but got 2)" IndexError of the dim-wrapping tests; 0-d tensors having no dimensions) and test/test_view_ops.py (the sizes of transpose, slice, expand, unsqueeze and permute views), test/test_sparse.py (a sparse COO tensor's size covers its sparse and dense dims). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.Tensor.size(x) or torch.Tensor.size(x, dim). size() must return a
torch.Size (a tuple) equal to the NumPy shape of the same data, and size(dim) a Python int equal to
that shape's entry, for positive and negative dims; out-of-range dims raise IndexError.
"""
import numpy as np
import pytest
import torch
from _support import ids

pytestmark = pytest.mark.function("torch.Tensor.size", decile=100, top20=True,
                                  backward="returns a torch.Size (Python ints): no tensor output to differentiate")

UPSTREAM_TESTS = {
    "test/test_torch.py::TestTorch::test_dim_function_empty": ["test_size_full", "test_size_dim",
        "test_size_dim_keyword"],
    "test/test_torch.py::TestTorch::test_Size": ["test_size_torch_size_type", "test_size_large"],
    "test/test_torch.py::TestTorchDeviceType::test_dim_wrap": ["test_size_errors"],
    "test/test_view_ops.py::TestViewOps::test_view_copy_output_contiguous": ["test_size_views"],
    "test/test_sparse.py::TestSparse::test_shape": ["test_size_sparse"],
}


_SHAPES = [(), (5,), (2, 3), (0, 1, 2, 0), (2, 3, 4, 5, 6), (1, 1, 1)]


# size() over ranks 0 to 5 (with zero-sized dims) and several dtypes.
@pytest.mark.parametrize("shape", _SHAPES, ids=lambda s: "shape" + "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.complex64], ids=ids)
def test_size_full(bench, device, dtype, shape):
    x = torch.zeros(shape, dtype=dtype, device=device)
    result = bench(torch.Tensor.size, x)
    assert isinstance(result, torch.Size) and isinstance(result, tuple)
    assert result == shape and tuple(result) == np.zeros(shape).shape
    assert len(result) == x.dim() and result.numel() == x.numel()


# size(dim) for every dim, positive and negative (test_dim_function_empty's (0, 1, 2, 0) among them).
_DIM_CASES = [(s, d) for s in [(0, 1, 2, 0), (2, 3, 4, 5, 6)] for d in range(-len(s), len(s))]


@pytest.mark.parametrize("shape,dim", _DIM_CASES, ids=["x".join(map(str, s)) + "-dim%d" % d for s, d in _DIM_CASES])
def test_size_dim(bench, device, shape, dim):
    x = torch.randn(shape, device=device)
    result = bench(torch.Tensor.size, x, dim)
    assert type(result) is int and result == shape[dim]


# The dim keyword form.
def test_size_dim_keyword(bench, device):
    x = torch.empty(7, 11, device=device)
    result = bench(torch.Tensor.size, x, dim=-1)
    assert type(result) is int and result == 11


# Views: transpose, slicing with a step, expand, unsqueeze, permute, against NumPy's equivalents.
@pytest.mark.parametrize("view", ["transpose", "slice_step", "expand", "unsqueeze", "permute", "flatten"])
def test_size_views(bench, device, view):
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    x = torch.from_numpy(a).to(device)
    v, ref = {
        "transpose": (x.transpose(0, 2), a.transpose(2, 1, 0)),
        "slice_step": (x[:, ::2, 1:], a[:, ::2, 1:]),
        "expand": (x[:, :1].expand(2, 5, 4), np.broadcast_to(a[:, :1], (2, 5, 4))),
        "unsqueeze": (x.unsqueeze(1), a[:, None]),
        "permute": (x.permute(1, 2, 0), a.transpose(1, 2, 0)),
        "flatten": (x.flatten(1), a.reshape(2, 12)),
    }[view]
    result = bench(torch.Tensor.size, v)
    assert isinstance(result, torch.Size) and tuple(result) == ref.shape
    np.testing.assert_array_equal(v.cpu().numpy(), ref)  # the view holds the data its size says


# A sparse COO tensor: size covers the sparse dims and the dense dims of its values.
@pytest.mark.layout("sparse_coo")
def test_size_sparse(bench, device):
    indices = torch.tensor([[0, 3], [2, 4]])
    values = torch.ones(2, 6)
    s = torch.sparse_coo_tensor(indices, values, (4, 5, 6), device=device)
    result = bench(torch.Tensor.size, s)
    assert result == torch.Size([4, 5, 6])
    assert s.size(2) == 6 and s.to_dense().shape == result


# test_Size: torch.Size behaves as a tuple; slices and sums are torch.Size too.
def test_size_torch_size_type(bench, device):
    x = torch.ones(1, 2, 3, device=device)
    result = bench(torch.Tensor.size, x)
    assert result == (1, 2, 3) and result[0] == 1 and result[-1] == 3
    assert isinstance(result[:-1], torch.Size) and result[:-1] == (1, 2)
    assert isinstance(result + result, torch.Size) and len(result + result) == 6
    assert torch.zeros(result).shape == result and result.numel() == 6


# Out-of-range dims raise IndexError (checked around one valid call); a 0-d tensor has no dims.
def test_size_errors(bench, device):
    x = torch.zeros(2, 3, device=device)
    result = bench(torch.Tensor.size, x, 1)
    assert result == 3
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(-3)
    scalar = torch.tensor(1.0, device=device)
    assert scalar.size() == torch.Size([])
    with pytest.raises(IndexError):
        scalar.size(0)


# A large tensor: size() costs the same whatever the number of elements.
def test_size_large(bench, device):
    x = torch.empty(1000, 1000, device=device)
    result = bench(torch.Tensor.size, x)
    assert result == torch.Size([1000, 1000]) and result.numel() == 1000000
