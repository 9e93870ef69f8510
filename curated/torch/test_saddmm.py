"""torch.saddmm: cases adapted from pytorch/pytorch test/test_sparse.py (TestSparse.test_saddmm, CPU-only upstream: sparse t (di x dk) and x (di x dj) with nnz random entries, coalesced or not, a dense y (dj x dk), saddmm(t, x, y, beta=beta, alpha=alpha) and saddmm(t, x, y) compared with the dense addmm of the densified operands, for shapes (7, 5, 3, nnz 20), (1000, 100, 100, 20), (3000, 64, 300, 20) and the empty ones (0, 100, 100, 0), (1000, 0, 100, 0), (1000, 100, 0, 0), in float64 and complex128). Not differentiable (the marker's backward= says why): no backward cases. UPSTREAM_TESTS below maps each to the cases here.

torch.saddmm (sparse = beta * sparse + alpha * sparse @ dense) is an old, undocumented sparse entry
point that a recent version may no longer expose; the harness then records missing_api. The timed
call is torch.saddmm(t, x, y, ...). The result must be a sparse COO tensor of shape (di, dk) and the
inputs' dtype whose dense form equals beta * T + alpha * X @ Y computed in float64/complex128
NumPy, with assert_close's defaults for the dtype. Every case takes sparse COO operands (its layout marker).
"""
import numpy as np
import pytest
import torch
from _support import ids, random_array

pytestmark = pytest.mark.function("torch.saddmm", decile=20, top20=False,
                                  backward="no registered gradient: autograd raises 'derivative for aten::sspaddmm is "
                                           "not implemented'")

UPSTREAM_TESTS = {
    "test/test_sparse.py::TestSparse::test_saddmm": [
        "test_saddmm_small", "test_saddmm_float32", "test_saddmm_beta_zero", "test_saddmm_large", "test_saddmm_empty"],
}

def _sparse(rng, shape, nnz, dtype, device, coalesced):
    """A sparse COO matrix with nnz random entries (duplicates possible: uncoalesced) and its dense form."""
    if 0 in shape:
        nnz = 0
    idx = np.stack([rng.integers(0, max(s, 1), nnz) for s in shape]).astype(np.int64)
    val = random_array(nnz, dtype, rng)
    dense = np.zeros(shape, dtype=np.complex128 if dtype.is_complex else np.float64)
    np.add.at(dense, (idx[0], idx[1]), val)
    t = torch.sparse_coo_tensor(torch.from_numpy(idx), torch.from_numpy(val), shape, device=device)
    if coalesced:
        t = t.coalesce()
    return t, dense


def _run(bench, device, dtype, di, dj, dk, nnz, coalesced, seed, **kwargs):
    rng = np.random.default_rng(seed)
    x, x_np = _sparse(rng, (di, dj), nnz, dtype, device, coalesced)
    t, t_np = _sparse(rng, (di, dk), nnz, dtype, device, coalesced)
    y_np = random_array(dj * dk, dtype, rng).reshape(dj, dk)
    y = torch.from_numpy(y_np).to(device)
    result = bench(torch.saddmm, t, x, y, **kwargs)
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    expected = beta * t_np + alpha * (x_np @ y_np.astype(t_np.dtype))
    assert result.layout == torch.sparse_coo and result.dtype == dtype and tuple(result.shape) == (di, dk)
    torch.testing.assert_close(result.to_dense().cpu(), torch.from_numpy(expected).to(dtype))
    return result


# test_saddmm: float64 and complex128, coalesced or not, with random beta/alpha and with the defaults.
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("scalars", ["beta_alpha", "defaults"])
@pytest.mark.parametrize("coalesced", [True, False], ids=["coalesced", "uncoalesced"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=ids)
def test_saddmm_small(bench, device, dtype, coalesced, scalars):
    kwargs = {"beta": 0.37, "alpha": 0.81} if scalars == "beta_alpha" else {}
    _run(bench, device, dtype, 7, 5, 3, 20, coalesced, 0, **kwargs)


# float32 too (not in the upstream dtype list, but the common dtype).
@pytest.mark.layout("sparse_coo")
def test_saddmm_float32(bench, device):
    _run(bench, device, torch.float32, 7, 5, 3, 20, True, 1, beta=0.5, alpha=2.0)


# beta = 0 drops the sparse input's contribution.
@pytest.mark.layout("sparse_coo")
def test_saddmm_beta_zero(bench, device):
    _run(bench, device, torch.float64, 20, 10, 6, 30, True, 2, beta=0)


# test_saddmm's larger shapes (nnz 20).
@pytest.mark.layout("sparse_coo")
@pytest.mark.parametrize("di,dj,dk", [(1000, 100, 100), (3000, 64, 300)], ids=["1000x100x100", "3000x64x300"])
def test_saddmm_large(bench, device, di, dj, dk):
    _run(bench, device, torch.float64, di, dj, dk, 20, True, 3, beta=0.3, alpha=0.6)


# test_saddmm's empty shapes: a zero dimension anywhere, and nnz 0.
@pytest.mark.parametrize("di,dj,dk,nnz", [(0, 100, 100, 0), (1000, 0, 100, 0), (1000, 100, 0, 0), (50, 40, 30, 0)],
                         ids=["di0", "dj0", "dk0", "nnz0"])
@pytest.mark.layout("sparse_coo")
def test_saddmm_empty(bench, device, di, dj, dk, nnz):
    result = _run(bench, device, torch.float64, di, dj, dk, nnz, True, 4)
    assert result.to_dense().abs().sum().item() == 0.0
