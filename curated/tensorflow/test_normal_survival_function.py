"""tf.compat.v1.distributions.Normal.survival_function: cases adapted from tensorflow/python/kernel_tests/distributions/normal_test.py (NormalTest.testNormalSurvivalFunction: 50 float64 parameter pairs, x in [-8, 8], assertAllClose with atol=0; testFiniteGradientAtDifficultPoints for survival_function), against S(x) = erfc((x - loc) / (scale sqrt 2)) / 2 (upstream uses scipy.stats.norm.sf). The timed call is the unbound method on a Normal; UPSTREAM_TESTS below maps each to the cases here."""
import math

import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.compat.v1.distributions.Normal.survival_function", decile=30,
                                  top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalSurvivalFunction": [
        "test_normal_survival_upstream", "test_normal_survival_broadcast", "test_normal_survival_large",
        "test_normal_survival_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testFiniteGradientAtDifficultPoints": ["test_normal_survival_backward"],
}

Normal = tf.compat.v1.distributions.Normal
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _np_sf(x, mu, sigma):
    return 0.5 * _erfc((np.asarray(x, np.float64) - mu) / (sigma * np.sqrt(2.0)))


def test_normal_survival_upstream(bench, device):
    # testNormalSurvivalFunction.
    rng = np.random.RandomState(123)
    mu = rng.randn(50)
    sigma = rng.rand(50) + 1.0
    x = np.linspace(-8.0, 8.0, 50)
    with tf.device(device):
        normal = Normal(loc=tf.constant(mu), scale=tf.constant(sigma))
        sf = bench(Normal.survival_function, normal, x)
    assert sf.dtype == tf.float64
    assert tuple(sf.shape) == (50,)
    np.testing.assert_allclose(sf.numpy(), _np_sf(x, mu, sigma), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_normal_survival_broadcast(bench, device, dtype):
    # A [3] batch of distributions against x of shape [4, 1]: a [4, 3] result.
    mu = np.array([0.0, 1.0, -2.0])
    sigma = np.array([1.0, 0.5, 3.0])
    x = np.array([[-3.0], [0.0], [1.5], [4.0]])
    with tf.device(device):
        normal = Normal(loc=tf.constant(mu, dtype), scale=tf.constant(sigma, dtype))
        sf = bench(Normal.survival_function, normal, tf.constant(x, dtype))
    assert tuple(sf.shape) == (4, 3)
    tol = 1e-6 if dtype == tf.float32 else 1e-12
    np.testing.assert_allclose(sf.numpy(), _np_sf(x, mu, sigma), rtol=tol, atol=tol)


def _normal_sf(x, loc, scale):
    return Normal(loc=loc, scale=scale).survival_function(x)


# testFiniteGradientAtDifficultPoints: with loc 0 and scale 1 the gradients stay finite far in the tails; beside it,
# 50 random parameter pairs as in testNormalSurvivalFunction. The gradients with respect to x, loc and scale.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("points", ["difficult", "random"])
def test_normal_survival_backward(backward, device, dtype, points):
    if points == "difficult":
        x_np = np.array([-100.0, -20.0, -5.0, 0.0, 5.0, 20.0, 100.0])
        mu_np, sigma_np = np.zeros(7), np.ones(7)
    else:
        rng = np.random.RandomState(123)
        mu_np, sigma_np = rng.randn(50), rng.rand(50) + 1.0
        x_np = np.linspace(-8.0, 8.0, 50)
    with tf.device(device):
        x, mu, sigma = (tf.constant(v, dtype) for v in (x_np, mu_np, sigma_np))
        grads = backward(_normal_sf, x, mu, sigma)
    assert all(np.all(np.isfinite(g.numpy())) for g in grads)
    check_gradients(grads, _normal_sf, (x, mu, sigma))


def test_normal_survival_large(bench, device):
    # 1000 distributions evaluated at 1000 points each.
    rng = np.random.default_rng(0)
    mu = rng.normal(size=1000)
    sigma = rng.uniform(0.5, 2.0, size=1000)
    x = rng.normal(scale=3.0, size=(1000, 1000))
    with tf.device(device):
        normal = Normal(loc=tf.constant(mu), scale=tf.constant(sigma))
        sf = bench(Normal.survival_function, normal, tf.constant(x))
    np.testing.assert_allclose(sf.numpy(), _np_sf(x, mu, sigma), rtol=1e-10, atol=1e-15)
