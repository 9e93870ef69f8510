"""torch.ormqr: cases adapted from pytorch/pytorch test/test_linalg.py (test_ormqr: A of shape (*batch, m, n) for batch dims (), (0,), (2,), (2, 1) and m, n in {5, 2, 0}, factored by torch.geqrf, Fortran- and C-contiguous reflectors, C multiplied from the left and the right, with and without the conjugate transpose, compared with the explicit Q of linalg.qr(mode='complete'); an all-zero tau gives Q = I; test_ormqr_errors_and_warnings: the shape errors) in every floating and complex dtype, and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over ormqr's OpInfo: the gradients of the reflectors, tau and C); UPSTREAM_TESTS below maps each to the cases here.

The timed call is torch.ormqr(reflectors, tau, C, left=..., transpose=...), where (reflectors, tau)
come from torch.geqrf(A) on the cell's device (outside the timed call). The reference applies, in
float64 NumPy, the same reflectors to C: Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^H, giving
Q C, C Q, Q^H C or C Q^H (and, once, the explicit Q); compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import ids, random_array, to_device

pytestmark = pytest.mark.function("torch.ormqr", decile=40, top20=False)

UPSTREAM_TESTS = {
    "test/test_linalg.py::TestLinalg::test_ormqr": [
        "test_ormqr_dtypes", "test_ormqr_shapes", "test_ormqr_empty", "test_ormqr_zero_tau", "test_ormqr_matches_qr",
        "test_ormqr_large"],
    "test/test_linalg.py::TestLinalg::test_ormqr_errors_and_warnings": ["test_ormqr_errors"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_ormqr_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_ormqr_backward"],
}

_MODES = [(True, False), (False, False), (True, True), (False, True)]
_MODE_IDS = ["QC", "CQ", "QhC", "CQh"]


def _np_q(reflectors, tau):
    """The m x m Q of a geqrf factorisation, as a product of Householder reflections (float64)."""
    batch, (m, _), k = reflectors.shape[:-2], reflectors.shape[-2:], tau.shape[-1]
    q = np.broadcast_to(np.eye(m, dtype=np.complex128), batch + (m, m)).copy()
    for i in range(k):
        v = np.zeros(batch + (m,), dtype=np.complex128)
        v[..., i] = 1.0
        v[..., i + 1:] = reflectors[..., i + 1:, i]
        h = np.eye(m) - tau[..., i, None, None] * (v[..., :, None] * np.conj(v[..., None, :]))
        q = q @ h
    return q


def _expected(reflectors, tau, c, left, transpose):
    """Q C, C Q, Q^H C or C Q^H in float64, applying the reflections H_i to C one at a time."""
    v_all = reflectors.cpu().numpy().astype(np.complex128)
    tau = tau.cpu().numpy().astype(np.complex128)
    out = np.array(c, dtype=np.complex128)
    m, k = v_all.shape[-2], tau.shape[-1]
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    for i in order:
        v = np.zeros(v_all.shape[:-2] + (m, 1), dtype=np.complex128)
        v[..., i, 0] = 1.0
        v[..., i + 1:, 0] = v_all[..., i + 1:, i]
        t = np.conj(tau[..., i]) if transpose else tau[..., i]
        vh = np.conj(np.swapaxes(v, -1, -2))
        if left:
            out = out - t[..., None, None] * (v @ (vh @ out))
        else:
            out = out - t[..., None, None] * ((out @ v) @ vh)
    return out


def _run(bench, device, dtype, batch, m, n, left, transpose, fortran=True, seed=0):
    rng = np.random.default_rng(seed)
    a = to_device(random_array(batch + (m, n), dtype, rng, reals=(-9, 9)), device)
    reflectors, tau = torch.geqrf(a)
    if not fortran:
        reflectors = reflectors.contiguous()
    c_np = random_array(batch + ((m, n) if left else (n, m)), dtype, rng, reals=(-9, 9))
    c = torch.from_numpy(c_np).to(device)
    result = bench(torch.ormqr, reflectors, tau, c, left=left, transpose=transpose)
    expected = _expected(reflectors, tau, c_np.astype(np.complex128), left, transpose)
    if not dtype.is_complex:
        assert np.abs(expected.imag).max(initial=0.0) == 0.0
        expected = expected.real
    assert result.dtype == dtype and tuple(result.shape) == tuple(c.shape)
    torch.testing.assert_close(result.cpu(), torch.from_numpy(expected).to(dtype))
    return result, c


# test_ormqr: the four products, in every floating and complex dtype, for a batch of tall matrices.
@pytest.mark.parametrize("left,transpose", _MODES, ids=_MODE_IDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.complex128], ids=ids)
def test_ormqr_dtypes(bench, device, dtype, left, transpose):
    _run(bench, device, dtype, (2,), 5, 2, left, transpose)


# test_ormqr: m, n in {5, 2} (square, tall, wide) and batch dims (), (2, 1); Fortran- or C-ordered
# reflectors.
@pytest.mark.parametrize("fortran", [True, False], ids=["fortran", "c_contig"])
@pytest.mark.parametrize("batch", [(), (2, 1)], ids=["nobatch", "batch2x1"])
@pytest.mark.parametrize("mn", [(5, 5), (5, 2), (2, 5)], ids=["5x5", "5x2", "2x5"])
@pytest.mark.parametrize("left,transpose", [(True, False), (False, True)], ids=["QC", "CQh"])
def test_ormqr_shapes(bench, device, mn, batch, fortran, left, transpose):
    _run(bench, device, torch.float64, batch, mn[0], mn[1], left, transpose, fortran=fortran, seed=1)


# test_ormqr: empty dims (m or n of 0, or an empty batch) give an empty result of C's shape.
@pytest.mark.parametrize("batch,mn", [((0,), (5, 5)), ((), (5, 0)), ((), (0, 5)), ((2,), (0, 0))],
                         ids=["batch0", "n0", "m0", "m0n0"])
def test_ormqr_empty(bench, device, batch, mn):
    result, c = _run(bench, device, torch.float64, batch, mn[0], mn[1], True, False, seed=2)
    assert result.numel() == 0 or torch.equal(result, c)


# test_ormqr: with tau = 0 every reflection is the identity, so Q C = C.
@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
def test_ormqr_zero_tau(bench, device, left):
    rng = np.random.default_rng(3)
    a = torch.from_numpy(rng.standard_normal((4, 6, 3))).to(device)
    reflectors, tau = torch.geqrf(a)
    c = torch.from_numpy(rng.standard_normal((4, 6, 3) if left else (4, 3, 6))).to(device)
    result = bench(torch.ormqr, reflectors, torch.zeros_like(tau), c, left=left)
    torch.testing.assert_close(result.cpu(), c.cpu())


# Q^H (Q C) = C, and Q applied to the first columns of the identity reproduces linalg.qr's reduced Q
# up to the column signs LAPACK picks (the same geqrf here, so identical).
def test_ormqr_matches_qr(bench, device):
    rng = np.random.default_rng(4)
    a_np = rng.standard_normal((3, 8, 4))
    a = torch.from_numpy(a_np).to(device)
    reflectors, tau = torch.geqrf(a)
    eye = torch.eye(8, 4, dtype=torch.float64).expand(3, 8, 4).contiguous().to(device)
    result = bench(torch.ormqr, reflectors, tau, eye)
    q_ref = _np_q(reflectors.cpu().numpy(), tau.cpu().numpy()).real[..., :4]
    torch.testing.assert_close(result.cpu(), torch.from_numpy(q_ref))
    # the reduced Q spans A's columns: Q Q^H A = A, and R = Q^H A is upper triangular
    q = result.cpu().numpy()
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2) @ a_np, a_np, atol=1e-10)
    np.testing.assert_allclose(np.tril(np.swapaxes(q, -1, -2) @ a_np, -1), 0.0, atol=1e-10)


# test_ormqr_errors_and_warnings: the shape errors, around one valid call.
def test_ormqr_errors(bench, device):
    rng = np.random.default_rng(5)
    a = torch.from_numpy(rng.standard_normal((6, 4))).to(device)
    reflectors, tau = torch.geqrf(a)
    c = torch.from_numpy(rng.standard_normal((6, 2))).to(device)
    result = bench(torch.ormqr, reflectors, tau, c)
    expected = _expected(reflectors, tau, c.cpu().numpy().astype(np.complex128), True, False).real
    torch.testing.assert_close(result.cpu(), torch.from_numpy(expected))

    def t(*shape):
        return torch.ones(shape, dtype=torch.float64, device=device)

    with pytest.raises(RuntimeError, match="input must have at least 2 dimensions"):
        torch.ormqr(t(10), t(2), t(2))
    with pytest.raises(RuntimeError, match="other must have at least 2 dimensions"):
        torch.ormqr(t(2, 2), t(2), t(2))
    with pytest.raises(RuntimeError, match=r"other.shape\[-2\] must be equal to input.shape\[-2\]"):
        torch.ormqr(t(6, 6), t(5), t(5, 5))


# Larger matrices, to time a realistic Householder application.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_ormqr_large(bench, device, dtype):
    _run(bench, device, dtype, (), 256, 128, True, False, seed=6)


# test_fn_grad / test_fn_gradgrad: the gradients of the reflectors (below their diagonal: ormqr reads nothing else),
# tau and C, for Q C and C Q^H, against the CPU's float64 ones, with gradcheck and gradgradcheck on the CPU. Upstream
# checks float64 and complex128; a device trains in float32 too.
@pytest.mark.parametrize("left,transpose", [(True, False), (False, True)], ids=["QC", "CQh"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64], ids=ids)
def test_ormqr_backward(backward, device, dtype, left, transpose):
    rng = np.random.default_rng(7)
    a = to_device(random_array((2, 5, 3), dtype, rng, reals=(-2, 2)), device)
    reflectors, tau = (t.detach().requires_grad_(True) for t in torch.geqrf(a))
    c = to_device(random_array((2, 5, 4) if left else (2, 4, 5), dtype, rng), device, requires_grad=True)
    kwargs = {"left": left, "transpose": transpose}
    grads = backward(torch.ormqr, reflectors, tau, c, **kwargs)
    check_gradients(grads, torch.ormqr, (reflectors, tau, c), kwargs, second_order=True)
