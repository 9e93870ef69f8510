"""jax.scipy.linalg.lu: cases adapted from tests/linalg_test.py (ScipyLinalgTest.testLu over square, wide, tall and empty shapes, its permute_l variant, vmap batching; testLuOfSingularMatrix; testLuGrad: the gradients of P, L and U, order 2, square, wide, tall and batched shapes, the float and complex dtypes, at atol 5e-2, rtol 3e-1) with SciPy as the reference for the factors' structure; UPSTREAM_TESTS below maps each to the cases here."""
import jax
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default, tolerances, wide

pytestmark = pytest.mark.function("jax.scipy.linalg.lu", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tests/linalg_test.py::ScipyLinalgTest::testLu": [
        "test_lu_shapes_dtypes", "test_lu_permute_l", "test_lu_matches_scipy_pivots", "test_lu_empty", "test_lu_large"],
    "tests/linalg_test.py::ScipyLinalgTest::testLuOfSingularMatrix": ["test_lu_singular"],
    "tests/linalg_test.py::ScipyLinalgTest::testLuBatching": ["test_lu_batched_vmap"],
    "tests/linalg_test.py::ScipyLinalgTest::testLuGrad": ["test_lu_backward"],
}


def _tol(dtype):
    # testLu compares P L U with A at tolerance 1e-4 relative (float32 / complex64).
    return 1e-4


def _check(a, out, permute_l=False):
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    if permute_l:
        pl, u = out
        assert pl.shape == batch + (m, k) and u.shape == batch + (k, n)
        recon = wide(pl) @ wide(u)
    else:
        p, l, u = out
        assert p.shape == batch + (m, m) and l.shape == batch + (m, k) and u.shape == batch + (k, n)
        # P is real (as in SciPy), also for complex inputs.
        assert np.dtype(p.dtype) == np.dtype(np.finfo(a.dtype).dtype)
        ph = wide(p)
        # P is a permutation matrix.
        np.testing.assert_array_equal(np.sort(ph.real, axis=-1)[..., :, -1], np.ones(batch + (m,)))
        np.testing.assert_array_equal(np.abs(ph).sum(axis=-1), np.ones(batch + (m,)))
        lh = wide(l)
        # L is unit lower triangular, with |entries| <= 1 from partial pivoting (LAPACK pivots complex
        # values on |re| + |im|, which bounds |entries| by sqrt(2)).
        np.testing.assert_allclose(np.diagonal(lh, axis1=-2, axis2=-1), 1.0, rtol=0, atol=0)
        np.testing.assert_array_equal(np.triu(lh, 1), 0)
        bound = np.sqrt(2) if np.iscomplexobj(lh) else 1.0
        assert np.all(np.abs(lh) <= bound + 1e-5)
        recon = ph @ lh @ wide(u)
    assert np.dtype(u.dtype) == a.dtype
    np.testing.assert_array_equal(np.tril(wide(u), -1), 0)  # U is upper triangular
    if a.size:
        scale = np.max(np.abs(wide(a)))
        np.testing.assert_allclose(recon, wide(a), rtol=_tol(a.dtype), atol=_tol(a.dtype) * scale)


@pytest.mark.parametrize("shape", [(1, 1), (4, 5), (10, 5), (5, 5), (10, 10)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_lu_shapes_dtypes(bench, device, shape, dtype):
    a = rand_default(np.random.default_rng(0), shape, dtype)
    out = bench(jax.scipy.linalg.lu, jax.device_put(a, device))
    _check(a, out)


@pytest.mark.parametrize("shape", [(4, 5), (5, 4), (6, 6)])
def test_lu_permute_l(bench, device, shape):
    a = rand_default(np.random.default_rng(1), shape, np.float32)
    out = bench(jax.scipy.linalg.lu, jax.device_put(a, device), permute_l=True)
    _check(a, out, permute_l=True)


def test_lu_matches_scipy_pivots(bench, device):
    # With distinct pivot magnitudes the permutation is the same as SciPy's (LAPACK getrf).
    from scipy import linalg  # SciPy is the reference, as upstream (imported lazily)
    a = rand_default(np.random.default_rng(2), (6, 6), np.float32)
    p, l, u = bench(jax.scipy.linalg.lu, jax.device_put(a, device))
    sp, sl, su = linalg.lu(a.astype(np.float64))
    np.testing.assert_array_equal(np.asarray(p), sp)
    np.testing.assert_allclose(np.asarray(l), sl, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(u), su, rtol=1e-4, atol=1e-4 * np.abs(a).max())


@pytest.mark.parametrize("shape", [(2, 3, 3), (3, 4, 2)])
def test_lu_batched_vmap(bench, device, shape):
    # scipy.linalg.lu takes one matrix; batches go through vmap.
    a = rand_default(np.random.default_rng(5), shape, np.float32)
    out = bench(jax.vmap(jax.scipy.linalg.lu), jax.device_put(a, device))
    _check(a, out)


def test_lu_empty(bench, device):
    a = np.zeros((0, 0), np.float32)
    p, l, u = bench(jax.scipy.linalg.lu, jax.device_put(a, device))
    assert p.shape == (0, 0) and l.shape == (0, 0) and u.shape == (0, 0)


def test_lu_singular(bench, device):
    # A rank-deficient matrix still factors; U gets a zero pivot.
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    out = bench(jax.scipy.linalg.lu, jax.device_put(a, device))
    _check(a, out)
    assert np.min(np.abs(np.diagonal(np.asarray(out[2])))) < 1e-5


# testLuGrad: the gradients through P (zero: a permutation is piecewise constant), L and U, to order 2, square, wide,
# tall and (through vmap) batched, in float32 and complex64 (LU has no 16-bit kernels); against the CPU's float64
# gradient within 5e-3 (upstream's finite-difference check allows atol 5e-2), with check_grads in float64 on the CPU.
_GRAD_TOL = tolerances(float32=5e-3, complex64=5e-3)


@pytest.mark.parametrize("shape", [(4, 4), (4, 6), (6, 4), (2, 3, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_lu_backward(backward, device, dtype, shape):
    a = jax.device_put(rand_default(np.random.default_rng(3), shape, dtype), device)
    fn = jax.vmap(jax.scipy.linalg.lu) if len(shape) > 2 else jax.scipy.linalg.lu
    grads = backward(fn, a)
    check_gradients(grads, fn, (a,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


def test_lu_large(bench, device):
    a = rand_default(np.random.default_rng(4), (256, 256), np.float32)
    out = bench(jax.scipy.linalg.lu, jax.device_put(a, device))
    p, l, u = out
    recon = wide(p) @ wide(l) @ wide(u)
    # Backward error of the factorization, scaled by n * eps * ||A|| as a normwise bound.
    err = np.linalg.norm(recon - a) / np.linalg.norm(a)
    assert err < 256 * np.finfo(np.float32).eps * 10, err
