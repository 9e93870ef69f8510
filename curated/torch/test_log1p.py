"""torch.log1p: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal / _small / _large / _extremal, test_non_contig, test_contig_vs_every_other for the UnaryUfuncInfo 'log1p': reference np.log1p, domain (-1, inf), integer inputs promoted to the default float dtype, precisionOverride bfloat16 1e-1) and torch/testing/_internal/common_methods_invocations.py (its sample inputs and float16/bfloat16 dtypes).

The timed call is torch.log1p(x). The result is compared with np.log1p computed in float64 (the
input's values as the op sees them) and cast to the result dtype, with assert_close's defaults
for the dtype (bfloat16: atol 1e-1 as upstream's override; float16: its default).
"""
import numpy as np
import pytest
import torch
from _support import check_close, ids, uniform

pytestmark = pytest.mark.function("torch.log1p", decile=70, top20=False)

DOMAIN = (-0.99, 10.0)  # sampled inside log1p's domain (-1, inf)


def _check(result, x, expected_dtype):
    assert result.shape == x.shape
    ref = np.log1p(x.cpu().to(torch.complex128 if x.dtype.is_complex else torch.float64).numpy())
    check_close(result, ref, expected_dtype, bfloat16_tol=(1.6e-2, 1e-1), equal_nan=True)


# test_reference_numerics_normal over the floating dtypes, inside the domain (-1, 10].
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=ids)
@pytest.mark.parametrize("shape", [(), (5,), (5, 5, 5)], ids=["scalar", "5", "5x5x5"])
def test_log1p_normal(bench, device, shape, dtype):
    x = uniform(shape, device, dtype, len(shape), *DOMAIN)
    result = bench(torch.log1p, x)
    _check(result, x, dtype)


# test_reference_numerics_small: |x| tiny, where log1p(x) ~ x must keep full relative precision.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_log1p_small(bench, device, dtype):
    rng = np.random.default_rng(1)
    values = np.sign(rng.standard_normal(200)) * 10.0 ** rng.uniform(-12, -3, 200)
    x = torch.from_numpy(values).to(device=device, dtype=dtype)
    result = bench(torch.log1p, x)
    # assert_close's atol would hide a log(1 + x) that lost x: compare relative to the reference.
    expected = torch.from_numpy(np.log1p(x.cpu().double().numpy())).to(dtype)
    assert result.dtype == dtype
    torch.testing.assert_close(result.cpu(), expected, atol=0, rtol=1.3e-6 if dtype == torch.float32 else 1e-7)


# test_reference_numerics_large and _extremal: big values, -1 (-inf), below -1 (nan), inf, nan.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_log1p_extremal(bench, device, dtype):
    values = [1e20, 1e30, -1.0, -1.5, -100.0, float("inf"), float("-inf"), float("nan"), 0.0, -0.0]
    x = torch.tensor(values, dtype=dtype, device=device)
    result = bench(torch.log1p, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        _check(result, x, dtype)
    got = result.cpu()
    assert got[2] == float("-inf") and torch.isnan(got[3]) and torch.isnan(got[7])


# Integer (and bool) inputs are promoted to the default float dtype.
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool], ids=ids)
def test_log1p_integral(bench, device, dtype):
    array = np.random.default_rng(2).integers(0, 2 if dtype == torch.bool else 100, (4, 6))
    x = torch.from_numpy(array).to(device=device, dtype=dtype)
    result = bench(torch.log1p, x)
    _check(result, x, torch.get_default_dtype())


# test_non_contig / test_contig_vs_every_other.
@pytest.mark.parametrize("layout", ["transposed", "every_other"])
def test_log1p_non_contiguous(bench, device, layout):
    x = uniform((30, 40), device, torch.float32, 3, *DOMAIN)
    x = x.t() if layout == "transposed" else x.reshape(-1)[::2]
    assert not x.is_contiguous()
    result = bench(torch.log1p, x)
    _check(result, x, torch.float32)


# out= into a preallocated tensor.
def test_log1p_out(bench, device):
    x = uniform((8, 8), device, torch.float64, 4, *DOMAIN)
    out = torch.empty((8, 8), dtype=torch.float64, device=device)
    result = bench(torch.log1p, x, out=out)
    assert result.data_ptr() == out.data_ptr()
    _check(result, x, torch.float64)


# Complex input (supported where the version's kernel covers complex).
def test_log1p_complex(bench, device):
    rng = np.random.default_rng(5)
    values = (rng.uniform(-0.9, 3, 64) + 1j * rng.uniform(-2, 2, 64)).astype(np.complex64)
    x = torch.from_numpy(values).to(device)
    result = bench(torch.log1p, x)
    _check(result, x, torch.complex64)


# A large tensor, to time a realistic elementwise op.
def test_log1p_large(bench, device):
    x = uniform((1000, 1000), device, torch.float32, 6, *DOMAIN)
    result = bench(torch.log1p, x)
    _check(result, x, torch.float32)
