"""tf.signal.idct: cases adapted from tensorflow/python/kernel_tests/signal/dct_ops_test.py (DCTOpsTest.test_random via _compare: the inverse of each DCT type, with and without "ortho", float32 and float64, and the inverse(forward(x)) == x round trip; test_with_dynamic_dimensions; test_idct_n_truncation, test_idct_n_padding); UPSTREAM_TESTS below maps each to the cases here.

The reference builds each DCT type's matrix in float64 with SciPy's scaling (the idct of type t is the dct
of the inverse type: I<->I, II<->III, IV<->IV); tolerances are upstream's 5e-4 (float32) and 1e-7."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.signal.idct", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_random": [
        "test_idct_random", "test_idct_large_batch", "test_idct_backward"],
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_with_dynamic_dimensions": [
        "test_idct_dynamic_shape"],
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_error":
        "tests the errors for an unknown type, n or normalization",
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_idct_n_argument_supported": [
        "test_idct_n"],
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::"
    "DCTOpsTest::test_idct_docstring_does_not_claim_n_must_be_none": "checks idct's docstring text, no computation",
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_idct_n_truncation": ["test_idct_n"],
    "tensorflow/python/kernel_tests/signal/dct_ops_test.py::DCTOpsTest::test_idct_n_padding": ["test_idct_n"],
}


_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}


def _dct_matrix(dct_type, n, norm):
    """C with dct(x) = x @ C.T along the last axis, SciPy's conventions."""
    k = np.arange(n)[:, None].astype(np.float64)
    j = np.arange(n)[None, :].astype(np.float64)
    if dct_type == 1:
        c = 2 * np.cos(np.pi * k * j / (n - 1))
        c[:, 0] = 1.0
        c[:, -1] = (-1.0) ** np.arange(n)
    elif dct_type == 2:
        c = np.cos(np.pi * (j + 0.5) * k / n)
        c = c * (np.where(k == 0, np.sqrt(1.0 / n), np.sqrt(2.0 / n)) if norm == "ortho" else 2.0)
    elif dct_type == 3:
        c = np.cos(np.pi * j * (k + 0.5) / n)
        if norm == "ortho":
            c = c * np.where(j == 0, np.sqrt(1.0 / n), np.sqrt(2.0 / n))
        else:
            c = c * np.where(j == 0, 1.0, 2.0)
    else:
        c = np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4.0 * n))
        c = c * (np.sqrt(2.0 / n) if norm == "ortho" else 2.0)
    return c


def _np_idct(x, dct_type, norm):
    return x.astype(np.float64) @ _dct_matrix(_INVERSE_TYPE[dct_type], x.shape[-1], norm).T


_CONFIGS = [(t, norm) for t in (1, 2, 3, 4) for norm in (None, "ortho") if not (t == 1 and norm == "ortho")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [[3], [10], [2, 3, 25]], ids=str)
@pytest.mark.parametrize("dct_type,norm", _CONFIGS, ids=[f"type{t}-{n or 'none'}" for t, n in _CONFIGS])
def test_idct_random(bench, device, dct_type, norm, shape, dtype):
    signals = np.random.RandomState(0).rand(*shape).astype(dtype)
    tol = 5e-4 if dtype == np.float32 else 1e-7
    with tf.device(device):
        x = tf.constant(signals)
        result = bench(tf.signal.idct, x, type=dct_type, norm=norm)
        # inverse(forward(x)) == x, up to 1 / (2 (N - 1)) for type I and 1 / (2N) otherwise without ortho.
        round_trip = tf.signal.idct(tf.signal.dct(x, type=dct_type, norm=norm), type=dct_type, norm=norm)
    assert result.dtype.as_numpy_dtype == dtype
    assert tuple(result.shape) == tuple(shape)
    np.testing.assert_allclose(result.numpy(), _np_idct(signals, dct_type, norm), rtol=tol, atol=tol)
    if norm is None:
        scale = 0.5 / (shape[-1] - 1) if dct_type == 1 else 0.5 / shape[-1]
    else:
        scale = 1.0
    np.testing.assert_allclose(round_trip.numpy() * scale, signals, rtol=tol, atol=tol)


@pytest.mark.parametrize("dct_type", [2, 3])
def test_idct_dynamic_shape(bench, device, dct_type):
    # test_with_dynamic_dimensions: inside a tf.function traced with unknown dimensions.
    signals = np.random.RandomState(1).rand(2, 20).astype(np.float32)
    fn = tf.function(lambda s: tf.signal.idct(s, type=dct_type))
    concrete = fn.get_concrete_function(tf.TensorSpec([None, None], tf.float32))
    with tf.device(device):
        x = tf.constant(signals)
        traced = concrete(x)
        result = bench(tf.signal.idct, x, type=dct_type)
    np.testing.assert_allclose(traced.numpy(), result.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(result.numpy(), _np_idct(signals, dct_type, None), rtol=5e-4, atol=5e-4)


@pytest.mark.parametrize("length,n", [(20, 8), (10, 20)], ids=["truncate", "zero_pad"])
@pytest.mark.parametrize("dct_type,norm", _CONFIGS, ids=[f"type{t}-{n or 'none'}" for t, n in _CONFIGS])
def test_idct_n(bench, device, dct_type, norm, length, n):
    # test_idct_n_truncation / test_idct_n_padding: n below the signal's length takes its first n values, n above
    # pads it with zeros, before the transform of length n.
    signals = np.linspace(0.0, 1.0, length, endpoint=False)
    with tf.device(device):
        x = tf.constant(signals)
        result = bench(tf.signal.idct, x, type=dct_type, n=n, norm=norm)
    fitted = signals[:n] if n < length else np.pad(signals, (0, n - length))
    assert tuple(result.shape) == (n,)
    np.testing.assert_allclose(result.numpy(), _np_idct(fitted, dct_type, norm), rtol=1e-7, atol=1e-7)


def test_idct_large_batch(bench, device):
    # 256 frames of 512 coefficients, orthonormal DCT-II inverse (the spectrogram / MFCC use).
    signals = np.random.RandomState(2).rand(256, 512).astype(np.float32)
    with tf.device(device):
        x = tf.constant(signals)
        result = bench(tf.signal.idct, x, type=2, norm="ortho")
    np.testing.assert_allclose(result.numpy(), _np_idct(signals, 2, "ortho"), rtol=5e-4, atol=5e-4)


def _idct_of(dct_type, norm):
    return lambda x: tf.signal.idct(x, type=dct_type, norm=norm)


# Upstream's tests compare values only; training differentiates the inverse DCT (a linear map, so its gradient is
# the transposed map applied to the cotangent), each type with and without "ortho", batched.
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("dct_type,norm", _CONFIGS, ids=[f"type{t}-{n or 'none'}" for t, n in _CONFIGS])
def test_idct_backward(backward, device, dct_type, norm, dtype):
    signals = np.random.RandomState(3).rand(2, 10).astype(dtype)
    with tf.device(device):
        x = tf.constant(signals)
        grads = backward(_idct_of(dct_type, norm), x)
    check_gradients(grads, _idct_of(dct_type, norm), (x,), tol=5e-4 if dtype == np.float32 else None)
