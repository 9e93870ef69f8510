"""tf.compat.v1.distributions.Normal.param_shapes: cases adapted from tensorflow/python/kernel_tests/distributions/normal_test.py (NormalTest.testParamShapes via _testParamShapes: a list or a tensor as the sample shape, and the parameters built from the shapes sample that shape), run eagerly; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.distributions.Normal.param_shapes", decile=20, top20=False,
                                  backward=("integer output: the shapes of loc and scale (int32 tensors) for a sample "
                                            "shape, no floating input"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testParamShapes": ["test_param_shapes"],
    "tensorflow/python/kernel_tests/distributions/normal_test.py::NormalTest::testParamStaticShapes": [
        "test_param_shapes_dtype_and_static"],
}

Normal = tf.compat.v1.distributions.Normal


@pytest.mark.parametrize("sample_shape", [[10, 3, 4], [7], [], [1, 1, 1, 5]], ids=str)
@pytest.mark.parametrize("kind", ["list", "tuple", "tensor"])
def test_param_shapes(bench, device, sample_shape, kind):
    # _testParamShapes: loc and scale shapes equal the sample shape; parameters of those shapes
    # give samples of that shape.
    with tf.device(device):
        if kind == "list":
            arg = sample_shape
        elif kind == "tuple":
            arg = tuple(sample_shape)
        else:  # an int32 vector (the documented type; int64 is refused)
            arg = tf.constant(sample_shape, dtype=tf.int32, shape=[len(sample_shape)])
        shapes = bench(Normal.param_shapes, arg)
        mu = tf.zeros(shapes["loc"])
        sigma = tf.ones(shapes["scale"])
        sample = Normal(mu, sigma).sample(seed=1)
    assert set(shapes) == {"loc", "scale"}
    assert shapes["loc"].numpy().tolist() == sample_shape
    assert shapes["scale"].numpy().tolist() == sample_shape
    assert tuple(sample.shape) == tuple(sample_shape)


def test_param_shapes_dtype_and_static(bench, device):
    # A Python list gives int32 shape tensors; param_static_shapes agrees (testParamStaticShapes).
    shapes = bench(tf.compat.v1.distributions.Normal.param_shapes, [2, 3])
    assert shapes["loc"].dtype == tf.int32
    np.testing.assert_array_equal(shapes["loc"].numpy(), [2, 3])
    static = Normal.param_static_shapes([2, 3])  # testParamStaticShapes: the TensorShape version
    assert static["loc"] == tf.TensorShape([2, 3])
