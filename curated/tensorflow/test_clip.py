"""tf.experimental.numpy.clip: cases adapted from tensorflow/python/ops/numpy_ops/np_math_ops_test.py (MathTest.testClip); UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.experimental.numpy.clip", decile=90, top20=False,
                                  paper_label="tf.python.ops.numpy_ops.clip")

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/np_math_ops_test.py::MathTest::testClip": [
        "test_clip_upstream_cases", "test_clip_dtypes", "test_clip_array_bounds", "test_clip_empty",
        "test_clip_large", "test_clip_backward"],
}


def _check(result, a, a_min, a_max):
    # MathTest.match: same shape, values within rtol 1e-6. Like upstream, the dtype
    # is not compared: NumPy's result type for scalar/list bounds is irregular.
    expected = np.clip(a, a_min, a_max)
    assert tuple(result.shape) == expected.shape
    np.testing.assert_allclose(result.numpy().astype(np.float64), expected, rtol=1e-6)


# testClip's run_test calls: scalars, None bounds, lists, floats and broadcast bounds.
_CASES = [
    (0, -1, 5),
    (-1, -1, 5),
    (5, -1, 5),
    (-10, -1, 5),
    (10, -1, 5),
    (10, None, 5),
    (10, -1, None),
    ([0, 20, -5, 4], -1, 5),
    ([0, 20, -5, 4], None, 5),
    ([0, 20, -5, 4], -1, None),
    ([0.5, 20.2, -5.7, 4.4], -1.5, 5.1),
    ([0, 20, -5, 4], [-5, 0, -5, 0], [0, 5, 0, 5]),
    ([[1, 2, 3], [4, 5, 6]], [2, 0, 2], 5),
    ([[1, 2, 3], [4, 5, 6]], 0, [5, 3, 1]),
]


@pytest.mark.parametrize("a,a_min,a_max", _CASES, ids=str)
def test_clip_upstream_cases(bench, device, a, a_min, a_max):
    # The array is a device tensor of its natural type (int32 or float32); the
    # bounds stay Python values, as upstream passes them.
    a_np = np.asarray(a)
    a_np = a_np.astype(np.float32 if a_np.dtype.kind == "f" else np.int32)
    with tf.device(device):
        x = tf.constant(a_np)
        result = bench(tf.experimental.numpy.clip, x, a_min, a_max)
    _check(result, a_np, a_min, a_max)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64],
                         ids=lambda d: d.name)
def test_clip_dtypes(bench, device, dtype):
    # upstream's array_transforms and type list (int32, int64, float32, float64),
    # plus the half types; bounds are tensors of the same type on the device.
    a_np = np.array([[-7, -2, 0], [3, 8, 12]])
    with tf.device(device):
        x = tf.constant(a_np.astype(dtype.as_numpy_dtype))
        lo = tf.constant(-1, dtype=dtype)
        hi = tf.constant(5, dtype=dtype)
        result = bench(tf.experimental.numpy.clip, x, lo, hi)
    assert result.dtype == dtype
    _check(result, a_np, -1, 5)


def test_clip_array_bounds(bench, device):
    # Broadcast tensor bounds: per-column lower and per-row upper limits.
    rng = np.random.default_rng(0)
    a_np = rng.normal(0, 3, (8, 6)).astype(np.float32)
    lo_np = rng.uniform(-2, 0, (6,)).astype(np.float32)
    hi_np = rng.uniform(0, 2, (8, 1)).astype(np.float32)
    with tf.device(device):
        x = tf.constant(a_np)
        lo = tf.constant(lo_np)
        hi = tf.constant(hi_np)
        result = bench(tf.experimental.numpy.clip, x, lo, hi)
    _check(result, a_np, lo_np, hi_np)


def test_clip_empty(bench, device):
    with tf.device(device):
        x = tf.zeros([0, 4], dtype=tf.float32)
        result = bench(tf.experimental.numpy.clip, x, -1.0, 1.0)
    _check(result, np.zeros([0, 4], np.float32), -1.0, 1.0)


def test_clip_large(bench, device):
    # A larger float32 input (4 MiB).
    a_np = np.random.default_rng(1).standard_normal(1 << 20).astype(np.float32)
    with tf.device(device):
        x = tf.constant(a_np)
        result = bench(tf.experimental.numpy.clip, x, -0.5, 0.5)
    _check(result, a_np, -0.5, 0.5)


# Upstream's testClip compares values only; training differentiates clip with respect to the array (the cotangent
# where it lies inside the bounds) and to tensor bounds (the cotangent where they clip, summed over their
# broadcasting). Every value stays well away from a bound, where the derivative jumps.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
def test_clip_backward(backward, device, dtype):
    a_np = np.linspace(-3, 3, 12).reshape(3, 4) + 0.125
    lo_np = np.array([-1.0, -2.0, -0.5, -1.5])
    hi_np = np.array([[1.5], [0.75], [2.25]])
    with tf.device(device):
        a, lo, hi = (tf.constant(v, dtype=dtype) for v in (a_np, lo_np, hi_np))
        grads = backward(tf.experimental.numpy.clip, a, lo, hi)
    assert [tuple(g.shape) for g in grads] == [(3, 4), (4,), (3, 1)]
    check_gradients(grads, tf.experimental.numpy.clip, (a, lo, hi))
