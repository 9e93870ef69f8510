"""tf.Tensor.get_shape: cases adapted from the shape checks of tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py (ConstantTest.testExplicitShapeNumPy, testImplicitShapeNumPy, testExplicitShapeList, testImplicitShapeList, testExplicitShapeNumber, testImplicitShapeNumber) and tensorflow/python/kernel_tests/random/random_gamma_test.py (RandomGammaTest.testShape: fully, partially and not known graph shapes); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is the unbound method on a tensor; it returns the static TensorShape."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.Tensor.get_shape", decile=100, top20=True,
                                  backward="returns a TensorShape (Python metadata), not a tensor: no op runs")

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeNumPy": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testImplicitShapeNumPy": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeList": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testImplicitShapeList": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testExplicitShapeNumber": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_eager_test.py::ConstantTest::testImplicitShapeNumber": [
        "test_get_shape_eager", "test_get_shape_of_constants"],
    "tensorflow/python/kernel_tests/random/random_gamma_test.py::RandomGammaTest::testShape": [
        "test_get_shape_graph_placeholders", "test_get_shape_after_ops"],
}


@pytest.mark.parametrize("shape", [[], [1], [7], [2, 3, 5], [0, 4], [1, 1, 1, 1, 1, 1], [1024, 1024]], ids=str)
@pytest.mark.parametrize("dtype", [tf.float32, tf.int64, tf.bool, tf.string], ids=lambda d: d.name)
def test_get_shape_eager(bench, device, shape, dtype):
    # testExplicitShape* / testImplicitShape*: an eager tensor's shape is fully known.
    with tf.device("/device:CPU:0" if dtype == tf.string else device):
        t = tf.zeros(shape, dtype=dtype) if dtype != tf.string else tf.fill(shape, "x")
    result = bench(tf.Tensor.get_shape, t)
    assert isinstance(result, tf.TensorShape)
    assert result.is_fully_defined()
    assert result.as_list() == shape
    assert result == t.shape
    assert result.rank == len(shape)
    assert result.num_elements() == int(np.prod(shape))


@pytest.mark.parametrize("value,expected", [
    (np.arange(-15, 15).reshape([2, 3, 5]).astype(np.float32), [2, 3, 5]),
    ([1, 2, 3, 4, 5, 6, 7], [7]),
    (1, []),
], ids=["numpy", "list", "number"])
def test_get_shape_of_constants(bench, device, value, expected):
    with tf.device(device):
        c = tf.constant(value)
    result = bench(tf.Tensor.get_shape, c)
    assert result.as_list() == expected


@pytest.mark.parametrize("placeholder_shape,expected", [
    ((2,), [2]),
    ((None, 4), [None, 4]),
    ((None, None, 3), [None, None, 3]),
    (None, None),
], ids=["known", "batch_unknown", "two_unknown", "rank_unknown"])
def test_get_shape_graph_placeholders(bench, device, placeholder_shape, expected):
    # testShape: in a graph the static shape may be partially known or unknown.
    with tf.Graph().as_default(), tf.device(device):
        p = tf.compat.v1.placeholder(tf.float32, shape=placeholder_shape)
        result = bench(tf.Tensor.get_shape, p)
    if expected is None:
        assert result.rank is None
        assert result == tf.TensorShape(None)
    else:
        assert result.as_list() == expected
        assert result.is_fully_defined() == (None not in expected)


def test_get_shape_after_ops(bench, device):
    # Shape inference through ops: random_gamma's [20, 30] + alpha [1, 2, 3], and a partially known matmul.
    with tf.Graph().as_default(), tf.device(device):
        g = tf.random.gamma([20, 30], tf.ones([1, 2, 3]))
        x = tf.compat.v1.placeholder(tf.float32, shape=(None, 8))
        y = tf.matmul(x, tf.ones([8, 5]))
        result = bench(tf.Tensor.get_shape, g)
        partial = y.get_shape()
    assert result.as_list() == [20, 30, 1, 2, 3]
    assert partial.as_list() == [None, 5]


def test_get_shape_set_shape(bench, device):
    # set_shape refines what get_shape reports for a graph tensor.
    with tf.Graph().as_default(), tf.device(device):
        p = tf.compat.v1.placeholder(tf.float32, shape=(None, None))
        p.set_shape([3, None])
        result = bench(tf.Tensor.get_shape, p)
    assert result.as_list() == [3, None]
