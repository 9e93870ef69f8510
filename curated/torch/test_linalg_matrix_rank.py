"""torch.linalg.matrix_rank: cases adapted from pytorch/pytorch test/test_linalg.py (test_matrix_rank: random matrices of shapes (3, 3), (3, 7), (7, 3) with batch dims (), (3,), (2, 3), the ranks of A, A^H, A A^H and A^H A with and without hermitian=True, checked against np.linalg.matrix_rank; test_matrix_rank_atol / test_matrix_rank_atol_rtol: explicit absolute and relative tolerances; test_matrix_rank_empty: zero-sized matrices and batches give rank 0; test_matrix_rank_basic: the identity and the identity with one zeroed diagonal entry). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.linalg.matrix_rank(A, ...). The result is an int64 tensor of the batch shape;
it must equal NumPy's np.linalg.matrix_rank on the same data (same default tolerance:
sigma_max * max(m, n) * eps of the dtype), or the rank by construction.
"""
import numpy as np
import pytest
import torch
from _support import ids, random_array

pytestmark = pytest.mark.function("torch.linalg.matrix_rank", decile=10, top20=False,
                                  backward="integer output (a count of singular values above the tolerance): not "
                                           "differentiable")

UPSTREAM_TESTS = {
    "test/test_linalg.py::TestLinalg::test_matrix_rank": ["test_matrix_rank_random", "test_matrix_rank_gram",
        "test_matrix_rank_low_rank", "test_matrix_rank_large"],
    "test/test_linalg.py::TestLinalg::test_matrix_rank_atol": ["test_matrix_rank_tolerances"],
    "test/test_linalg.py::TestLinalg::test_matrix_rank_atol_rtol": ["test_matrix_rank_tolerances"],
    "test/test_linalg.py::TestLinalg::test_matrix_rank_empty": ["test_matrix_rank_empty"],
    "test/test_linalg.py::TestLinalg::test_matrix_rank_basic": ["test_matrix_rank_basic"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad":
        "matrix_rank's OpInfo says supports_autograd=False: an integer rank has no gradient",
}

def _check(result, expected, batch):
    assert result.dtype == torch.int64 and tuple(result.shape) == tuple(batch)
    np.testing.assert_array_equal(result.cpu().numpy(), np.asarray(expected))


# test_matrix_rank: random (full-rank) matrices in every floating and complex dtype, against NumPy.
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)], ids=lambda b: "batch" + "x".join(map(str, b)))
@pytest.mark.parametrize("mn", [(3, 3), (3, 7), (7, 3)], ids=lambda s: "%dx%d" % s)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.complex128], ids=ids)
def test_matrix_rank_random(bench, device, dtype, mn, batch):
    a = random_array(batch + mn, dtype, 0)
    x = torch.from_numpy(a).to(device)
    result = bench(torch.linalg.matrix_rank, x)
    _check(result, np.linalg.matrix_rank(a), batch)
    assert int(result.min()) == min(mn)


# test_matrix_rank: A A^H is rank-deficient when A is wide/tall; hermitian=True gives the same rank.
@pytest.mark.parametrize("hermitian", [False, True], ids=["general", "hermitian"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=ids)
def test_matrix_rank_gram(bench, device, dtype, hermitian):
    a = random_array((2, 7, 3), dtype, 1)
    aah = a @ np.conj(np.swapaxes(a, -1, -2))  # 7x7 of rank 3
    x = torch.from_numpy(aah).to(device)
    result = bench(torch.linalg.matrix_rank, x, hermitian=hermitian)
    _check(result, np.linalg.matrix_rank(aah, hermitian=hermitian), (2,))
    _check(result, [3, 3], (2,))


# Low-rank products U V of known rank r.
@pytest.mark.parametrize("rank", [1, 3, 5])
def test_matrix_rank_low_rank(bench, device, rank):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 8, rank)) @ rng.standard_normal((4, rank, 6))
    x = torch.from_numpy(a).to(device=device, dtype=torch.float32)
    result = bench(torch.linalg.matrix_rank, x)
    _check(result, [rank] * 4, (4,))
    _check(result, np.linalg.matrix_rank(a.astype(np.float32)), (4,))


# test_matrix_rank_atol / _atol_rtol: singular values 10, 1, 0.1, 0.01, 0 (by construction, through
# random orthogonal factors); the rank counts the singular values above max(atol, rtol * sigma_max).
@pytest.mark.parametrize("kwargs,rank", [
    ({}, 4),
    ({"atol": 0.5}, 2),
    ({"atol": 0.05}, 3),
    ({"rtol": 0.005}, 3),
    ({"rtol": 0.5}, 1),
    ({"atol": 0.5, "rtol": 0.005}, 2),  # the larger of the two tolerances wins
], ids=["default", "atol0.5", "atol0.05", "rtol0.005", "rtol0.5", "atol_and_rtol"])
def test_matrix_rank_tolerances(bench, device, kwargs, rank):
    rng = np.random.default_rng(3)
    u, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    v, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    a = u @ np.diag([10.0, 1.0, 0.1, 0.01, 0.0]) @ v.T
    x = torch.from_numpy(a).to(device)
    result = bench(torch.linalg.matrix_rank, x, **kwargs)
    _check(result, rank, ())


# test_matrix_rank_empty: zero-sized matrices have rank 0; an empty batch gives an empty result.
@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 3), (0, 4, 4), (2, 0, 3)],
                         ids=lambda s: "x".join(map(str, s)))
def test_matrix_rank_empty(bench, device, shape):
    x = torch.randn(shape, dtype=torch.float64).to(device)
    result = bench(torch.linalg.matrix_rank, x)
    _check(result, np.zeros(shape[:-2], dtype=np.int64), shape[:-2])


# test_matrix_rank_basic: the identity has full rank; zeroing one diagonal entry drops it by one.
@pytest.mark.parametrize("hermitian", [False, True], ids=["general", "hermitian"])
@pytest.mark.parametrize("zeroed", [False, True], ids=["eye", "eye_one_zero"])
def test_matrix_rank_basic(bench, device, zeroed, hermitian):
    a = torch.eye(10)
    if zeroed:
        a[0, 0] = 0
    x = a.to(device)
    result = bench(torch.linalg.matrix_rank, x, hermitian=hermitian)
    _check(result, 9 if zeroed else 10, ())


# A larger batch of rank-deficient matrices, to time a realistic SVD-based rank.
def test_matrix_rank_large(bench, device):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((8, 256, 100)) @ rng.standard_normal((8, 100, 256))
    x = torch.from_numpy(a).to(device)
    result = bench(torch.linalg.matrix_rank, x)
    _check(result, [100] * 8, (8,))
    _check(result, np.linalg.matrix_rank(a), (8,))
