"""tf.linalg.svd: cases adapted from tensorflow/python/kernel_tests/linalg/svd_op_test.py (SvdOpTest.testEmptyBatches and the generated SvdOpTest.test_Svd_<dtype>_<shape>_compute_uv_<..>_full_<..> cases, SvdGradOpTest.test_SvdGrad_<dtype>_<shape>_compute_uv_False)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.linalg.svd", decile=70, top20=False)

_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _tolerance(dtype, device):
    # Upstream: 3e-4 for single precision, 1e-12 for double, and 100x looser on a
    # GPU ("the gpu version returns results that are much less accurate").
    tol = 3e-4 if dtype in (np.float32, np.complex64) else 1e-12
    if "GPU" in device.upper():
        tol *= 100
    return tol


def _matrix(shape, dtype, seed=42):
    """Uniform(-1, 1) entries (plus an imaginary part for complex types), as upstream."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1.0, 1.0, size=shape)
    return x.astype(dtype)


def _wide(a):
    """The input in double precision, for a NumPy reference more exact than the result."""
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def _check_singular_values(s, a, tol):
    s_np = np.linalg.svd(_wide(a), compute_uv=False)
    # CompareSingularValues: tolerance scaled by the largest singular value.
    atol = 2 * s_np.max() * tol if s_np.size else tol
    np.testing.assert_allclose(s, s_np, rtol=0, atol=atol)


def _check_vectors(a, s, u, v, full_matrices, tol):
    """CheckApproximation and CheckUnitary: a == u diag(s) v^H, u and v have orthonormal columns."""
    m, n = a.shape[-2:]
    k = min(m, n)
    recon = (u[..., :, :k] * s[..., None, :]) @ np.conj(np.swapaxes(v[..., :, :k], -1, -2))
    np.testing.assert_allclose(recon, a, rtol=tol, atol=tol)
    assert u.shape[-1] == (m if full_matrices else k)
    assert v.shape[-1] == (n if full_matrices else k)
    for q in (u, v):
        gram = np.conj(np.swapaxes(q, -1, -2)) @ q
        np.testing.assert_allclose(gram, np.broadcast_to(np.eye(q.shape[-1]), gram.shape), atol=tol)


def _check_against_numpy_vectors(a, u, v, tol):
    """CompareSingularVectors: the leading vectors match NumPy's up to a phase per vector."""
    u_np, _, vh_np = np.linalg.svd(_wide(a), full_matrices=False)
    k = min(a.shape[-2:])
    for x, y in ((u_np, u[..., :, :k]), (np.conj(np.swapaxes(vh_np, -1, -2)), v[..., :, :k])):
        inner = np.sum(np.conj(x) * y, axis=-2, keepdims=True)
        phase = inner / np.abs(inner)
        np.testing.assert_allclose(x * phase, y, atol=2 * tol)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(10, 10), (32, 5), (5, 32), (3, 2, 5, 5)], ids=str)
def test_svd_compute_uv(bench, device, dtype, shape):
    # compute_uv=True, full_matrices=False over square, tall, wide and batched shapes.
    a = _matrix(shape, dtype)
    tol = _tolerance(dtype, device)
    with tf.device(device):
        x = tf.constant(a)
        s, u, v = bench(tf.linalg.svd, x, full_matrices=False, compute_uv=True)
    s, u, v = s.numpy(), u.numpy(), v.numpy()
    _check_singular_values(s, a, tol)
    _check_against_numpy_vectors(a, u, v, tol)
    _check_vectors(a, s, u, v, False, tol)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(10, 5), (5, 10), (3, 2, 2, 3)], ids=str)
def test_svd_full_matrices(bench, device, dtype, shape):
    # full_matrices=True: u is m x m and v is n x n, both unitary.
    a = _matrix(shape, dtype)
    tol = _tolerance(dtype, device)
    with tf.device(device):
        x = tf.constant(a)
        s, u, v = bench(tf.linalg.svd, x, full_matrices=True, compute_uv=True)
    s, u, v = s.numpy(), u.numpy(), v.numpy()
    _check_singular_values(s, a, tol)
    _check_vectors(a, s, u, v, True, tol)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(1, 1), (2, 5), (3, 32, 10), (100, 100)], ids=str)
def test_svd_values_only(bench, device, dtype, shape):
    # compute_uv=False returns the singular values alone, in descending order.
    a = _matrix(shape, dtype)
    tol = _tolerance(dtype, device)
    with tf.device(device):
        x = tf.constant(a)
        s = bench(tf.linalg.svd, x, compute_uv=False)
    s = s.numpy()
    assert s.shape == shape[:-2] + (min(shape[-2:]),)
    assert np.all(np.diff(s, axis=-1) <= 0)
    _check_singular_values(s, a, tol)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 2, 2)], ids=str)
def test_svd_empty(bench, device, shape):
    # testEmptyBatches and the rows/cols == 0 cases: well-shaped empty results.
    with tf.device(device):
        x = tf.ones(shape, dtype=tf.float32)
        s, u, v = bench(tf.linalg.svd, x)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    assert s.shape == batch + (k,)
    assert u.shape == batch + (m, k)
    assert v.shape == batch + (n, k)
    np.testing.assert_array_equal(s.numpy(), np.zeros(batch + (k,), np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(10, 11), (11, 10), (3, 5, 11)], ids=str)
def test_svd_gradient(bench, device, dtype, shape):
    # SvdGradOpTest, compute_uv=False: d sum(s) / d a = u v^H for distinct singular values.
    a = _matrix(shape, dtype)
    tol = 3e-2 if dtype == np.float32 else 1e-6  # upstream's gradient tolerances
    with tf.device(device):
        x = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = bench(tf.linalg.svd, x, compute_uv=False)
            total = tf.reduce_sum(s)
        grad = tape.gradient(total, x)
    u_np, _, vh_np = np.linalg.svd(_wide(a), full_matrices=False)
    np.testing.assert_allclose(grad.numpy(), u_np @ vh_np, rtol=tol, atol=tol)
    _check_singular_values(s.numpy(), a, _tolerance(dtype, device))
