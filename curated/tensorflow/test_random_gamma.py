"""tf.random.gamma: cases adapted from tensorflow/python/kernel_tests/random/random_gamma_test.py (RandomGammaTest.testMomentsFloat32, testMomentsFloat64, testShape, testPositive, testSeed, testNoCSE, testNpDtypes, testEmptySamplingNoError); UPSTREAM_TESTS below maps each to the cases here. No backward cases: the marker's backward= says why.

Upstream's moment test compares sample moments with scipy.stats; scipy is not installed here, so the
mean and variance are checked with z-scores from the closed-form gamma moments, under upstream's z limit
of 6."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.random.gamma", decile=30, top20=False,
                                  backward="random samples: TensorFlow differentiates them with respect to alpha "
                                           "(implicit reparameterization), but neither check applies: the CPU's "
                                           "float64 reference draws other samples, and finite differences cannot "
                                           "follow a sampler")

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testMomentsFloat32": [
        "test_random_gamma_moments", "test_random_gamma_batch_of_alphas"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testMomentsFloat64": [
        "test_random_gamma_moments", "test_random_gamma_batch_of_alphas"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testShape": [
        "test_random_gamma_shapes"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testPositive": [
        "test_random_gamma_positive"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testSeed": [
        "test_random_gamma_seed"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testNoCSE": [
        "test_random_gamma_seed"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testNpDtypes": [
        "test_random_gamma_shapes"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testEmptySamplingNoError": [
        "test_random_gamma_shapes"],
}

_Z_LIMIT = 6.0


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.0])
@pytest.mark.parametrize("scale", [9, 17])
def test_random_gamma_moments(bench, device, dtype, alpha, scale):
    # _testMoments: 20000 samples of Gamma(alpha, rate = 1 / scale).
    n = 20000
    with tf.device(device):
        samples = bench(tf.random.gamma, [n], alpha, beta=1.0 / scale, dtype=dtype, seed=12345)
    assert samples.dtype == dtype
    assert tuple(samples.shape) == (n,)
    x = samples.numpy().astype(np.float64)
    mean, var = alpha * scale, alpha * scale ** 2
    z_mean = abs(x.mean() - mean) / np.sqrt(var / n)
    # Var(sample variance) ~ sigma^4 (2 + excess kurtosis) / n, with excess kurtosis 6 / alpha.
    z_var = abs(x.var() - var) / (var * np.sqrt((2 + 6 / alpha) / n))
    assert z_mean < _Z_LIMIT, z_mean
    assert z_var < _Z_LIMIT, z_var


@pytest.mark.parametrize("shape,alpha,beta,expected", [
    ([150], 2.0, None, [150]),
    ([150], 2.0, [3.0, 4.0], [150, 2]),
    ([150], np.ones([1, 2, 3], np.float32), None, [150, 1, 2, 3]),
    ([20, 30], np.ones([1, 2, 3], np.float32), None, [20, 30, 1, 2, 3]),
    ([5], np.ones([2, 1, 3]), np.ones([3]), [5, 2, 1, 3]),        # testNpDtypes
    ([5], np.ones([2, 0, 3]), np.ones([3]), [5, 2, 0, 3]),        # testEmptySamplingNoError
], ids=["scalar_alpha", "beta_vector", "alpha_tensor", "2d_shape", "np_dtypes", "empty"])
def test_random_gamma_shapes(bench, device, shape, alpha, beta, expected):
    # testShape: the output shape is shape + broadcast(alpha, beta).shape.
    with tf.device(device):
        result = bench(tf.random.gamma, shape, alpha, beta=beta, dtype=tf.float32, seed=7)
    assert result.shape.as_list() == expected
    values = result.numpy()
    assert values.shape == tuple(expected)
    assert np.all(values > 0)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
def test_random_gamma_positive(bench, device, dtype):
    # testPositive: even with alpha = 0.001 no sample is zero or negative.
    with tf.device(device):
        x = bench(tf.random.gamma, [10000], 0.001, dtype=dtype, seed=1)
    assert x.dtype == dtype
    assert int(np.sum(x.numpy() <= 0)) == 0


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
def test_random_gamma_seed(bench, device, dtype):
    # testSeed: the same global and op seeds give the same samples; testNoCSE: the next call differs.
    with tf.device(device):
        tf.random.set_seed(345)
        first = bench(tf.random.gamma, [1000], 2.0, dtype=dtype, seed=345)
        tf.random.set_seed(345)
        again = tf.random.gamma([1000], 2.0, dtype=dtype, seed=345)
        following = tf.random.gamma([1000], 2.0, dtype=dtype, seed=345)
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert np.linalg.norm((following.numpy() - again.numpy()).astype(np.float64)) > 0.1


def test_random_gamma_batch_of_alphas(bench, device):
    # A [64, 64] grid of shapes and rates, 64 samples each: per-cell means near alpha / beta.
    rng = np.random.default_rng(0)
    alpha = rng.uniform(1.0, 5.0, (64, 64))
    beta = rng.uniform(0.5, 2.0, (64, 64))
    with tf.device(device):
        a = tf.constant(alpha)
        b = tf.constant(beta)
        x = bench(tf.random.gamma, [64], a, beta=b, dtype=tf.float64, seed=3)
    assert x.shape.as_list() == [64, 64, 64]
    # Mean over all cells of the standardised sample means is ~N(0, 1/4096).
    z = (x.numpy().mean(axis=0) - alpha / beta) / (np.sqrt(alpha) / beta / np.sqrt(64))
    assert abs(z.mean()) * np.sqrt(z.size) < _Z_LIMIT
