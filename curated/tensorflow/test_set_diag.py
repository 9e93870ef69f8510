"""tf.linalg.set_diag: cases adapted from tensorflow/python/kernel_tests/array_ops/diag_op_test.py (MatrixSetDiagTest.testSquare, testRectangular, testSquareBatch, testRectangularBatch, the band (k = (low, high)) cases with each align option, testGrad), against a NumPy reference that writes each diagonal in place; UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.linalg.set_diag", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testSquare": [
        "test_set_diag_main", "test_set_diag_band"],
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testRectangular": [
        "test_set_diag_main", "test_set_diag_band", "test_set_diag_single_offdiagonal"],
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testSquareBatch": [
        "test_set_diag_main", "test_set_diag_large"],
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testRectangularBatch": [
        "test_set_diag_main", "test_set_diag_band"],
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testInvalidShape":
        "tests the errors for inputs of too low a rank",
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testInvalidShapeAtEval":
        "tests the errors for mismatched shapes fed to graph placeholders",
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testGrad": [
        "test_set_diag_backward"],
    "tensorflow/python/kernel_tests/array_ops/diag_op_test.py::MatrixSetDiagTest::testGradWithNoShapeInformation":
        "graph-mode placeholders without a static shape: an eager tensor always has one, and the gradient values are "
        "test_set_diag_backward's",
}

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


def _set_diag_with(k, align):
    return lambda x, diag: tf.linalg.set_diag(x, diag, k=k, align=align)


# testGrad: the gradients with respect to the input (the cotangent with the diagonals zeroed) and to the diagonals
# (the cotangent's diagonals), on square, wide and tall batches, the main diagonal and the band (-1, 1).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
@pytest.mark.parametrize("x_shape,k,align", [((3, 4, 4), 0, "RIGHT_LEFT"), ((3, 3, 4), (-1, 1), "LEFT_RIGHT"),
                                             ((3, 4, 3), (-1, 1), "RIGHT_RIGHT")],
                         ids=["square", "wide_band", "tall_band"])
def test_set_diag_backward(backward, device, dtype, x_shape, k, align):
    band = () if np.isscalar(k) else (k[1] - k[0] + 1,)
    diag_shape = x_shape[:-2] + band + (min(x_shape[-2:]),)
    np_dtype = np.complex64 if dtype.is_complex else np.float64
    with tf.device(device):
        x = tf.constant(_rand(x_shape, np_dtype, 6), dtype=dtype)
        diag = tf.constant(_rand(diag_shape, np_dtype, 7), dtype=dtype)
        grads = backward(_set_diag_with(k, align), x, diag)
    check_gradients(grads, _set_diag_with(k, align), (x, diag))


def test_set_diag_large(bench, device):
    # A batch of 16 matrices of 256 x 256.
    x_np = _rand((16, 256, 256), np.float32, 9)
    diag_np = _rand((16, 256), np.float32, 10)
    with tf.device(device):
        result = bench(tf.linalg.set_diag, tf.constant(x_np), tf.constant(diag_np))
    np.testing.assert_array_equal(result.numpy(), _set_diag_ref(x_np, diag_np))
