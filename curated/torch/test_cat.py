"""torch.cat: cases adapted from pytorch/pytorch test/test_tensor_creation_ops.py (test_cat_all_dtypes_and_devices, test_cat, test_cat_empty, test_cat_empty_legacy, test_cat_in_channels_last, test_cat_preserve_channels_last), test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over cat's OpInfo: each piece's gradient is its slice of the cotangent) and test/test_sparse.py (TestSparse.test_cat: sparse COO pieces against the cat of their dense forms); UPSTREAM_TESTS below maps each to the cases here.

cat only copies, so every case compares exactly (rtol=0, atol=0) with np.concatenate of the
inputs read back from the device.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_equal, host, ids, randn, random_tensor

pytestmark = pytest.mark.function("torch.cat", top20=True, decile=100)

UPSTREAM_TESTS = {
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat_all_dtypes_and_devices": ["test_cat_all_dtypes"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat": [
        "test_cat_three_transposed", "test_cat_split_roundtrip"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat_empty": ["test_cat_empty"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat_empty_legacy": ["test_cat_empty_legacy"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat_in_channels_last": ["test_cat_channels_last"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_cat_preserve_channels_last": [
        "test_cat_channels_last"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_cat_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_cat_backward"],
    "test/test_sparse.py::TestSparse::test_cat": ["test_cat_sparse"],
}

ALL_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
              torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128]


def _assert_cat(result, tensors, dim):
    arrays = [host(t) for t in tensors]
    # The legacy rule: 1-D empty tensors are skipped whatever the other inputs' rank.
    arrays = [a for a in arrays if not (a.ndim == 1 and a.size == 0)] or arrays[:1]
    assert result.dtype == tensors[0].dtype
    check_equal(result, np.concatenate(arrays, axis=dim))


# test_cat_all_dtypes_and_devices: [[1, 2], [3, 4]] with itself along dim 0 and dim 1.
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_cat_all_dtypes(bench, device, dtype, dim):
    x = torch.tensor([[1, 2], [3, 4]], dtype=dtype, device=device)
    result = bench(torch.cat, (x, x), dim)
    _assert_cat(result, (x, x), dim)


# test_cat: three inputs of 13, 17 and 19 rows transposed onto each dim (non-contiguous),
# every dim from -3 to 2.
@pytest.mark.parametrize("dim", [-3, -2, -1, 0, 1, 2])
def test_cat_three_transposed(bench, device, dim):
    pos_dim = dim % 3
    tensors = [randn((n, 10, 10), device, torch.float32, seed).transpose(0, pos_dim)
               for seed, n in enumerate((13, 17, 19))]
    result = bench(torch.cat, tensors, dim)
    assert result.shape[pos_dim] == 13 + 17 + 19
    _assert_cat(result, tensors, pos_dim)


# test_cat: cat of split / chunk pieces restores the input.
@pytest.mark.parametrize("pieces", ["split", "chunk"])
def test_cat_split_roundtrip(bench, device, pieces):
    x = randn((20, 10, 10), device, torch.float32, 3)
    parts = torch.split(x, 7) if pieces == "split" else torch.chunk(x, 7)
    result = bench(torch.cat, parts)
    torch.testing.assert_close(result.cpu(), x.cpu(), rtol=0, atol=0)


# test_cat_empty: (4, 0, 32, 32) next to (4, 3, 32, 32) along dim 1, and two empties.
@pytest.mark.parametrize("order", ["x_empty", "empty_x", "empty_empty"])
def test_cat_empty(bench, device, order):
    x = randn((4, 3, 32, 32), device, torch.float32, 4)
    empty = torch.empty((4, 0, 32, 32), device=device)
    tensors = {"x_empty": [x, empty], "empty_x": [empty, x], "empty_empty": [empty, empty]}[order]
    result = bench(torch.cat, tensors, dim=1)
    _assert_cat(result, tensors, 1)


# test_cat_empty_legacy: a 1-D empty tensor is ignored next to a 4-D one.
@pytest.mark.parametrize("order", ["x_empty", "empty_x"])
def test_cat_empty_legacy(bench, device, order):
    x = randn((4, 3, 32, 32), device, torch.float32, 5)
    empty = torch.empty((0,), device=device)
    tensors = [x, empty] if order == "x_empty" else [empty, x]
    result = bench(torch.cat, tensors, dim=1)
    assert tuple(result.shape) == (4, 3, 32, 32)
    _assert_cat(result, tensors, 1)


# test_cat_in_channels_last / test_cat_preserve_channels_last: channels-last inputs along every
# dim; the "larger than grain size" variant uses bigger images (kept under 50 MB here).
@pytest.mark.layout("channels_last")
@pytest.mark.parametrize("dim", [0, 1, 2, 3])
@pytest.mark.parametrize("hw", [8, 128], ids=["small", "large"])
def test_cat_channels_last(bench, device, dim, hw):
    tensors = [randn((4, 15, hw, hw), device, torch.float32, seed).contiguous(memory_format=torch.channels_last)
               for seed in (6, 7)]
    result = bench(torch.cat, tensors, dim=dim)
    if device.type in ("cpu", "cuda"):
        # upstream checks the memory format only on native devices (onlyNativeDeviceTypes)
        assert result.is_contiguous(memory_format=torch.channels_last)
    _assert_cat(result, tensors, dim)


# test_fn_grad / test_fn_gradgrad: three pieces of different widths along dim 1, each piece's gradient (its slice of
# the cotangent) against the CPU's float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64
# and complex128; a device trains in float32 and bfloat16 too.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_cat_backward(backward, device, dtype):
    pieces = [random_tensor((2, n, 4), dtype, device, 10 + n).requires_grad_(True) for n in (3, 1, 4)]
    grads = backward(torch.cat, pieces, 1)
    check_gradients(grads, torch.cat, (pieces, 1), second_order=True)


# TestSparse.test_cat: sparse COO pieces (3 sparse dims, and 2 sparse dims with a dense one), in float64 and complex128
# as upstream, concatenated along dim 1; the result equals the cat of their dense forms.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("sparse_dims", [3, 2])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=ids)
def test_cat_sparse(bench, device, dtype, sparse_dims):
    dense = [_sparse_values((2, n, 4), dtype, 20 + n) for n in (3, 1, 4)]
    pieces = [torch.from_numpy(d).to(device).to_sparse(sparse_dims) for d in dense]
    result = bench(torch.cat, pieces, 1)
    assert result.layout == torch.sparse_coo and result.dtype == dtype
    check_equal(result.to_dense(), np.concatenate(dense, axis=1))


def _sparse_values(shape, dtype, seed):
    """Standard normal values (complex: real and imaginary parts) with about half of the rows along dim 1 zero."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.is_complex:
        values = values + 1j * rng.standard_normal(shape)
    values[:, rng.random(shape[1]) < 0.5] = 0
    return values
