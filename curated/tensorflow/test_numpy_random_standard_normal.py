"""tf.experimental.numpy.random.standard_normal: cases adapted from tensorflow/python/ops/numpy_ops/np_random_test.py (StandardNormalTest.test through RandomTestBase._test: size None, (), (1,), (1, 2), with the shape and the float64 dtype compared to NumPy's), plus reproducibility under tnp.random.seed and moment checks of the samples; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Moments are checked with z-scores at a limit of 6 (as in random_gamma_test's moment test)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.experimental.numpy.random.standard_normal", decile=30, top20=False,
                                  backward=("random sampling from a size alone: no floating input, and TensorFlow "
                                            "registers RandomStandardNormal NotDifferentiable"))

UPSTREAM_TESTS = {
    "tensorflow/python/ops/numpy_ops/np_random_test.py::StandardNormalTest::test": [
        "test_standard_normal_sizes", "test_standard_normal_moments", "test_standard_normal_seed"],
}

tnp = tf.experimental.numpy


@pytest.mark.parametrize("size,shape", [(None, ()), ((), ()), (1, (1,)), ((1,), (1,)), ((2, 3), (2, 3)),
                                        ((4, 0), (4, 0))],
                         ids=["none", "empty_tuple", "int", "tuple1", "2x3", "empty"])
def test_standard_normal_sizes(bench, device, size, shape):
    # The size forms of the random tests; the result is float64 (TF-NumPy's default float).
    with tf.device(device):
        result = bench(tnp.random.standard_normal, size)
    assert tuple(result.shape) == shape
    assert result.dtype == tf.float64
    assert np.all(np.isfinite(np.asarray(result)))


@pytest.mark.parametrize("n", [10_000, 1_000_000])
def test_standard_normal_moments(bench, device, n):
    # Mean 0 and variance 1 within 6 standard errors.
    with tf.device(device):
        result = bench(tnp.random.standard_normal, (n,))
    x = np.asarray(result)
    assert abs(x.mean()) / np.sqrt(1.0 / n) < 6
    assert abs(x.var() - 1.0) / np.sqrt(2.0 / n) < 6


def test_standard_normal_seed(bench, device):
    # tnp.random.seed makes the next draw reproducible; the draw after it differs.
    with tf.device(device):
        tnp.random.seed(1234)
        first = np.asarray(bench(tnp.random.standard_normal, (5, 5)))
        tnp.random.seed(1234)
        again = np.asarray(tnp.random.standard_normal((5, 5)))
        following = np.asarray(tnp.random.standard_normal((5, 5)))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(again, following)
