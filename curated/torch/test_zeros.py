"""torch.zeros: cases adapted from pytorch/pytorch test/test_tensor_creation_ops.py (test_zeros, test_zeros_dtype_layout_device_match) and test/test_sparse.py (TestSparse.test_zeros: layout=torch.sparse_coo). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.zeros(size, device=device, dtype=dtype). Each case checks dtype, layout,
device and shape, and that every element equals np.zeros exactly.
"""
import numpy as np
import pytest
import torch
from _support import check_equal, ids, np_dtype

pytestmark = pytest.mark.function("torch.zeros", decile=100, top20=True,
                                  backward="a factory from a shape: no tensor input to differentiate")

UPSTREAM_TESTS = {
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_zeros": ["test_zeros_upstream_shapes",
        "test_zeros_edge_shapes", "test_zeros_varargs_size", "test_zeros_large"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_zeros_dtype_layout_device_match": ["test_zeros_dtypes"],
    "test/test_sparse.py::TestSparse::test_zeros": ["test_zeros_sparse_coo"],
}


def _assert_zeros(result, shape, dtype, device):
    assert result.dtype is dtype
    assert result.layout is torch.strided
    assert result.device.type == device.type
    if device.index is not None:
        assert result.device.index == device.index
    assert tuple(result.shape) == tuple(shape)
    check_equal(result, np.zeros(shape, dtype=np_dtype(dtype)))


# test_zeros_dtype_layout_device_match: (2, 3) in bool, uint8, int16, int64, float16, float32,
# complex64 (plus the remaining common dtypes).
@pytest.mark.parametrize(
    "dtype",
    [torch.bool, torch.uint8, torch.int16, torch.int64, torch.float16, torch.float32, torch.complex64,
     torch.float64, torch.bfloat16, torch.int32, torch.complex128],
    ids=ids,
)
def test_zeros_dtypes(bench, device, dtype):
    result = bench(torch.zeros, (2, 3), device=device, dtype=dtype)
    _assert_zeros(result, (2, 3), dtype, device)


# test_zeros: 100x100 float32, 2x2 bool, 1x1 half and bfloat16, 2x2 complex64.
@pytest.mark.parametrize(
    "shape, dtype",
    [((100, 100), torch.float32), ((2, 2), torch.bool), ((1, 1), torch.float16), ((1, 1), torch.bfloat16),
     ((2, 2), torch.complex64)],
    ids=["100x100-float32", "2x2-bool", "1x1-float16", "1x1-bfloat16", "2x2-complex64"],
)
def test_zeros_upstream_shapes(bench, device, shape, dtype):
    result = bench(torch.zeros, shape, device=device, dtype=dtype)
    _assert_zeros(result, shape, dtype, device)


# Edge shapes: 0-d, empty dims, a long 1-D run.
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (4096,)], ids=str)
def test_zeros_edge_shapes(bench, device, shape):
    result = bench(torch.zeros, shape, device=device, dtype=torch.float32)
    _assert_zeros(result, shape, torch.float32, device)


# Size given as separate ints rather than a tuple.
def test_zeros_varargs_size(bench, device):
    result = bench(torch.zeros, 5, 7, 3, device=device, dtype=torch.int64)
    _assert_zeros(result, (5, 7, 3), torch.int64, device)


# Larger allocations (16 MB in float32 / float64).
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_zeros_large(bench, device, dtype):
    shape = (2048, 2048) if dtype == torch.float32 else (1024, 2048)
    result = bench(torch.zeros, shape, device=device, dtype=dtype)
    _assert_zeros(result, shape, dtype, device)


# TestSparse.test_zeros: layout=torch.sparse_coo gives a tensor with every dim sparse and no specified element.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_zeros_sparse_coo(bench, device, dtype):
    result = bench(torch.zeros, (3, 4, 2), layout=torch.sparse_coo, device=device, dtype=dtype)
    assert result.layout is torch.sparse_coo and result.dtype is dtype and result.device.type == device.type
    assert tuple(result.shape) == (3, 4, 2) and result.sparse_dim() == 3 and result._nnz() == 0
    check_equal(result.to_dense(), np.zeros((3, 4, 2), dtype=np_dtype(dtype)))
