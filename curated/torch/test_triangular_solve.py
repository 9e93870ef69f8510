"""torch.triangular_solve: cases adapted from pytorch/pytorch test/test_linalg.py (triangular_solve_test_helper: A is the upper or lower triangle of a positive-definite A0 @ A0^T, with a unit diagonal when unitriangular; test_triangular_solve: (n, k) in (3, 2), (5, 3), (7, 5) over every upper / unitriangular / transpose combination; test_triangular_solve_batched: batches of 1, 3 and 4 with A (b, 5, 5) and B (b, 5, 10); test_triangular_solve_batched_broadcasting: batch dimensions that broadcast between A and B), each over float32, float64, complex64 and complex128 with precisionOverride atol 1e-3 (single) and 1e-8 (double); and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over triangular_solve's OpInfo: the gradients of b and of A's triangle); UPSTREAM_TESTS below maps each to the cases here.

`torch.triangular_solve(b, A)` is deprecated in favour of torch.linalg.solve_triangular but still
exists. It returns (solution, cloned_coefficient). Each case checks the solution's dtype and shape,
that A_eff @ x reproduces b, and x against NumPy's general solver on the same triangular matrix
(in double precision), with the upstream atol and the default rtol of the dtype; the second output
must equal A.
"""
import itertools

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import ids, np_dtype, random_array, to_device

pytestmark = pytest.mark.function("torch.triangular_solve", decile=50, top20=False)

UPSTREAM_TESTS = {
    "test/test_linalg.py::TestLinalg::test_triangular_solve": ["test_triangular_solve_single"],
    "test/test_linalg.py::TestLinalg::test_triangular_solve_batched": [
        "test_triangular_solve_batched", "test_triangular_solve_large"],
    "test/test_linalg.py::TestLinalg::test_triangular_solve_batched_broadcasting": [
        "test_triangular_solve_broadcasting"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_triangular_solve_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_triangular_solve_backward"],
}

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]
ATOL = {torch.float32: 1e-3, torch.complex64: 1e-3, torch.float64: 1e-8, torch.complex128: 1e-8}
RTOL = {torch.float32: 1.3e-6, torch.complex64: 1.3e-6, torch.float64: 1e-7, torch.complex128: 1e-7}
FLAGS = list(itertools.product([True, False], repeat=3))


def _flag_ids(flags):
    upper, unit, transpose = flags
    return ("upper" if upper else "lower") + ("-unit" if unit else "") + ("-T" if transpose else "")


def _problem(a_shape, b_shape, upper, unitriangular, dtype, seed):
    """b and a triangular A (NumPy, double precision) built the way the upstream helper builds them."""
    rng = np.random.default_rng(seed)
    double = torch.complex128 if dtype.is_complex else torch.float64
    a0 = random_array(a_shape, double, rng)
    a = a0 @ np.swapaxes(a0, -1, -2)  # transpose without conjugation, as A.transpose(-2, -1) upstream
    a = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        idx = np.arange(a_shape[-1])
        a[..., idx, idx] = 1
    b = random_array(b_shape, double, rng)
    return b.astype(np_dtype(dtype)), a.astype(np_dtype(dtype))


def _effective(a, unitriangular, transpose):
    a = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    if unitriangular:  # the diagonal is taken as 1 whatever it holds
        idx = np.arange(a.shape[-1])
        a = a.copy()
        a[..., idx, idx] = 1
    return np.swapaxes(a, -1, -2) if transpose else a


def _check(result, b_np, a_np, upper, unitriangular, transpose, dtype):
    x, a_clone = result
    batch = np.broadcast_shapes(a_np.shape[:-2], b_np.shape[:-2])
    assert x.dtype == dtype and tuple(x.shape) == batch + b_np.shape[-2:]
    assert a_clone.dtype == dtype and tuple(a_clone.shape) == batch + a_np.shape[-2:]
    np.testing.assert_array_equal(a_clone.cpu().numpy(), np.broadcast_to(a_np, a_clone.shape))
    a_eff = _effective(a_np, unitriangular, transpose)
    b64 = b_np.astype(a_eff.dtype)
    atol, rtol = ATOL[dtype], RTOL[dtype]
    got = torch.from_numpy(x.cpu().numpy().astype(a_eff.dtype))
    # test_triangular_solve: A_eff @ x reproduces b.
    torch.testing.assert_close(torch.from_numpy(a_eff) @ got, torch.from_numpy(np.broadcast_to(b64, got.shape).copy()),
                               atol=atol, rtol=rtol)
    # And x agrees with NumPy's solve on the same matrix.
    expected = np.linalg.solve(np.broadcast_to(a_eff, batch + a_eff.shape[-2:]), np.broadcast_to(b64, got.shape))
    torch.testing.assert_close(got, torch.from_numpy(expected), atol=atol, rtol=rtol)


# test_triangular_solve: single matrices, every flag combination, every dtype.
@pytest.mark.parametrize("flags", FLAGS, ids=_flag_ids)
@pytest.mark.parametrize("n, k", [(3, 2), (5, 3), (7, 5)], ids=["n3k2", "n5k3", "n7k5"])
@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_triangular_solve_single(bench, device, dtype, n, k, flags):
    upper, unitriangular, transpose = flags
    b_np, a_np = _problem((n, n), (n, k), upper, unitriangular, dtype, seed=n)
    b, a = torch.from_numpy(b_np).to(device), torch.from_numpy(a_np).to(device)
    result = bench(torch.triangular_solve, b, a, upper=upper, transpose=transpose, unitriangular=unitriangular)
    _check(result, b_np, a_np, upper, unitriangular, transpose, dtype)


# test_triangular_solve_batched: A (batch, 5, 5), B (batch, 5, 10).
@pytest.mark.parametrize("flags", FLAGS, ids=_flag_ids)
@pytest.mark.parametrize("batch", [1, 3, 4])
@pytest.mark.parametrize("dtype", [torch.float32, torch.complex128], ids=ids)
def test_triangular_solve_batched(bench, device, dtype, batch, flags):
    upper, unitriangular, transpose = flags
    b_np, a_np = _problem((batch, 5, 5), (batch, 5, 10), upper, unitriangular, dtype, seed=batch)
    b, a = torch.from_numpy(b_np).to(device), torch.from_numpy(a_np).to(device)
    result = bench(torch.triangular_solve, b, a, upper, transpose, unitriangular)
    _check(result, b_np, a_np, upper, unitriangular, transpose, dtype)


# test_triangular_solve_batched_broadcasting: batch dims of A and B broadcast against each other.
@pytest.mark.parametrize("a_shape, b_shape", [
    ((2, 1, 3, 4, 4), (2, 1, 3, 4, 6)),
    ((2, 1, 3, 4, 4), (4, 6)),
    ((4, 4), (2, 1, 3, 4, 2)),
    ((1, 3, 1, 4, 4), (2, 1, 3, 4, 5)),
], ids=["no-broadcast", "broadcast-b", "broadcast-A", "broadcast-both"])
@pytest.mark.parametrize("upper", [True, False], ids=["upper", "lower"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_triangular_solve_broadcasting(bench, device, dtype, upper, a_shape, b_shape):
    b_np, a_np = _problem(a_shape, b_shape, upper, False, dtype, seed=len(a_shape) + len(b_shape))
    b, a = torch.from_numpy(b_np).to(device), torch.from_numpy(a_np).to(device)
    result = bench(torch.triangular_solve, b, a, upper=upper)
    _check(result, b_np, a_np, upper, False, False, dtype)


# A larger lower-triangular system: well conditioned (a dominant diagonal) so float32 stays accurate.
def test_triangular_solve_large(bench, device):
    rng = np.random.default_rng(7)
    n = 512
    a_np = np.tril(rng.standard_normal((n, n)) / np.sqrt(n)) + np.eye(n) * 4
    b_np = rng.standard_normal((n, 64))
    a = torch.from_numpy(a_np.astype(np.float32)).to(device)
    b = torch.from_numpy(b_np.astype(np.float32)).to(device)
    x, _ = bench(torch.triangular_solve, b, a, upper=False)
    assert x.dtype == torch.float32 and tuple(x.shape) == (n, 64)
    expected = np.linalg.solve(a_np.astype(np.float32).astype(np.float64), b_np.astype(np.float32).astype(np.float64))
    torch.testing.assert_close(x.cpu().double(), torch.from_numpy(expected), atol=1e-3, rtol=1.3e-6)


# test_fn_grad / test_fn_gradgrad: the gradients of b and of A (its triangle; off the diagonal only when
# unitriangular) through both outputs, the solution and the copy of A, against the CPU's float64 ones, with gradcheck
# and gradgradcheck on the CPU, at upstream's precisionOverride. Upstream checks float64 and complex128; a device
# trains in float32 too.
@pytest.mark.parametrize("flags", [(True, False, False), (False, True, True)], ids=_flag_ids)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64], ids=ids)
def test_triangular_solve_backward(backward, device, dtype, flags):
    upper, unitriangular, transpose = flags
    b_np, a_np = _problem((2, 4, 4), (2, 4, 3), upper, unitriangular, dtype, seed=8)
    b, a = (to_device(v, device, requires_grad=True) for v in (b_np, a_np))
    kwargs = {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}
    grads = backward(torch.triangular_solve, b, a, **kwargs)
    check_gradients(grads, torch.triangular_solve, (b, a), kwargs, atol=ATOL[dtype], second_order=True)
