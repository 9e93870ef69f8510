"""torch.round: cases adapted from pytorch/pytorch test/test_unary_ufuncs.py (test_reference_numerics_normal, test_reference_numerics_extremal, run on the 'round', 'round.decimals_0', 'round.decimals_3' and 'round.decimals_neg_3' OpInfos of torch/testing/_internal/common_methods_invocations.py) and test/test_tensor_creation_ops.py (test_device_rounding); the gradient (zero wherever round is continuous) by test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over those OpInfos); sparse inputs by test/test_sparse.py (TestSparseUnaryUfuncs: test_sparse_consistency, test_sparse_fn_grad on COO inputs) and test/test_sparse_csr.py (TestSparseCSR.test_sparse_csr_consistency); UPSTREAM_TESTS below maps each to the cases here.

The reference is np.round (half to even) of the device's input values, computed in the input
dtype (float32 for float16 / bfloat16) and cast back; comparison uses assert_close's
defaults for the dtype. The decimals=3 / -3 OpInfos list float16 for CUDA only; a float16 NumPy
reference would overflow in x * 10**decimals, so float16 is rounded in float32 here and those
cases run on every device.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import SPARSE, ids, randn, sparse_tensor, to_device

pytestmark = pytest.mark.function("torch.round", decile=90, top20=False)

UPSTREAM_TESTS = {
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_normal": [
        "test_round_reference", "test_round_decimals", "test_round_large", "test_round_noncontiguous"],
    "test/test_unary_ufuncs.py::TestUnaryUfuncs::test_reference_numerics_extremal": ["test_round_extremal"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_device_rounding": ["test_round_half_to_even"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_round_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_round_backward"],
    "test/test_sparse.py::TestSparseUnaryUfuncs::test_sparse_consistency": ["test_round_sparse"],
    "test/test_sparse.py::TestSparseUnaryUfuncs::test_sparse_fn_grad": ["test_round_sparse_backward"],
    "test/test_sparse_csr.py::TestSparseCSR::test_sparse_csr_consistency": ["test_round_sparse"],
    "test/test_sparse_csr.py::TestSparseCSR::test_autograd_sparse_csr_unary": "upstream skips round there: it is not "
                                                                              "among the unary ops allowed autograd "
                                                                              "on CSR inputs",
}

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


# test_fn_grad / test_fn_gradgrad on 'round' and 'round.decimals_3': the gradient is zero (round is piecewise
# constant; the inputs stay clear of its jumps), against the CPU's float64 one, with gradcheck and gradgradcheck on
# the CPU. Upstream checks float64; a device trains in float32 and bfloat16 too.
@pytest.mark.parametrize("decimals", [0, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
def test_round_backward(backward, device, dtype, decimals):
    rng = np.random.default_rng(4)
    # Integers plus fractions in [0.1, 0.4]: clear of the jumps at halves even after rounding to bfloat16.
    x = to_device(rng.integers(-5, 5, (3, 4)) + rng.uniform(0.1, 0.4, (3, 4)), device, dtype, requires_grad=True)
    grads = backward(torch.round, x, decimals=decimals)
    check_gradients(grads, torch.round, (x,), {"decimals": decimals}, second_order=True)


def _sparse(layout, dtype, device, seed):
    """A (6, 5) matrix with about half of its entries zero (round keeps them zero), sparse."""
    return sparse_tensor(np.random.default_rng(seed).standard_normal((6, 5)) * 20, layout, device, dtype, seed + 1)


# test_sparse_consistency / test_sparse_csr_consistency: round of a sparse input keeps its layout and equals round
# of its dense form.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("layout", SPARSE)
def test_round_sparse(bench, device, layout, dtype):
    x = _sparse(layout, dtype, device, seed=5)
    result = bench(torch.round, x)
    assert result.layout == x.layout
    _assert_round(result.to_dense(), x.to_dense())


def _round_dense(x):
    return torch.round(x).to_dense()


# test_sparse_fn_grad: the (zero) gradient of a sparse COO input at its specified elements, gradcheck's masked
# semantics as upstream.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_round_sparse_backward(backward, device, dtype):
    x = _sparse("sparse_coo", dtype, device, seed=6).requires_grad_(True)
    grads = backward(_round_dense, x)
    check_gradients(grads, _round_dense, (x,), masked=True)
