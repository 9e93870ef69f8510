"""torch.fliplr: cases adapted from pytorch/pytorch test/test_shape_ops.py (test_fliplr, _test_fliplr_flipud, test_flip) and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over fliplr's OpInfo); UPSTREAM_TESTS below maps each to the cases here.

fliplr reverses dim 1 of an input with at least 2 dims; it only moves values, so results are
compared exactly with np.fliplr.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_equal, host, ids, random_tensor

pytestmark = pytest.mark.function("torch.fliplr", decile=60, top20=False)

UPSTREAM_TESTS = {
    "test/test_shape_ops.py::TestShapeOps::test_fliplr": ["test_fliplr_dims"],
    "test/test_shape_ops.py::TestShapeOps::test_flip": [
        "test_fliplr_dtypes", "test_fliplr_layouts", "test_fliplr_edge_shapes", "test_fliplr_large"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_fliplr_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_fliplr_backward"],
}


def _make(shape, dtype, device, seed):
    """_test_fliplr_flipud's inputs: randn for floating / complex dtypes, randint(0, 10) otherwise."""
    return random_tensor(shape, dtype, device, seed, ints=(0, 10))


def _assert_fliplr(result, x):
    assert result.dtype == x.dtype
    assert tuple(result.shape) == tuple(x.shape)
    check_equal(result, np.fliplr(host(x)))


# test_fliplr: int64, double and cdouble inputs of 2 to 4 dims, sizes 5..10.
@pytest.mark.parametrize("ndim", [2, 3, 4])
@pytest.mark.parametrize("dtype", [torch.int64, torch.float64, torch.complex128], ids=ids)
def test_fliplr_dims(bench, device, dtype, ndim):
    shape = tuple(np.random.default_rng(ndim).integers(5, 11, size=ndim))
    x = _make(shape, dtype, device, seed=0)
    result = bench(torch.fliplr, x)
    _assert_fliplr(result, x)


# test_flip covers every dtype; fliplr is flip(dims=(1,)).
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.uint8, torch.bool, torch.complex64],
    ids=ids,
)
def test_fliplr_dtypes(bench, device, dtype):
    x = _make((6, 7, 3), dtype, device, seed=1)
    result = bench(torch.fliplr, x)
    _assert_fliplr(result, x)


# test_flip's layouts: transposed (non-contiguous), expanded (zero stride), channels-last images.
@pytest.mark.parametrize("layout", ["transposed", "expanded",
                                    pytest.param("channels_last", marks=pytest.mark.layout("channels_last"))])
def test_fliplr_layouts(bench, device, layout):
    if layout == "transposed":
        x = _make((2, 2, 2), torch.float32, device, seed=2).transpose(0, 1)
    elif layout == "expanded":
        x = _make((3, 1), torch.float32, device, seed=3).expand(3, 2)
    else:
        x = _make((2, 8, 32, 32), torch.float32, device, seed=4).contiguous(memory_format=torch.channels_last)
    result = bench(torch.fliplr, x)
    _assert_fliplr(result, x)


# Edge shapes from test_flip: zero elements with non-zero size, and size-1 dims.
@pytest.mark.parametrize("shape", [(3, 0, 2), (0, 4), (1, 1), (4, 1, 5)], ids=str)
def test_fliplr_edge_shapes(bench, device, shape):
    x = _make(shape, torch.float32, device, seed=5)
    result = bench(torch.fliplr, x)
    _assert_fliplr(result, x)


# A larger input (8 MB in float32).
def test_fliplr_large(bench, device):
    x = _make((64, 512, 64), torch.float32, device, seed=6)
    result = bench(torch.fliplr, x)
    _assert_fliplr(result, x)


# test_fn_grad / test_fn_gradgrad: the gradient (the cotangent flipped back) against the CPU's float64 one, with
# gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a device trains in float32 and
# bfloat16 too.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_fliplr_backward(backward, device, dtype):
    x = _make((3, 4, 2), dtype, device, seed=7).requires_grad_(True)
    grads = backward(torch.fliplr, x)
    check_gradients(grads, torch.fliplr, (x,), second_order=True)
