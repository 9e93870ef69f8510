"""jax.numpy.linalg.svd: cases adapted from tests/linalg_test.py (NumpyLinalgTest.testSVD, testSVDGrad: the singular values' gradient and, through a function of U and Vh that their signs do not change, the singular vectors'; order 2, float and complex dtypes, under float32 matmul precision); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import rand_default, tolerances

pytestmark = pytest.mark.function("jax.numpy.linalg.svd", decile=50, top20=False)

UPSTREAM_TESTS = {
    "tests/linalg_test.py::NumpyLinalgTest::testSVD": [
        "test_svd_factorization", "test_svd_batched", "test_svd_complex64", "test_svd_singular_values",
        "test_svd_empty", "test_svd_large"],
    "tests/linalg_test.py::NumpyLinalgTest::testSVDGrad": ["test_svd_values_backward", "test_svd_vectors_backward"],
}


def _svd(device, a, full_matrices, compute_uv, bench):
    # Upstream runs these tests under float32 matmul precision (matters on TPU); the context
    # manager is scoped to this call only.
    with jax.default_matmul_precision("float32"):
        return bench(jnp.linalg.svd, jax.device_put(a, device),
                     full_matrices=full_matrices, compute_uv=compute_uv)


def _check_factorization(a, out, full_matrices):
    """testSVD's checks: backward error of U diag(s) Vh and unitarity of U and Vh, with
    tol = 100 * eps, reconstruction within 2 * tol and unitarity within 3 * tol."""
    u, s, vh = (np.asarray(t).astype(np.complex128 if np.iscomplexobj(a) else np.float64) for t in out)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    assert s.shape == batch + (k,)
    assert u.shape == batch + ((m, m) if full_matrices else (m, k))
    assert vh.shape == batch + ((n, n) if full_matrices else (k, n))
    assert np.all(s >= 0) and np.all(np.diff(s, axis=-1) <= 0)  # non-negative, descending

    tol = 100 * np.finfo(a.dtype).eps
    if m and n:
        recon = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
        err = np.linalg.norm(a - recon, axis=(-2, -1)) / np.linalg.norm(a, axis=(-2, -1))
        assert np.max(err) < 2 * tol, f"backward error {np.max(err)}"
    uh_u = np.real(np.conj(np.swapaxes(u, -1, -2)) @ u)
    np.testing.assert_allclose(uh_u, np.broadcast_to(np.eye(u.shape[-1]), uh_u.shape), rtol=3 * tol, atol=3 * tol)
    # Vh has orthonormal rows (and columns too when it is square).
    vh_vhh = np.real(vh @ np.conj(np.swapaxes(vh, -1, -2)))
    np.testing.assert_allclose(vh_vhh, np.broadcast_to(np.eye(vh.shape[-2]), vh_vhh.shape), rtol=3 * tol, atol=3 * tol)


@pytest.mark.parametrize("m,n", [(2, 2), (7, 29), (29, 7), (32, 32), (53, 53)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_factorization(bench, device, m, n, full_matrices):
    a = rand_default(np.random.default_rng(0), (m, n), np.float32)
    out = _svd(device, a, full_matrices, True, bench)
    _check_factorization(a, out, full_matrices)


@pytest.mark.parametrize("batch,m,n", [((3,), 7, 29), ((2, 3), 7, 7)])
def test_svd_batched(bench, device, batch, m, n):
    a = rand_default(np.random.default_rng(1), batch + (m, n), np.float32)
    out = _svd(device, a, False, True, bench)
    _check_factorization(a, out, False)


@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_complex64(bench, device, full_matrices):
    a = rand_default(np.random.default_rng(2), (29, 7), np.complex64)
    out = _svd(device, a, full_matrices, True, bench)
    _check_factorization(a, out, full_matrices)


@pytest.mark.parametrize("shape,dtype", [((53, 53), np.float32), ((3, 7, 29), np.float32), ((7, 29), np.complex64)])
def test_svd_singular_values(bench, device, shape, dtype):
    # compute_uv=False returns only the singular values; upstream compares them with NumPy.
    a = rand_default(np.random.default_rng(3), shape, dtype)
    s = _svd(device, a, False, False, bench)
    assert s.shape == shape[:-2] + (min(shape[-2:]),)
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), atol=1e-4, rtol=3e-4)


@pytest.mark.parametrize("shape", [(0, 2), (2, 0)])
def test_svd_empty(bench, device, shape):
    a = np.zeros(shape, np.float32)
    out = _svd(device, a, True, True, bench)
    assert [tuple(t.shape) for t in out] == [tuple(t.shape) for t in np.linalg.svd(a, full_matrices=True)]


def test_svd_large(bench, device):
    a = rand_default(np.random.default_rng(4), (128, 96), np.float32)
    out = _svd(device, a, False, True, bench)
    _check_factorization(a, out, False)


# testSVDGrad, against the CPU's float64 gradient and, on the CPU, check_grads in float64 to order 2, in float32 and
# complex64 (SVD has no 16-bit kernels), under float32 matmul precision as upstream. Where the singular values are
# distinct, d(sum s)/dA = U Vh; the singular vectors are determined up to a sign (a phase) per pair, which U Vh does
# not see, so the vectors' case differentiates U Vh (upstream normalizes the signs instead). The float32 tolerance is
# the old analytic check's 1e-3 (upstream checks the gradient numerically at rtol 0.035).
_GRAD_TOL = tolerances(float32=1e-3, complex64=1e-3)
_GRAD_SHAPES = [(4, 4), (2, 5), (5, 2), (2, 5, 5)]


def _backward_svd(backward, fn, a, dtype):
    with jax.default_matmul_precision("float32"):
        grads = backward(fn, a)
        check_gradients(grads, fn, (a,), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


@pytest.mark.parametrize("shape", _GRAD_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_svd_values_backward(backward, device, dtype, shape):
    a = jax.device_put(rand_default(np.random.default_rng(5), shape, dtype), device)
    _backward_svd(backward, lambda x: jnp.linalg.svd(x, full_matrices=False, compute_uv=False), a, dtype)


@pytest.mark.parametrize("shape", _GRAD_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_svd_vectors_backward(backward, device, dtype, shape):
    def polar(x):
        u, _, vh = jnp.linalg.svd(x, full_matrices=False)
        return u @ vh

    a = jax.device_put(rand_default(np.random.default_rng(6), shape, dtype), device)
    _backward_svd(backward, polar, a, dtype)
