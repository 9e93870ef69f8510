"""tf.math.reduce_logsumexp: cases adapted from tensorflow/python/ops/math_ops_test.py (LogSumExpTest.testReduceLogSumExp, testReductionIndices, testReductionIndices2, testKeepDims, testOverflow, testUnderflow, testInfinity); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.math.reduce_logsumexp", decile=60, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testReduceLogSumExp": [
        "test_reduce_logsumexp_axes", "test_reduce_logsumexp_large", "test_reduce_logsumexp_backward"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testReductionIndices": ["test_reduce_logsumexp_axes"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testReductionIndices2": ["test_reduce_logsumexp_axes"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testKeepDims": ["test_reduce_logsumexp_keepdims"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testOverflow": ["test_reduce_logsumexp_extreme"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testUnderflow": ["test_reduce_logsumexp_extreme"],
    "tensorflow/python/ops/math_ops_test.py::LogSumExpTest::testInfinity": ["test_reduce_logsumexp_infinity"],
}

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


def _logsumexp_over(axis, keepdims):
    return lambda x: tf.math.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


# Upstream's tests compare values only; training differentiates logsumexp: its gradient is the softmax of the input
# along the reduced axes times the cotangent, which must stay finite where exp overflows (testOverflow's values).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("values,axis,keepdims", [
    ("rand", None, False), ("rand", 1, False), ("rand", [0], True), ("overflow", -1, False)],
    ids=["all", "axis1", "axis0_keepdims", "overflow"])
def test_reduce_logsumexp_backward(backward, device, dtype, values, axis, keepdims):
    if values == "rand":
        x_np = np.random.default_rng(3).random((5, 5))
    else:
        x_np = np.array([[1000.0, 1001.0, 1002.0, 1003.0], [-1000.0, -1001.0, -1002.0, -1003.0]])
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(_logsumexp_over(axis, keepdims), x)
    assert np.all(np.isfinite(tf.cast(grads[0], tf.float32).numpy()))
    check_gradients(grads, _logsumexp_over(axis, keepdims), (x,))
