"""torch.log1p: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal / _small / _large / _extremal, test_non_contig, test_contig_vs_every_other for the UnaryUfuncInfo 'log1p': reference np.log1p, domain (-1, inf), integer inputs promoted to the default float dtype, precisionOverride bfloat16 1e-1) and torch/testing/_internal/common_methods_invocations.py (its sample inputs and float16/bfloat16 dtypes), test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over the same OpInfo), and its sparse tests: test/test_sparse.py (TestSparseUnaryUfuncs: test_sparse_consistency, test_sparse_fn_grad with gradcheck's masked semantics on COO inputs) and test/test_sparse_csr.py (TestSparseCSR: test_sparse_csr_consistency, test_autograd_sparse_csr_unary, where log1p is among the unary ops allowed autograd on CSR inputs); UPSTREAM_TESTS below maps each to the cases here.

The timed call is torch.log1p(x). The result is compared with np.log1p computed in float64 (the
input's values as the op sees them) and cast to the result dtype, with assert_close's defaults
for the dtype (bfloat16: atol 1e-1 as upstream's override; float16: its default).
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import SPARSE, check_close, ids, sparse_tensor, to_device, uniform

pytestmark = pytest.mark.function("torch.log1p", decile=70, top20=False)

UPSTREAM_TESTS = {
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_normal": [
        "test_log1p_normal", "test_log1p_integral", "test_log1p_complex", "test_log1p_large"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_small": ["test_log1p_small"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_large": ["test_log1p_extremal"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_extremal": ["test_log1p_extremal"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_non_contig": ["test_log1p_non_contiguous"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_contig_vs_every_other": ["test_log1p_non_contiguous"],
    "test/test_ops.py::TestCommon::test_out": ["test_log1p_out"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_log1p_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_log1p_backward"],
    "test/test_sparse.py::TestSparseUnaryUfuncs::test_sparse_consistency": ["test_log1p_sparse"],
    "test/test_sparse.py::TestSparseUnaryUfuncs::test_sparse_fn_grad": ["test_log1p_sparse_backward"],
    "test/test_sparse_csr.py::TestSparseCSR::test_sparse_csr_consistency": ["test_log1p_sparse"],
    "test/test_sparse_csr.py::TestSparseCSR::test_autograd_sparse_csr_unary": ["test_log1p_sparse_backward"],
}

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


# test_fn_grad / test_fn_gradgrad: 1 / (1 + x) times the cotangent (conjugated for complex) against the CPU's float64
# gradient, inside the domain, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a
# device trains in float32 and bfloat16 too.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_log1p_backward(backward, device, dtype):
    rng = np.random.default_rng(7)
    values = rng.uniform(-0.9, 3, (4, 5))
    if dtype.is_complex:
        values = values + 1j * rng.uniform(-2, 2, (4, 5))
    x = to_device(values, device, dtype, requires_grad=True)
    grads = backward(torch.log1p, x)
    check_gradients(grads, torch.log1p, (x,), second_order=True)


def _sparse(layout, dtype, device, seed):
    """A (6, 5) matrix inside the domain with about half of its entries zero (log1p keeps them zero), sparse."""
    return sparse_tensor(np.random.default_rng(seed).uniform(-0.9, 3, (6, 5)), layout, device, dtype, seed + 1)


# test_sparse_consistency / test_sparse_csr_consistency: log1p of a sparse input keeps its layout and equals log1p of
# its dense form.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("layout", SPARSE)
def test_log1p_sparse(bench, device, layout, dtype):
    x = _sparse(layout, dtype, device, seed=8)
    result = bench(torch.log1p, x)
    assert result.layout == x.layout
    _check(result.to_dense(), x.to_dense(), dtype)


def _log1p_dense(x):
    return torch.log1p(x).to_dense()


# test_sparse_fn_grad / test_autograd_sparse_csr_unary: the gradient of a sparse input, at its specified elements
# (gradcheck's masked semantics, as upstream), through the dense form of the result.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("layout", SPARSE)
def test_log1p_sparse_backward(backward, device, layout, dtype):
    x = _sparse(layout, dtype, device, seed=9).requires_grad_(True)
    grads = backward(_log1p_dense, x)
    assert grads[0].layout == x.layout
    check_gradients(grads, _log1p_dense, (x,), masked=True)
