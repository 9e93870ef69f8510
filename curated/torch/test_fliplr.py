"""torch.fliplr: cases adapted from pytorch/pytorch test/test_shape_ops.py (test_fliplr, _test_fliplr_flipud, test_flip).

fliplr reverses dim 1 of an input with at least 2 dims; it only moves values, so results are
compared exactly with np.fliplr.
"""
import numpy as np
import pytest
import torch
from _support import check_equal, host, ids, random_tensor

pytestmark = pytest.mark.function("torch.fliplr", decile=60, top20=False)


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
@pytest.mark.parametrize("layout", ["transposed", "expanded", "channels_last"])
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
