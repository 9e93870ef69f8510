"""tf.math.reduce_logsumexp: cases adapted from tensorflow/python/ops/math_ops_test.py (LogSumExpTest.testReduceLogSumExp, testReductionIndices, testReductionIndices2, testKeepDims, testOverflow, testUnderflow, testInfinity)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.math.reduce_logsumexp", decile=60, top20=False)

_DTYPES = [tf.float16, tf.float32, tf.float64]


def _tol(dtype):
    # assertAllClose's 1e-6, widened to the half tolerance (1e-3) for float16.
    return 1e-3 if dtype == tf.float16 else 1e-6


def _np_logsumexp(x, axis=None, keepdims=False):
    """Stable reference in float64: max + log(sum(exp(x - max)))."""
    x = np.asarray(x, dtype=np.float64)
    if isinstance(axis, list):
        axis = tuple(axis)
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _run(bench, device, x_np, dtype, **kwargs):
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        result = bench(tf.math.reduce_logsumexp, x, **kwargs)
    # Reference from the input as the device holds it (rounded to float16).
    expected = _np_logsumexp(x.numpy(), **kwargs)
    assert result.dtype == dtype
    assert tuple(result.shape) == np.shape(expected)
    np.testing.assert_allclose(result.numpy().astype(np.float64), expected,
                               rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [None, [0], 0, 1, -1], ids=str)
def test_reduce_logsumexp_axes(bench, device, dtype, axis):
    # testReduceLogSumExp (axis None), testReductionIndices ([0]), testReductionIndices2 (0):
    # rand(5, 5) inputs.
    x_np = np.random.default_rng(0).random((5, 5))
    _run(bench, device, x_np, dtype, axis=axis)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [None, 1], ids=str)
def test_reduce_logsumexp_keepdims(bench, device, dtype, axis):
    # testKeepDims: the reduced axes stay as size-1 dimensions.
    x_np = np.random.default_rng(1).random((5, 5))
    _run(bench, device, x_np, dtype, axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("values", [[1000, 1001, 1002, 1003], [-1000, -1001, -1002, -1003]],
                         ids=["overflow", "underflow"])
def test_reduce_logsumexp_extreme(bench, device, dtype, values):
    # testOverflow / testUnderflow: a naive log(sum(exp(x))) gives inf / -inf here;
    # the op must subtract the maximum first.
    _run(bench, device, np.array(values, dtype=np.float64), dtype)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_reduce_logsumexp_infinity(bench, device, dtype):
    # testInfinity: logsumexp(-inf) is -inf, not nan from -inf - (-inf).
    with tf.device(device):
        x = tf.constant(-np.inf, dtype=dtype)
        result = bench(tf.math.reduce_logsumexp, x)
    assert result.numpy() == -np.inf


def test_reduce_logsumexp_large(bench, device):
    # A larger float32 batch (2 MiB): logsumexp over the last axis of 512 x 1024.
    x_np = np.random.default_rng(2).standard_normal((512, 1024)).astype(np.float32)
    _run(bench, device, x_np, tf.float32, axis=-1)
