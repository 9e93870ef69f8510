"""torch.round: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal, test_reference_numerics_extremal, run on the 'round', 'round.decimals_0', 'round.decimals_3' and 'round.decimals_neg_3' OpInfos of torch/testing/_internal/common_methods_invocations.py) and test/test_tensor_creation_ops.py (test_device_rounding).

The reference is np.round (half to even) of the device's input values, computed in the input
dtype (float32 for float16 / bfloat16) and cast back; comparison uses assert_close's
defaults for the dtype. The decimals=3 / -3 OpInfos list float16 for CUDA only; a float16 NumPy
reference would overflow in x * 10**decimals, so float16 is rounded in float32 here and those
cases run on every device.
"""
import numpy as np
import pytest
import torch
from _support import ids, randn, to_device

pytestmark = pytest.mark.function("torch.round", decile=90, top20=False)

FLOATING = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _expected(x, decimals=0):
    host = x.cpu()
    # Half-precision inputs are rounded in float32 (x * 10**decimals overflows float16).
    array = (host.float() if host.dtype in (torch.float16, torch.bfloat16) else host).numpy()
    return torch.from_numpy(np.asarray(np.round(array, decimals))).to(x.dtype)


def _assert_round(result, x, decimals=0, **tolerance):
    assert result.dtype == x.dtype
    torch.testing.assert_close(result.cpu(), _expected(x, decimals), equal_nan=True, **tolerance)


# test_device_rounding: halves round to even.
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_round_half_to_even(bench, device, dtype):
    x = torch.tensor([-5.8, -3.5, -2.3, -1.5, -0.5, 0.5, 1.5, 2.3, 3.5, 5.8], device=device, dtype=dtype)
    result = bench(torch.round, x)
    expected = torch.tensor([-6.0, -4.0, -2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, 6.0], dtype=dtype)
    torch.testing.assert_close(result.cpu(), expected, rtol=0, atol=0)


# test_reference_numerics_normal on the 'round' OpInfo (all_types_and(half, bfloat16)).
@pytest.mark.parametrize("dtype", FLOATING + [torch.int64, torch.int32, torch.uint8], ids=ids)
def test_round_reference(bench, device, dtype):
    values = np.random.default_rng(0).standard_normal((64, 64)) * 20
    if not dtype.is_floating_point:
        values = np.abs(values) if dtype == torch.uint8 else values
        values = np.trunc(values)
    x = to_device(values, device, dtype)
    result = bench(torch.round, x)
    _assert_round(result, x)


# test_reference_numerics_extremal: NaN and infinities pass through.
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_round_extremal(bench, device, dtype):
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.5, -2.5, 1e4 + 0.5], device=device, dtype=dtype)
    result = bench(torch.round, x)
    _assert_round(result, x)


# The 'round.decimals_0', 'round.decimals_3' and 'round.decimals_neg_3' OpInfos.
@pytest.mark.parametrize("decimals, scale", [(0, 20), (3, 20), (-3, 1e5)], ids=["dec0", "dec3", "dec-3"])
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_round_decimals(bench, device, dtype, decimals, scale):
    if dtype == torch.float16 and decimals == -3:
        scale = 1e4  # keep inside float16's range (max 65504)
    x = randn((64, 64), device, dtype, 1, scale=scale)
    result = bench(torch.round, x, decimals=decimals)
    tolerance = {}
    if dtype == torch.bfloat16 and decimals == 3 and device.type == "cuda":
        tolerance = {"atol": 1e-3, "rtol": 0.016}  # upstream's toleranceOverride for CUDA
    _assert_round(result, x, decimals, **tolerance)


# A larger input (4 MB in float32).
def test_round_large(bench, device):
    x = randn((1024, 1024), device, torch.float32, 2, scale=100)
    result = bench(torch.round, x)
    _assert_round(result, x)


# A non-contiguous input.
def test_round_noncontiguous(bench, device):
    x = randn((50, 80), device, torch.float64, 3, scale=10).t()[::2]
    result = bench(torch.round, x, decimals=1)
    _assert_round(result, x, 1)
