"""tf.linalg.svd: cases adapted from tensorflow/python/kernel_tests/linalg/svd_op_test.py (SvdOpTest.testEmptyBatches and the generated SvdOpTest.test_Svd_<dtype>_<shape>_compute_uv_<..>_full_<..> cases, SvdGradOpTest.test_SvdGrad_<dtype>_<shape>_compute_uv_<..>_full_False, SvdGradGradOpTest); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.linalg.svd", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/linalg/svd_op_test.py::SvdOpTest::testEmptyBatches": ["test_svd_empty"],
    "tensorflow/python/kernel_tests/linalg/svd_op_test.py::SvdOpTest::test_Svd": [
        "test_svd_compute_uv", "test_svd_full_matrices", "test_svd_values_only", "test_svd_empty"],
    "tensorflow/python/kernel_tests/linalg/svd_op_test.py::SvdGradOpTest::test_SvdGrad": [
        "test_svd_values_backward", "test_svd_vectors_backward"],
    "tensorflow/python/kernel_tests/linalg/svd_op_test.py::SvdGradGradOpTest::test_SvdGradGrad":
        "second derivatives: the study's TensorFlow check compares first derivatives only",
}

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


# SvdGradOpTest's tolerances against finite differences: 3e-2 in single precision, 1e-6 in double (here they also
# bound the gradient against the CPU's float64 one), with its step 0.1 eps^(1/3): the default step is too coarse for
# the curvature of the singular values.
_GRAD_TOL = {np.float32: 3e-2, np.complex64: 3e-2, np.float64: 1e-6, np.complex128: 1e-6}
_DELTA = 0.1 * np.finfo(np.float64).eps ** (1.0 / 3.0)


def _singular_values(a):
    return tf.linalg.svd(a, compute_uv=False)


def _svd_fixed_signs(a):
    """s, u and v flattened into one vector (the finite-difference check takes one output), with each pair of
    singular vectors turned so that the first row of u (of v for a wide matrix) is non-negative: the vectors are
    unique only up to sign, and a gradient through them is defined only for a function that does not depend on it."""
    s, u, v = tf.linalg.svd(a, full_matrices=False, compute_uv=True)
    lead = u if a.shape[-2] >= a.shape[-1] else v
    sign = tf.sign(lead[..., 0:1, :])
    return tf.concat([tf.reshape(s, [-1]), tf.reshape(u * sign, [-1]), tf.reshape(v * sign, [-1])], 0)


# SvdGradOpTest, compute_uv=False: the gradient of the singular values (u v^H contracted with the cotangent), real
# and complex, square, tall, wide and batched.
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(10, 11), (11, 10), (3, 5, 5)], ids=str)
def test_svd_values_backward(backward, device, dtype, shape):
    with tf.device(device):
        x = tf.constant(_matrix(shape, dtype, seed=7))
        grads = backward(_singular_values, x)
    check_gradients(grads, _singular_values, (x,), tol=_GRAD_TOL[dtype], jacobian_tol=1e-6, delta=_DELTA)


# SvdGradOpTest, compute_uv=True (real types, as upstream): the gradient through s, u and v at once, with the
# vectors' signs fixed as upstream fixes them.
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(6, 5), (5, 6), (3, 4, 4)], ids=str)
def test_svd_vectors_backward(backward, device, dtype, shape):
    with tf.device(device):
        x = tf.constant(_matrix(shape, dtype, seed=8))
        grads = backward(_svd_fixed_signs, x)
    check_gradients(grads, _svd_fixed_signs, (x,), tol=_GRAD_TOL[dtype], jacobian_tol=1e-6, delta=_DELTA)
