"""tf.linalg.set_diag: cases adapted from tensorflow/python/kernel_tests/array_ops/diag_op_test.py (MatrixSetDiagTest.testSquare, testRectangular, testSquareBatch, testRectangularBatch, the band (k = (low, high)) cases with each align option, testGrad), against a NumPy reference that writes each diagonal in place."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.linalg.set_diag", decile=20, top20=False)

_ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


def _diag_len(m, n, d):
    return min(m + min(0, d), n - max(0, d))


def _set_diag_ref(x, diag, k=0, align="RIGHT_LEFT"):
    """x [..., M, N]; diag [..., L] for one k, or [..., num_diags, max_len] for k = (low, high),
    rows from the highest diagonal down, padded as `align` says (super- then sub-diagonals)."""
    out = np.array(x, copy=True)
    m, n = x.shape[-2:]
    lo, hi = (k, k) if np.isscalar(k) else k
    diags = diag[..., None, :] if np.isscalar(k) else diag
    max_len = diags.shape[-1]
    for row, d in enumerate(range(hi, lo - 1, -1)):
        length = _diag_len(m, n, d)
        side = align.split("_")[0] if d >= 0 else align.split("_")[1]
        offset = max_len - length if side == "RIGHT" else 0
        for j in range(length):
            out[..., j - min(0, d), j + max(0, d)] = diags[..., row, offset + j]
    return out


def _rand(shape, dtype, seed):
    v = np.random.default_rng(seed).uniform(-5, 5, shape)
    if np.issubdtype(dtype, np.complexfloating):
        v = v + 1j * np.random.default_rng(seed + 100).uniform(-5, 5, shape)
    return v.astype(dtype)


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int32, np.complex64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("x_shape", [(3, 3), (2, 3), (3, 2), (4, 3, 3), (2, 5, 3, 4)], ids=str)
def test_set_diag_main(bench, device, np_dtype, x_shape):
    # testSquare / testRectangular / testSquareBatch / testRectangularBatch: the main diagonal.
    x_np = _rand(x_shape, np_dtype, 0)
    diag_np = _rand(x_shape[:-2] + (min(x_shape[-2:]),), np_dtype, 1)
    with tf.device(device):
        result = bench(tf.linalg.set_diag, tf.constant(x_np), tf.constant(diag_np))
    assert result.dtype.as_numpy_dtype == np_dtype
    np.testing.assert_array_equal(result.numpy(), _set_diag_ref(x_np, diag_np))


@pytest.mark.parametrize("align", _ALIGNS)
@pytest.mark.parametrize("x_shape,k", [((5, 5), (-1, 2)), ((3, 5), (-2, 1)), ((2, 4, 3), (0, 2))],
                         ids=["square_band", "wide_band", "tall_batch_band"])
def test_set_diag_band(bench, device, x_shape, k, align):
    # The band cases: several diagonals at once, padded according to `align`.
    m, n = x_shape[-2:]
    max_len = max(_diag_len(m, n, d) for d in range(k[0], k[1] + 1))
    x_np = _rand(x_shape, np.float32, 2)
    diag_np = _rand(x_shape[:-2] + (k[1] - k[0] + 1, max_len), np.float32, 3)
    with tf.device(device):
        result = bench(tf.linalg.set_diag, tf.constant(x_np), tf.constant(diag_np), k=k, align=align)
    np.testing.assert_array_equal(result.numpy(), _set_diag_ref(x_np, diag_np, k, align))


@pytest.mark.parametrize("k", [1, -2])
def test_set_diag_single_offdiagonal(bench, device, k):
    # A single off-diagonal given as a scalar k.
    x_np = _rand((4, 6), np.float64, 4)
    diag_np = _rand((_diag_len(4, 6, k),), np.float64, 5)
    with tf.device(device):
        result = bench(tf.linalg.set_diag, tf.constant(x_np), tf.constant(diag_np), k=k)
    np.testing.assert_array_equal(result.numpy(), _set_diag_ref(x_np, diag_np, k))


def test_set_diag_gradient(bench, device):
    # testGrad: d/dx is the upstream gradient with the diagonal zeroed; d/ddiag is its diagonal.
    x_np = _rand((2, 3, 4), np.float64, 6)
    diag_np = _rand((2, 3), np.float64, 7)
    g_np = _rand((2, 3, 4), np.float64, 8)
    with tf.device(device):
        x = tf.constant(x_np)
        diag = tf.constant(diag_np)
        with tf.GradientTape() as tape:
            tape.watch([x, diag])
            y = bench(tf.linalg.set_diag, x, diag)
            loss = tf.reduce_sum(y * tf.constant(g_np))
        dx, ddiag = tape.gradient(loss, [x, diag])
    mask = np.zeros((3, 4))
    mask[np.arange(3), np.arange(3)] = 1
    np.testing.assert_allclose(dx.numpy(), g_np * (1 - mask), rtol=1e-12)
    np.testing.assert_allclose(ddiag.numpy(), g_np[:, np.arange(3), np.arange(3)], rtol=1e-12)
    np.testing.assert_array_equal(y.numpy(), _set_diag_ref(x_np, diag_np))


def test_set_diag_large(bench, device):
    # A batch of 16 matrices of 256 x 256.
    x_np = _rand((16, 256, 256), np.float32, 9)
    diag_np = _rand((16, 256), np.float32, 10)
    with tf.device(device):
        result = bench(tf.linalg.set_diag, tf.constant(x_np), tf.constant(diag_np))
    np.testing.assert_array_equal(result.numpy(), _set_diag_ref(x_np, diag_np))
