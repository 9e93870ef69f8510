"""tf.math.igammac: cases adapted from tensorflow/compiler/tests/special_math_test.py (IgammacTest.testLargeXSmallA, testSmallValues, testMediumValues, testLargeValues, with their tolerances) and the closed forms Q(1, x) = exp(-x), Q(1/2, x) = erfc(sqrt(x)); UPSTREAM_TESTS below maps each to the cases here.

Upstream compares with scipy.special.gammaincc; scipy is not installed here, so the reference is the
regularized upper incomplete gamma function evaluated in float64 by its power series (x < a + 1) or its
continued fraction (Lentz's method), the standard pair of expansions."""
import math

import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.math.igammac", decile=10, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/compiler/tests/special_math_test.py::IgammacTest::testLargeXSmallA": ["test_igammac_ranges"],
    "tensorflow/compiler/tests/special_math_test.py::IgammacTest::testSmallValues": [
        "test_igammac_ranges", "test_igammac_closed_forms"],
    "tensorflow/compiler/tests/special_math_test.py::IgammacTest::testMediumValues": [
        "test_igammac_ranges", "test_igammac_broadcast_and_edges", "test_igammac_backward"],
    "tensorflow/compiler/tests/special_math_test.py::IgammacTest::testLargeValues": ["test_igammac_ranges"],
}

_NUM_SAMPLES = 1000


def _q_scalar(a, x):
    """Q(a, x) = Gamma(a, x) / Gamma(a) in float64."""
    if x <= 0:
        return 1.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        # P(a, x) = e^{-x} x^a / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
        term = total = 1.0 / a
        ap = a
        for _ in range(100000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return 1.0 - total * math.exp(log_prefactor)
    # Continued fraction for Gamma(a, x) e^{x} x^{-a}.
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_prefactor) * h


_q = np.vectorize(_q_scalar, otypes=[np.float64])

# (name, a range, x range, {dtype: (rtol, atol)}) from IgammacTest.
_RANGES = {
    "large_x_small_a": ((0.3, 1.0), (100.0, 200.0), {np.float32: (1e-2, 1e-11), np.float64: (1e-4, 1e-30)}),
    "small_values": ((None, 1.0), (None, 1.0), {np.float32: (1e-2, 1e-11), np.float64: (1e-4, 1e-30)}),
    "medium_values": ((1.0, 100.0), (1.0, 100.0), {np.float32: (1e-2, 1e-11), np.float64: (1e-4, 1e-30)}),
    "large_values": ((100.0, 1e4), (100.0, 1e4), {np.float32: (2e-2, 1e-5), np.float64: (1e-4, 1e-30)}),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", list(_RANGES))
def test_igammac_ranges(bench, device, name, dtype):
    (a_lo, a_hi), (x_lo, x_hi), tols = _RANGES[name]
    rtol, atol = tols[dtype]
    rng = np.random.RandomState(0)
    tiny = np.finfo(dtype).tiny
    a_np = rng.uniform(a_lo if a_lo is not None else tiny, a_hi, _NUM_SAMPLES).astype(dtype)
    x_np = rng.uniform(x_lo if x_lo is not None else tiny, x_hi, _NUM_SAMPLES).astype(dtype)
    with tf.device(device):
        a = tf.constant(a_np)
        x = tf.constant(x_np)
        result = bench(tf.math.igammac, a, x)
    assert result.dtype.as_numpy_dtype == dtype
    assert tuple(result.shape) == (_NUM_SAMPLES,)
    expected = _q(a_np.astype(np.float64), x_np.astype(np.float64))
    np.testing.assert_allclose(result.numpy().astype(np.float64), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("a_value", [1.0, 0.5], ids=["a_1_exp", "a_half_erfc"])
def test_igammac_closed_forms(bench, device, dtype, a_value):
    # Q(1, x) = exp(-x) and Q(1/2, x) = erfc(sqrt(x)), over x in [0, 20] broadcast against a scalar a.
    x_np = np.linspace(0.0, 20.0, 201).astype(dtype)
    with tf.device(device):
        a = tf.constant(a_value, dtype=dtype)
        x = tf.constant(x_np)
        result = bench(tf.math.igammac, a, x)
    xs = x_np.astype(np.float64)
    expected = np.exp(-xs) if a_value == 1.0 else np.array([math.erfc(math.sqrt(v)) for v in xs])
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(result.numpy().astype(np.float64), expected, rtol=rtol, atol=1e-30)


def test_igammac_broadcast_and_edges(bench, device):
    # a [3, 1] against x [1, 4]: Q is 1 at x = 0 and decreases in x for each a.
    a_np = np.array([[0.5], [2.0], [10.0]])
    x_np = np.array([[0.0, 1.0, 5.0, 50.0]])
    with tf.device(device):
        result = bench(tf.math.igammac, tf.constant(a_np), tf.constant(x_np))
    values = result.numpy()
    assert values.shape == (3, 4)
    np.testing.assert_array_equal(values[:, 0], [1.0, 1.0, 1.0])
    assert np.all(np.diff(values, axis=1) <= 0)
    np.testing.assert_allclose(values, _q(np.broadcast_to(a_np, (3, 4)), np.broadcast_to(x_np, (3, 4))),
                               rtol=1e-10, atol=1e-30)


# IgammacTest compares values only; training differentiates Q(a, x) with respect to x (-x^(a-1) e^-x / Gamma(a)) and
# to a (TensorFlow's IgammaGradA, negated), over testMediumValues' kind of range, kept small so that the float32
# gradient keeps its precision.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_igammac_backward(backward, device, dtype):
    rng = np.random.default_rng(4)
    with tf.device(device):
        a = tf.constant(rng.uniform(0.5, 5.0, (3, 4)), dtype=dtype)
        x = tf.constant(rng.uniform(0.5, 5.0, (3, 4)), dtype=dtype)
        grads = backward(tf.math.igammac, a, x)
    check_gradients(grads, tf.math.igammac, (a, x))
