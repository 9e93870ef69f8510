"""tf.experimental.numpy.cumprod: cases adapted from tensorflow/python/ops/numpy_ops/np_array_ops_test.py (ArrayMethodsTest.testCumProdAndSum), checked against NumPy's cumprod; UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.experimental.numpy.cumprod", decile=20, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/np_array_ops_test.py::ArrayMethodsTest::testCumProdAndSum": [
        "test_cumprod_upstream_cases", "test_cumprod_dtypes_3d", "test_cumprod_large", "test_cumprod_backward"],
}

tnp = tf.experimental.numpy


def _check(result, expected, dtype=None):
    # As upstream's match: same shape and values (rtol 1e-6). The result dtype is compared only where
    # the call names one: TF-NumPy's default integer and float widths differ from NumPy's.
    assert tuple(result.shape) == expected.shape
    if dtype is not None:
        assert result.dtype == tf.dtypes.as_dtype(dtype)
    else:
        assert result.dtype.is_integer == np.issubdtype(expected.dtype, np.integer)
    np.testing.assert_allclose(np.asarray(result).astype(np.float64), expected.astype(np.float64), rtol=1e-6)


# testCumProdAndSum's run_test calls: (array, dtype, axis).
_CASES = [
    ([], None, None),
    ([1, 2, 3], None, None),
    ([1, 2, 3], float, None),
    ([1, 2, 3], np.float32, None),
    ([1, 2, 3], np.float64, None),
    ([1.0, 2.0, 3.0], None, None),
    ([1.0, 2.0, 3.0], np.int32, None),
    ([1.0, 2.0, 3.0], np.int64, None),
    ([[1, 2], [3, 4]], None, 1),
    ([[1, 2], [3, 4]], None, 0),
    ([[1, 2], [3, 4]], None, -1),
    ([[1, 2], [3, 4]], None, -2),
    ([[1, 2], [3, 4]], None, None),   # no axis: the flattened array
]


def _case_id(arr, dtype, axis):
    shape = "x".join(map(str, np.shape(arr))) or "scalar"
    kind = "float" if any(isinstance(v, float) for v in np.ravel(arr)) else "int"
    return f"{kind}{shape}-{getattr(dtype, '__name__', dtype)}-axis{axis}"


@pytest.mark.parametrize("arr,dtype,axis", _CASES, ids=[_case_id(*c) for c in _CASES])
@pytest.mark.parametrize("kind", ["tensor", "ndarray"])
def test_cumprod_upstream_cases(bench, device, arr, dtype, axis, kind):
    # upstream runs each case on a Python list, a tensor and a NumPy array; the list and the NumPy
    # array reach the same conversion, so a tensor and a NumPy array are timed here.
    expected = np.cumprod(np.array(arr), axis=axis, dtype=dtype)
    with tf.device(device):
        x = tf.convert_to_tensor(np.array(arr)) if kind == "tensor" else np.array(arr)
        result = bench(tnp.cumprod, x, axis=axis, dtype=dtype)
    _check(result, expected, dtype if dtype not in (float,) else np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.complex64],
                         ids=lambda d: d.__name__)
def test_cumprod_dtypes_3d(bench, device, dtype):
    # A [4, 5, 6] block along each axis, values near 1 so products stay finite.
    rng = np.random.default_rng(0)
    if np.issubdtype(dtype, np.integer):
        x_np = rng.integers(-2, 3, (4, 5, 6)).astype(dtype)
    else:
        x_np = rng.uniform(0.5, 1.5, (4, 5, 6)).astype(dtype)
        if np.issubdtype(dtype, np.complexfloating):
            x_np = (x_np + 0.1j * x_np).astype(dtype)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tnp.cumprod, x, axis=1)
    expected = np.cumprod(x_np, axis=1)
    assert result.dtype == tf.dtypes.as_dtype(expected.dtype)  # NumPy's rule: int32 accumulates in int64
    assert tuple(result.shape) == expected.shape
    rtol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(np.asarray(result), expected, rtol=rtol)


def test_cumprod_large(bench, device):
    # 1000 rows of 1000 values near 1, along the last axis.
    x_np = np.random.default_rng(1).uniform(0.999, 1.001, (1000, 1000))
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(tnp.cumprod, x, axis=-1)
    np.testing.assert_allclose(np.asarray(result), np.cumprod(x_np, axis=-1), rtol=1e-9)


def _cumprod_along(axis):
    return lambda x: tnp.cumprod(x, axis=axis)


# Upstream's testCumProdAndSum compares values only; training differentiates cumprod: each input's gradient sums the
# cotangents of the products it enters, divided by itself, so the values stay away from zero. Complex inputs are left
# out: TensorFlow's Cumprod gradient omits the conjugate (compute_gradient's Jacobians disagree for complex128).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [0, 1, None], ids=str)
def test_cumprod_backward(backward, device, dtype, axis):
    x_np = np.random.default_rng(2).uniform(0.5, 1.5, (3, 4))
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        grads = backward(_cumprod_along(axis), x)
    check_gradients(grads, _cumprod_along(axis), (x,))
