"""torch.diag: cases adapted from pytorch/pytorch test/test_shape_ops.py (test_diag, test_diagonal) and test/test_tensor_creation_ops.py (test_diagflat, test_diag_embed), and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over diag's OpInfo, both directions); UPSTREAM_TESTS below maps each to the cases here.

diag extracts a diagonal from a matrix or builds a matrix from a vector; both only move values,
so results are compared exactly with np.diag.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_equal, host, ids, random_tensor

pytestmark = pytest.mark.function("torch.diag", decile=90, top20=False)

UPSTREAM_TESTS = {
    "test/test_shape_ops.py::TestShapeOps::test_diag": ["test_diag_matrix_to_vector"],
    "test/test_shape_ops.py::TestShapeOps::test_diagonal": [
        "test_diag_offset", "test_diag_noncontiguous", "test_diag_empty"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_diagflat": [
        "test_diag_vector_to_matrix", "test_diag_large"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_diag_embed": ["test_diag_vector_to_matrix"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_diag_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_diag_backward"],
}


def _make(shape, dtype, device, seed):
    """Floating and complex parts uniform on [0, 1), integers in [-100, 100), bools at random."""
    return random_tensor(shape, dtype, device, seed, ints=(-100, 100), reals=(0, 1))


def _assert_diag(result, x, diagonal=0):
    assert result.dtype == x.dtype
    check_equal(result, np.diag(host(x), diagonal))


# test_diag: the main diagonal of a 100x100 matrix (upstream: float and bool; here every dtype).
@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool, torch.complex64],
    ids=ids,
)
def test_diag_matrix_to_vector(bench, device, dtype):
    x = _make((100, 100), dtype, device, seed=0)
    result = bench(torch.diag, x)
    assert tuple(result.shape) == (100,)
    _assert_diag(result, x)


# test_diagonal: offset diagonals of a 100x100 matrix (17 upstream, plus below the main one),
# and of rectangular matrices.
@pytest.mark.parametrize("shape, diagonal", [((100, 100), 17), ((100, 100), -17), ((20, 100), 5), ((100, 20), -5)],
                         ids=["sq+17", "sq-17", "wide+5", "tall-5"])
def test_diag_offset(bench, device, shape, diagonal):
    x = _make(shape, torch.float32, device, seed=1)
    result = bench(torch.diag, x, diagonal)
    _assert_diag(result, x, diagonal)


# A non-contiguous (transposed) matrix.
def test_diag_noncontiguous(bench, device):
    x = _make((60, 80), torch.float32, device, seed=2).t()
    assert not x.is_contiguous()
    result = bench(torch.diag, x, 3)
    _assert_diag(result, x, 3)


# test_diagflat / test_diag_embed: a 100-vector becomes a diagonal matrix, also off the main diagonal.
@pytest.mark.parametrize("diagonal", [0, 17, -17])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex128], ids=ids)
def test_diag_vector_to_matrix(bench, device, dtype, diagonal):
    x = _make((100,), dtype, device, seed=3)
    result = bench(torch.diag, x, diagonal)
    assert tuple(result.shape) == (100 + abs(diagonal),) * 2
    _assert_diag(result, x, diagonal)


# Edge shapes: an empty vector gives a 0x0 matrix; an offset past the matrix gives an empty diagonal.
@pytest.mark.parametrize("shape, diagonal", [((0,), 0), ((5, 5), 7)], ids=["empty_vector", "offset_past_edge"])
def test_diag_empty(bench, device, shape, diagonal):
    x = _make(shape, torch.float32, device, seed=4)
    result = bench(torch.diag, x, diagonal)
    _assert_diag(result, x, diagonal)


# A larger input: a 2048-vector builds a 2048x2048 (16 MB) matrix.
def test_diag_large(bench, device):
    x = _make((2048,), torch.float32, device, seed=5)
    result = bench(torch.diag, x)
    _assert_diag(result, x)


# test_fn_grad / test_fn_gradgrad: the gradient of a matrix's diagonal (the cotangent scattered onto it) and of a
# vector made a diagonal matrix (the cotangent's diagonal), on and off the main diagonal, against the CPU's float64
# one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a device trains in float32
# and bfloat16 too.
@pytest.mark.parametrize("shape, diagonal", [((4, 5), 0), ((5, 4), -1), ((4,), 0), ((4,), 2)],
                         ids=["matrix", "matrix-1", "vector", "vector+2"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_diag_backward(backward, device, dtype, shape, diagonal):
    x = random_tensor(shape, dtype, device, 6).requires_grad_(True)
    grads = backward(torch.diag, x, diagonal)
    check_gradients(grads, torch.diag, (x, diagonal), second_order=True)
