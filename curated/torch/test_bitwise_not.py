"""torch.bitwise_not: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal / _small / _extremal and test_contig_vs_every_other / test_non_contig for the UnaryUfuncInfo 'bitwise_not', reference np.bitwise_not, dtypes integral_types_and(bool)) and torch/testing/_internal/common_methods_invocations.py (its sample inputs: 0-d, empty, (S, S, S), non-contiguous).

The timed call is torch.bitwise_not(x). The result must equal np.bitwise_not exactly, in the input
dtype and shape.
"""
import numpy as np
import pytest
import torch

pytestmark = pytest.mark.function("torch.bitwise_not", decile=10, top20=False)

INTEGRAL_AND_BOOL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
_NP = {torch.bool: np.bool_, torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16,
       torch.int32: np.int32, torch.int64: np.int64}


def _ids(value):
    return str(value).replace("torch.", "")


def _sample(shape, dtype, seed):
    """Like make_tensor: integers from [-9, 10) (uint8: [0, 10)), bools at random."""
    rng = np.random.default_rng(seed)
    if dtype == torch.bool:
        return rng.random(shape) < 0.5
    low = 0 if dtype == torch.uint8 else -9
    return rng.integers(low, 10, size=shape).astype(_NP[dtype])


def _check(result, array, dtype):
    assert result.dtype == dtype
    assert tuple(result.shape) == array.shape
    np.testing.assert_array_equal(result.cpu().numpy(), np.bitwise_not(array))


# test_reference_numerics_normal over the sample shapes: 0-d, empty, (S, S, S) with S = 5, and a long 1-D run.
@pytest.mark.parametrize("shape", [(), (0,), (5, 5, 5), (1024,)], ids=["scalar", "empty", "5x5x5", "1024"])
@pytest.mark.parametrize("dtype", INTEGRAL_AND_BOOL, ids=_ids)
def test_bitwise_not_normal(bench, device, dtype, shape):
    array = np.asarray(_sample(shape, dtype, seed=len(shape)))
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)


# test_reference_numerics_extremal-style values: each integer type's min, max, 0 and -1 (all ones).
@pytest.mark.parametrize("dtype", INTEGRAL_AND_BOOL[1:], ids=_ids)
def test_bitwise_not_extremal(bench, device, dtype):
    info = np.iinfo(_NP[dtype])
    values = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        values.append(-1)
    array = np.asarray(values, dtype=_NP[dtype])
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)


# test_non_contig / test_contig_vs_every_other: a transposed view and every other element.
@pytest.mark.parametrize("layout", ["transposed", "every_other"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.int64], ids=_ids)
def test_bitwise_not_non_contiguous(bench, device, dtype, layout):
    array = _sample((20, 30), dtype, seed=3)
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
    array = _sample((7, 9), torch.int16, seed=4)
    x = torch.from_numpy(array.copy()).to(device)
    out = torch.empty((7, 9), dtype=torch.int16, device=device)
    result = bench(torch.bitwise_not, x, out=out)
    assert result.data_ptr() == out.data_ptr()
    _check(result, array, torch.int16)


# Floating inputs are rejected (the op is defined for integral and bool only); checked beside one valid call.
def test_bitwise_not_rejects_float(bench, device):
    array = _sample((4, 4), torch.uint8, seed=5)
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, torch.uint8)
    with pytest.raises(RuntimeError):
        torch.bitwise_not(torch.ones(3, device=device))


# A larger tensor, to time a realistic elementwise op.
@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8], ids=_ids)
def test_bitwise_not_large(bench, device, dtype):
    array = _sample((1000, 1000), dtype, seed=6)
    x = torch.from_numpy(array.copy()).to(device)
    result = bench(torch.bitwise_not, x)
    _check(result, array, dtype)
