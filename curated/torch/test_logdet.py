"""torch.logdet: cases adapted from pytorch/pytorch test/test_linalg.py (test_det_logdet_slogdet and test_det_logdet_slogdet_batched: logdet equals log(det) for positive determinants, NaN for negative ones, -inf for singular matrices, batched inputs, 0x0 matrices, well-conditioned random matrices) and torch/testing/_internal/common_methods_invocations.py (sample_inputs_linalg_det_logdet_slogdet: square matrices of sizes 0, 1, 5 with batch dims (), (0,), (2,), (1, 3); float32/float64/complex64), and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over logdet's OpInfo, on those samples); UPSTREAM_TESTS below maps each to the cases here.

The timed call is torch.logdet(A). The reference comes from NumPy's slogdet in float64: log|det| where
the sign is +1, NaN where it is -1, -inf where it is 0 (complex: log|det| + i * angle(sign)).
Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, ids, to_device

pytestmark = pytest.mark.function("torch.logdet", decile=10, top20=False, paper_label="torch.slogdet")

UPSTREAM_TESTS = {
    "test/test_linalg.py::TestLinalg::test_det_logdet_slogdet": [
        "test_logdet_signs", "test_logdet_complex", "test_logdet_transposed", "test_logdet_large"],
    "test/test_linalg.py::TestLinalg::test_det_logdet_slogdet_batched": ["test_logdet_signs", "test_logdet_large"],
    "test/test_ops.py::TestCommon::test_compare_cpu": ["test_logdet_samples"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_logdet_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_logdet_backward"],
}


def _np_logdet(a):
    sign, logabs = np.linalg.slogdet(a)
    if np.iscomplexobj(a):
        return logabs + 1j * np.angle(sign)
    out = np.where(sign > 0, logabs, np.nan)
    return np.where(sign == 0, -np.inf, out)


def _positive_det_matrix(rng, shape):
    """A well-conditioned symmetric positive definite matrix (det > 0): M M^T + n I."""
    n = shape[-1]
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _check(result, a, dtype):
    assert tuple(result.shape) == a.shape[:-2]
    check_close(result, _np_logdet(a), dtype, equal_nan=True)


# sample_inputs_linalg_det_logdet_slogdet: sizes 0, 1, 5 with batch dims (), (0,), (2,), (1, 3), det > 0.
@pytest.mark.parametrize("batch", [(), (0,), (2,), (1, 3)], ids=lambda b: "batch" + "x".join(map(str, b)))
@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_logdet_samples(bench, device, dtype, n, batch):
    rng = np.random.default_rng(n)
    a = _positive_det_matrix(rng, batch + (n, n))
    x = torch.from_numpy(a).to(device=device, dtype=dtype)
    result = bench(torch.logdet, x)
    _check(result, a, dtype)


# test_logdet: a general random matrix (either sign), a negative determinant (NaN), a singular one (-inf).
@pytest.mark.parametrize("case", ["random", "negative_det", "singular", "mixed_batch"])
def test_logdet_signs(bench, device, case):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    if case == "negative_det":
        a = _positive_det_matrix(rng, (4, 4))
        a[[0, 1]] = a[[1, 0]]  # a row swap flips the sign
    elif case == "singular":
        a[:, 2] = 0.0  # exactly singular (a zero column gives an exact zero pivot)
    elif case == "mixed_batch":
        pos = _positive_det_matrix(rng, (4, 4))
        neg = pos[[1, 0, 2, 3]]
        sing = pos.copy()
        sing[:, 2] = 0
        a = np.stack([pos, neg, sing])
    x = torch.from_numpy(a).to(device=device, dtype=torch.float64)
    result = bench(torch.logdet, x)
    if case == "singular":
        assert float(result) == float("-inf")
    elif case == "negative_det":
        assert torch.isnan(result).item()
    else:
        _check(result, a, torch.float64)


# Complex input: log(det) with the determinant's phase as the imaginary part.
def test_logdet_complex(bench, device):
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(np.complex128)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.logdet, x)
    expected = _np_logdet(a)
    assert result.dtype == torch.complex128
    # the phase is defined modulo 2 pi: compare exp(logdet) (= det) and the real part
    torch.testing.assert_close(result.real.cpu(), torch.from_numpy(expected.real))
    torch.testing.assert_close(torch.exp(1j * result.imag.cpu()), torch.from_numpy(np.exp(1j * expected.imag)))


# A non-contiguous (transposed) input: det(A^T) = det(A).
def test_logdet_transposed(bench, device):
    a = _positive_det_matrix(np.random.default_rng(9), (3, 6, 6))
    x = torch.from_numpy(a).to(device).transpose(-2, -1)
    assert not x.is_contiguous()
    result = bench(torch.logdet, x)
    _check(result, np.swapaxes(a, -1, -2), torch.float64)


# Larger matrices, to time a realistic LU-based logdet.
@pytest.mark.parametrize("shape", [(256, 256), (32, 32, 32)], ids=["256", "32x32x32"])
def test_logdet_large(bench, device, shape):
    a = _positive_det_matrix(np.random.default_rng(10), shape)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.logdet, x)
    _check(result, a, torch.float64)


# test_fn_grad / test_fn_gradgrad: the gradient, the cotangent times the inverse transpose (conjugate transpose for
# complex), of a batch of well-conditioned matrices with positive determinants (complex: any phase), against the CPU's
# float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128; a device trains in
# float32 too.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64], ids=ids)
def test_logdet_backward(backward, device, dtype):
    rng = np.random.default_rng(11)
    a = _positive_det_matrix(rng, (2, 3, 3))
    if dtype.is_complex:
        a = a + 1j * rng.standard_normal((2, 3, 3))
    x = to_device(a, device, dtype, requires_grad=True)
    grads = backward(torch.logdet, x)
    check_gradients(grads, torch.logdet, (x,), second_order=True)
