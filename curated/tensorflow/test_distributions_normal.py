"""tf.compat.v1.distributions.Normal: cases adapted from tensorflow/python/kernel_tests/distributions/normal_test.py (NormalTest.testNormalLogPDF, testNormalLogPDFMultidimensional, testNormalCDF, testNormalSurvivalFunction, testNormalEntropy, testNormalEntropyWithScalarInputs, testNormalMeanAndMode, testNormalVariance, testNormalStandardDeviation, testNormalSample, testNormalSampleMultiDimensional, testNormalShape, testNormalNormalKL); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the constructor; each case then checks the distribution it built against NumPy
(scipy.stats in upstream) with upstream's assertAllClose tolerances."""
import math

import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.compat.v1.distributions.Normal", decile=90, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalLogPDF": [
        "test_normal_log_prob", "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testNormalLogPDFMultidimensional": ["test_normal_log_prob"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalCDF": [
        "test_normal_cdf_and_survival", "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalSurvivalFunction": [
        "test_normal_cdf_and_survival", "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalLogCDF": [
        "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalLogSurvivalFunction": [
        "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testFiniteGradientAtDifficultPoints": ["test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalQuantile": [
        "test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testQuantileFiniteGradientAtDifficultPointsFloat32": ["test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testQuantileFiniteGradientAtDifficultPointsFloat64": ["test_normal_backward"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalEntropy": [
        "test_normal_entropy"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testNormalEntropyWithScalarInputs": ["test_normal_entropy"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalMeanAndMode": [
        "test_normal_moments"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalVariance": [
        "test_normal_moments"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalStandardDeviation": [
        "test_normal_moments"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalSample": [
        "test_normal_sample"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::"
    "NormalTest::testNormalSampleMultiDimensional": ["test_normal_sample"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalFullyReparameterized":
        "gradients of random samples: the CPU's float64 reference draws other samples, so nothing to compare them "
        "with",
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalShape": [
        "test_normal_moments", "test_normal_log_prob"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalShapeWithPlaceholders":
        "graph placeholders of unknown shape: shape inference only, no kernel runs",
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalNormalKL": [
        "test_normal_kl_divergence"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNegativeSigmaFails":
        "tests the error validate_args raises for a negative scale",
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testParamShapes":
        "Normal.param_shapes, a sampled function of its own (test_normal_param_shapes.py)",
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testParamStaticShapes":
        "Normal.param_static_shapes: shape arithmetic in Python, no kernel runs",
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testNormalWithSoftplusScale":
        "NormalWithSoftplusScale, another class",
}

_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _np_log_pdf(x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)


def _np_cdf(x, mu, sigma):
    return 0.5 * _erfc(-(x - mu) / (sigma * np.sqrt(2.0)))


def _np_sf(x, mu, sigma):
    return 0.5 * _erfc((x - mu) / (sigma * np.sqrt(2.0)))


def _check_params(dist, mu, sigma, dtype):
    assert dist.dtype == dtype
    np.testing.assert_array_equal(dist.loc.numpy(), np.asarray(mu, dtype.as_numpy_dtype))
    np.testing.assert_array_equal(dist.scale.numpy(), np.asarray(sigma, dtype.as_numpy_dtype))
    assert tuple(dist.batch_shape) == np.broadcast(np.asarray(mu), np.asarray(sigma)).shape
    assert tuple(dist.event_shape) == ()


@pytest.mark.parametrize("shape", ["1d", "2d"])
def test_normal_log_prob(bench, device, shape):
    # testNormalLogPDF / testNormalLogPDFMultidimensional: float32 parameters, x broadcast against them.
    x_np = np.array([-2.5, 2.5, 4.0, 0.0, -1.0, 2.0], dtype=np.float32)
    if shape == "1d":
        mu_np = np.full(6, 3.0, np.float32)
        sigma_np = np.full(6, math.sqrt(10.0), np.float32)
    else:
        mu_np = np.tile(np.array([[3.0, -3.0]], np.float32), (6, 1))
        sigma_np = np.tile(np.array([[math.sqrt(10.0), math.sqrt(15.0)]], np.float32), (6, 1))
        x_np = x_np[:, None]
    with tf.device(device):
        mu, sigma = tf.constant(mu_np), tf.constant(sigma_np)
        dist = bench(tf.compat.v1.distributions.Normal, loc=mu, scale=sigma)
        log_pdf = dist.log_prob(x_np)
        pdf = dist.prob(x_np)
    _check_params(dist, mu_np, sigma_np, tf.float32)
    expected = _np_log_pdf(x_np.astype(np.float64), mu_np.astype(np.float64), sigma_np.astype(np.float64))
    assert tuple(log_pdf.shape) == mu_np.shape
    np.testing.assert_allclose(log_pdf.numpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(pdf.numpy(), np.exp(expected), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("method", ["cdf", "survival_function"])
def test_normal_cdf_and_survival(bench, device, method):
    # testNormalCDF / testNormalSurvivalFunction: 50 float64 parameter pairs, x in [-8, 8], atol=0.
    rng = np.random.RandomState(123)
    mu_np = rng.randn(50)
    sigma_np = rng.rand(50) + 1.0
    x_np = np.linspace(-8.0, 8.0, 50)
    with tf.device(device):
        mu, sigma = tf.constant(mu_np), tf.constant(sigma_np)
        dist = bench(tf.compat.v1.distributions.Normal, loc=mu, scale=sigma)
        result = getattr(dist, method)(x_np)
    _check_params(dist, mu_np, sigma_np, tf.float64)
    expected = (_np_cdf if method == "cdf" else _np_sf)(x_np, mu_np, sigma_np)
    assert result.dtype == tf.float64
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6, atol=0)


@pytest.mark.parametrize("mu,sigma", [(2.34, 4.56), ([1.0, 1.0, 1.0], [[1.0], [2.0], [3.0]])],
                         ids=["scalar", "broadcast"])
def test_normal_entropy(bench, device, mu, sigma):
    # testNormalEntropyWithScalarInputs / testNormalEntropy: 0.5 log(2 pi e sigma^2), broadcast.
    mu_np, sigma_np = np.asarray(mu, np.float64), np.asarray(sigma, np.float64)
    with tf.device(device):
        loc, scale = tf.constant(mu_np), tf.constant(sigma_np)
        dist = bench(tf.compat.v1.distributions.Normal, loc=loc, scale=scale)
        entropy = dist.entropy()
    _check_params(dist, mu_np, sigma_np, tf.float64)
    sigma_b = np.broadcast_to(sigma_np, np.broadcast(mu_np, sigma_np).shape)
    np.testing.assert_allclose(entropy.numpy(), 0.5 * np.log(2 * np.pi * np.e * sigma_b ** 2), rtol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
def test_normal_moments(bench, device, dtype):
    # testNormalMeanAndMode / testNormalVariance / testNormalStandardDeviation: [7.] broadcast against
    # three scales and the other way round.
    with tf.device(device):
        loc = tf.constant([7.0], dtype=dtype)
        scale = tf.constant([11.0, 12.0, 13.0], dtype=dtype)
        dist = bench(tf.compat.v1.distributions.Normal, loc=loc, scale=scale)
        mean, mode, stddev, variance = dist.mean(), dist.mode(), dist.stddev(), dist.variance()
    assert dist.dtype == dtype
    assert tuple(dist.batch_shape) == (3,)
    for t in (mean, mode, stddev, variance):
        assert t.dtype == dtype
        assert tuple(t.shape) == (3,)
    np.testing.assert_array_equal(mean.numpy(), np.full(3, 7.0, dtype.as_numpy_dtype))
    np.testing.assert_array_equal(mode.numpy(), np.full(3, 7.0, dtype.as_numpy_dtype))
    np.testing.assert_array_equal(stddev.numpy(), np.array([11.0, 12.0, 13.0], dtype.as_numpy_dtype))
    rtol = 1e-3 if dtype == tf.float16 else 1e-6
    np.testing.assert_allclose(variance.numpy().astype(np.float64), [121.0, 144.0, 169.0], rtol=rtol)


def test_normal_sample(bench, device):
    # testNormalSample: sample shape [n] + batch shape, and sample moments near the parameters.
    mu_np = np.array([3.0, -3.0])
    sigma_np = np.array([math.sqrt(3.0), 1.0])
    n = 100_000
    with tf.device(device):
        mu, sigma = tf.constant(mu_np), tf.constant(sigma_np)
        dist = bench(tf.compat.v1.distributions.Normal, loc=mu, scale=sigma)
        samples = dist.sample(n, seed=137)
    _check_params(dist, mu_np, sigma_np, tf.float64)
    values = samples.numpy()
    assert values.shape == (n, 2)
    # Upstream's tolerances: 0.1 on the mean and the standard deviation.
    np.testing.assert_allclose(values.mean(axis=0), mu_np, atol=1e-1)
    np.testing.assert_allclose(values.std(axis=0), sigma_np, atol=1e-1)


def test_normal_kl_divergence(bench, device):
    # testNormalNormalKL: KL(a || b) for two batches of normals, closed form.
    mu_a, sigma_a = np.full(6, 3.0), np.array([1.0, 2.0, 3.0, 1.5, 2.5, 3.5])
    mu_b, sigma_b = np.full(6, -3.0), np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    with tf.device(device):
        a = tf.compat.v1.distributions.Normal(loc=tf.constant(mu_a), scale=tf.constant(sigma_a))
        b = bench(tf.compat.v1.distributions.Normal, loc=tf.constant(mu_b), scale=tf.constant(sigma_b))
        kl = tf.compat.v1.distributions.kl_divergence(a, b)
    _check_params(b, mu_b, sigma_b, tf.float64)
    expected = (np.log(sigma_b / sigma_a) + (sigma_a ** 2 + (mu_a - mu_b) ** 2) / (2 * sigma_b ** 2) - 0.5)
    assert tuple(kl.shape) == (6,)
    np.testing.assert_allclose(kl.numpy(), expected, rtol=1e-6, atol=1e-6)


def _normal_method(method):
    return lambda x, loc, scale: getattr(tf.compat.v1.distributions.Normal(loc=loc, scale=scale), method)(x)


# testFiniteGradientAtDifficultPoints: a Normal built from loc and scale, then each of its methods, differentiated
# with respect to the point, loc and scale at points far in the tails (upstream asserts the gradients finite; here
# they are also compared with the CPU's float64 gradient). The quantile's (testQuantileFiniteGradientAtDifficultPoints)
# at probabilities inside (0, 1): at 0 and 1 the quantile is infinite.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("method", ["cdf", "log_cdf", "survival_function", "log_survival_function", "log_prob",
                                    "prob", "quantile"])
def test_normal_backward(backward, device, dtype, method):
    if method == "quantile":
        x_np = np.array([np.exp(-2.0), 0.3, 0.5, 1.0 - np.exp(-2.0)])
    else:
        x_np = np.array([-100.0, -20.0, -5.0, 0.0, 5.0, 20.0, 100.0])
    with tf.device(device):
        x = tf.constant(x_np, dtype)
        loc = tf.constant(np.zeros_like(x_np), dtype)
        scale = tf.constant(np.ones_like(x_np), dtype)
        grads = backward(_normal_method(method), x, loc, scale)
    assert all(np.all(np.isfinite(g.numpy())) for g in grads)
    # assertAllClose's float32 tolerance, loosened to upstream's rtol 1e-5 for log_cdf and log_survival_function.
    check_gradients(grads, _normal_method(method), (x, loc, scale), tol=1e-5 if dtype == tf.float32 else None)
