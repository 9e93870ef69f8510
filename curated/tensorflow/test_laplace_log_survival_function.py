"""tf.compat.v1.distributions.Laplace.log_survival_function: cases adapted from tensorflow/python/kernel_tests/distributions/laplace_test.py (LaplaceTest.testLaplaceLogSurvivalFunction, with its assertAllClose tolerances), against the closed form; UPSTREAM_TESTS below maps each to the cases here.

    log S(x) = log(1/2) - (x - loc) / scale               for x >= loc
    log S(x) = log1p(-exp((x - loc) / scale) / 2)         for x <  loc

(upstream uses scipy.stats.laplace.logsf, which is not installed here). The timed call is the unbound
method on a Laplace distribution."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.compat.v1.distributions.Laplace.log_survival_function", decile=30,
                                  top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/distributions/laplace_test.py::"
    "LaplaceTest::testLaplaceLogSurvivalFunction": [
        "test_laplace_log_survival_upstream", "test_laplace_log_survival_broadcast",
        "test_laplace_log_survival_tails", "test_laplace_log_survival_large", "test_laplace_log_survival_backward"],
}


def _np_logsf(x, loc, scale):
    z = (np.asarray(x, np.float64) - loc) / scale
    return np.where(z >= 0, np.log(0.5) - np.maximum(z, 0), np.log1p(-0.5 * np.exp(np.minimum(z, 0))))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_laplace_log_survival_upstream(bench, device, dtype):
    # testLaplaceLogSurvivalFunction: loc 2, scale 3, six points on both sides of the median.
    x = np.array([-2.5, 2.5, -4.0, 0.1, 1.0, 2.0], dtype=dtype.as_numpy_dtype)
    with tf.device(device):
        laplace = tf.compat.v1.distributions.Laplace(loc=tf.constant([2.0] * 6, dtype),
                                                    scale=tf.constant([3.0] * 6, dtype))
        sf = bench(tf.compat.v1.distributions.Laplace.log_survival_function, laplace, x)
    assert sf.dtype == dtype
    assert tuple(sf.shape) == (6,)
    np.testing.assert_allclose(sf.numpy(), _np_logsf(x, 2.0, 3.0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_laplace_log_survival_broadcast(bench, device, dtype):
    # Parameters of shape [3, 1] against x of shape [5]: a [3, 5] result.
    loc = np.array([[0.0], [1.0], [-2.0]])
    scale = np.array([[1.0], [0.5], [4.0]])
    x = np.linspace(-5, 5, 5)
    with tf.device(device):
        laplace = tf.compat.v1.distributions.Laplace(loc=tf.constant(loc, dtype), scale=tf.constant(scale, dtype))
        sf = bench(tf.compat.v1.distributions.Laplace.log_survival_function, laplace, tf.constant(x, dtype))
    assert tuple(sf.shape) == (3, 5)
    np.testing.assert_allclose(sf.numpy(), _np_logsf(x, loc, scale), rtol=1e-6, atol=1e-6)


def test_laplace_log_survival_tails(bench, device):
    # Far tails in float64: log S is linear on the right and tends to 0 on the left.
    x = np.array([-700.0, -50.0, 0.0, 50.0, 700.0])
    with tf.device(device):
        laplace = tf.compat.v1.distributions.Laplace(loc=tf.constant(0.0, tf.float64),
                                                    scale=tf.constant(1.0, tf.float64))
        sf = bench(tf.compat.v1.distributions.Laplace.log_survival_function, laplace, tf.constant(x))
    values = sf.numpy()
    np.testing.assert_allclose(values, _np_logsf(x, 0.0, 1.0), rtol=1e-12, atol=1e-300)
    assert np.all(np.isfinite(values))
    assert np.all(np.diff(values) < 0)


def _laplace_log_sf(x, loc, scale):
    return tf.compat.v1.distributions.Laplace(loc=loc, scale=scale).log_survival_function(x)


# Upstream checks values only; training differentiates log S with respect to x (-1 / scale right of loc), loc and
# scale, on both sides of loc (testLaplaceLogSurvivalFunction's points, none at loc itself).
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_laplace_log_survival_backward(backward, device, dtype):
    with tf.device(device):
        x = tf.constant([-2.5, 2.5, -4.0, 0.1, 1.0, 2.5], dtype)
        loc = tf.constant([2.0, 2.0, 2.0, 2.0, 2.0, 1.5], dtype)
        scale = tf.constant([3.0, 3.0, 3.0, 3.0, 3.0, 0.5], dtype)
        grads = backward(_laplace_log_sf, x, loc, scale)
    check_gradients(grads, _laplace_log_sf, (x, loc, scale))


def test_laplace_log_survival_large(bench, device):
    # 1000 x 1000 evaluations for a batch of 1000 distributions.
    rng = np.random.default_rng(0)
    loc = rng.normal(size=1000)
    scale = rng.uniform(0.5, 2.0, size=1000)
    x = rng.normal(scale=3.0, size=(1000, 1000))
    with tf.device(device):
        laplace = tf.compat.v1.distributions.Laplace(loc=tf.constant(loc), scale=tf.constant(scale))
        sf = bench(tf.compat.v1.distributions.Laplace.log_survival_function, laplace, tf.constant(x))
    np.testing.assert_allclose(sf.numpy(), _np_logsf(x, loc, scale), rtol=1e-10, atol=1e-12)
