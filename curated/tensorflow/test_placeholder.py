"""tf.compat.v1.placeholder: cases adapted from tensorflow/python/kernel_tests/array_ops/constant_op_test.py (PlaceholderTest.testDtype, testShape, testUnknownShape, testScalarShape, testPartialShape, testTensorStr); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A placeholder is a graph construct (it raises under eager execution): every case builds a graph, times
the placeholder's creation and then feeds it in a Session."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.placeholder", decile=100, top20=True,
                                  backward=("no inputs: a graph's fed value (Placeholder, no gradient registered); "
                                            "gradients are taken with respect to it, not through it"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testDtype": [
        "test_placeholder_dtype"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testShape": [
        "test_placeholder_shapes", "test_placeholder_large_feed"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testUnknownShape": [
        "test_placeholder_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testScalarShape": [
        "test_placeholder_shapes"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testPartialShape": [
        "test_placeholder_shapes", "test_placeholder_partial_shape_rejects_bad_feed"],
    "tensorflow/python/kernel_tests/array_ops/constant_op_test.py::PlaceholderTest::testTensorStr": [
        "test_placeholder_str"],
}


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.string,
                                   tf.complex64], ids=lambda d: d.name)
def test_placeholder_dtype(bench, device, dtype):
    # testDtype: a fed placeholder passes its value through; an unfed one fails when evaluated.
    rng = np.random.default_rng(0)
    if dtype == tf.string:
        feed = np.array([[b"a", b"bc"], [b"", b"d"]], dtype=object)
    elif dtype == tf.bool:
        feed = rng.integers(0, 2, (2, 2)).astype(bool)
    else:
        feed = (rng.random((2, 2)) * 10).astype(dtype.as_numpy_dtype)
    g = tf.Graph()
    with g.as_default(), tf.device("/device:CPU:0" if dtype == tf.string else device):
        p = bench(tf.compat.v1.placeholder, dtype, shape=(2, 2), name="p")
        p_identity = tf.identity(p)
    assert p.dtype == dtype
    assert p.op.type == "Placeholder"
    assert p.name == "p:0"
    with tf.compat.v1.Session(graph=g) as sess:
        out = sess.run(p_identity, feed_dict={p: feed})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder"):
            sess.run(p_identity)
    assert out.tolist() == feed.tolist()


@pytest.mark.parametrize("shape,feed_shape", [
    ((10, 10), (10, 10)),        # testShape
    (None, (3, 4, 5)),           # testUnknownShape
    ((), ()),                    # testScalarShape
    ((None, 3), (7, 3)),         # testPartialShape
], ids=["known", "unknown", "scalar", "partial"])
def test_placeholder_shapes(bench, device, shape, feed_shape):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        p = bench(tf.compat.v1.placeholder, tf.float32, shape=shape, name="p")
        doubled = p * 2.0
    if shape is None:
        assert p.shape.rank is None
    else:
        assert p.shape.as_list() == list(shape)
    feed = np.random.default_rng(1).random(feed_shape).astype(np.float32)
    with tf.compat.v1.Session(graph=g) as sess:
        out = sess.run(doubled, feed_dict={p: feed})
    np.testing.assert_allclose(out, feed * 2, rtol=1e-6)


def test_placeholder_partial_shape_rejects_bad_feed(bench, device):
    # testPartialShape: a feed whose known dimension differs is refused.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        p = bench(tf.compat.v1.placeholder, tf.float32, shape=[None, 3], name="p")
        y = p + 1.0
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(y, feed_dict={p: np.zeros((2, 2), np.float32)})
        assert sess.run(y, feed_dict={p: np.zeros((2, 3), np.float32)}).shape == (2, 3)


def test_placeholder_str(bench, device):
    # testTensorStr: the string form names the tensor, its shape and dtype.
    g = tf.Graph()
    with g.as_default():
        a = bench(tf.compat.v1.placeholder, tf.float32, shape=None, name="a")
        b = tf.compat.v1.placeholder(tf.int32, shape=(32, 40), name="b")
    assert str(a) == 'Tensor("a:0", dtype=float32)'
    assert str(b) == 'Tensor("b:0", shape=(32, 40), dtype=int32)'


def test_placeholder_large_feed(bench, device):
    # A [1024, 1024] float32 feed through a matmul.
    x_np = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32)
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = bench(tf.compat.v1.placeholder, tf.float32, shape=[None, 1024])
        y = tf.reduce_sum(x, axis=1)
    with tf.compat.v1.Session(graph=g) as sess:
        out = sess.run(y, feed_dict={x: x_np})
    np.testing.assert_allclose(out, x_np.sum(axis=1), rtol=1e-4, atol=1e-3)
