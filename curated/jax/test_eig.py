"""jax.numpy.linalg.eig: cases adapted from tests/linalg_test.py (NumpyLinalgTest.testEig and testEigBatching); UPSTREAM_TESTS below maps each to the cases here. Not differentiable in JAX (the marker's backward= says why): no backward cases.

Upstream checks the right eigenvectors through the residual of A v = v diag(w), scaled by
(n + 1) * eps, against a bound of 100; the eigenvalues are also compared with NumPy's."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import rand_default

pytestmark = pytest.mark.function(
    "jax.numpy.linalg.eig", decile=30, top20=False,
    backward="no derivative in JAX: jnp.linalg.eig computes the eigenvectors, whose derivative JAX raises "
             "NotImplementedError for (only jax.lax.linalg.eig's enable_eigvec_derivs=True opts in)")

UPSTREAM_TESTS = {
    "tests/linalg_test.py::NumpyLinalgTest::testEig": ["test_eig_shapes_dtypes", "test_eig_empty", "test_eig_known_spectra",
                                         "test_eig_large"],
    "tests/linalg_test.py::NumpyLinalgTest::testEigBatching": ["test_eig_batched_vmap"],
    "tests/linalg_test.py::NumpyLinalgTest::testEigHandlesNanInputs": "runs jax.lax.linalg.eig's implementations on NaN input, not "
                                                     "jnp.linalg.eig",
    "tests/linalg_test.py::NumpyLinalgTest::testEigvalsGrad": "differentiates jnp.linalg.eigvals, another function; jnp.linalg.eig "
                                             "has no derivative",
    "tests/linalg_test.py::NumpyLinalgTest::testEigGradComplexInputs": "differentiates jax.lax.linalg.eig with "
                                                      "enable_eigvec_derivs=True, which jnp.linalg.eig does not pass",
    "tests/linalg_test.py::NumpyLinalgTest::testEigGradRealInputs": "differentiates jax.lax.linalg.eig with "
                                                   "enable_eigvec_derivs=True, which jnp.linalg.eig does not pass",
}

_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.complex64): np.dtype(np.complex64)}


def _check(a, w, v):
    """testEig's residual check plus shape/dtype and a comparison with NumPy's eigenvalues."""
    n = a.shape[-1]
    out_dtype = _COMPLEX[np.dtype(a.dtype)]
    assert w.shape == a.shape[:-1] and v.shape == a.shape
    assert np.dtype(w.dtype) == out_dtype and np.dtype(v.dtype) == out_dtype
    a64 = a.astype(np.complex128)
    w64, v64 = np.asarray(w).astype(np.complex128), np.asarray(v).astype(np.complex128)
    eps = np.finfo(a.dtype).eps
    residual = np.linalg.norm(a64 @ v64 - w64[..., None, :] * v64, axis=(-2, -1)) / ((n + 1) * eps)
    assert np.all(residual < 100), f"residual {residual.max()} (in units of (n + 1) * eps)"
    # Eigenvectors come normalized (unit 2-norm columns), as in NumPy/LAPACK.
    np.testing.assert_allclose(np.linalg.norm(v64, axis=-2), 1.0, rtol=1e-4)
    # Same eigenvalues as NumPy, as multisets (sorted by a robust key).
    expected = np.linalg.eigvals(a64)
    key = lambda z: np.sort_complex(np.round(z, 3))  # noqa: E731
    np.testing.assert_allclose(key(w64), key(expected), rtol=1e-3, atol=1e-3 * max(1.0, np.abs(expected).max(initial=0)))


# Upstream's shapes: square matrices of several sizes, including batches.
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (5, 5), (20, 20), (2, 6, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_shapes_dtypes(bench, device, shape, dtype):
    a = rand_default(np.random.default_rng(0), shape, dtype)
    w, v = bench(jnp.linalg.eig, jax.device_put(a, device))
    _check(a, w, v)


def test_eig_empty(bench, device):
    a = np.zeros((0, 0), np.float32)
    w, v = bench(jnp.linalg.eig, jax.device_put(a, device))
    assert w.shape == (0,) and v.shape == (0, 0)
    assert np.dtype(w.dtype) == np.complex64 and np.dtype(v.dtype) == np.complex64


@pytest.mark.parametrize("kind", ["symmetric", "rotation", "triangular"])
def test_eig_known_spectra(bench, device, kind):
    # Matrices with known eigenvalues: real (symmetric), purely imaginary pairs (rotation), the diagonal.
    rng = np.random.default_rng(1)
    if kind == "symmetric":
        b = rand_default(rng, (6, 6), np.float32)
        a = (b + b.T) / 2
    elif kind == "rotation":
        a = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]], np.float32)  # eigenvalues +-2i, 1
    else:
        a = np.triu(rand_default(rng, (5, 5), np.float32)) + np.diag(np.arange(1, 6, dtype=np.float32) * 4)
    w, v = bench(jnp.linalg.eig, jax.device_put(a, device))
    _check(a, w, v)


def test_eig_batched_vmap(bench, device):
    # testEigBatching: vmap over a batch gives the batched result.
    a = rand_default(np.random.default_rng(2), (3, 5, 5), np.float32)
    w, v = bench(jax.vmap(jnp.linalg.eig), jax.device_put(a, device))
    _check(a, w, v)


def test_eig_large(bench, device):
    a = rand_default(np.random.default_rng(3), (50, 50), np.float32)
    w, v = bench(jnp.linalg.eig, jax.device_put(a, device))
    _check(a, w, v)
