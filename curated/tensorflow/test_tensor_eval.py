"""tf.Tensor.eval: cases adapted from tensorflow/python/client/session_test.py (SessionTest.testTensorGetMethod, testOperationRunMethod, testDefaultGraphWithThreads through its _testDefaultGraphInThread, testExtendWithGroupBy); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Tensor.eval runs a graph tensor in the default Session (or the one given); every case builds a graph,
makes a Session the default and times the unbound method on one of its tensors."""
import numpy as np
import pytest
import tensorflow as tf


pytestmark = pytest.mark.function("tf.Tensor.eval", decile=100, top20=True,
                                  backward=("returns a NumPy value computed in a Session, not a tensor a GradientTape "
                                            "can watch"))

UPSTREAM_TESTS = {
    "tensorflow/python/client/session_test.py::SessionTest::testTensorGetMethod": [
        "test_tensor_eval_matmul", "test_tensor_eval_feed_dict", "test_tensor_eval_placeholder",
        "test_tensor_eval_explicit_session", "test_tensor_eval_strings"],
    "tensorflow/python/client/session_test.py::SessionTest::testOperationRunMethod": ["test_tensor_eval_variables"],
    "tensorflow/python/client/session_test.py::SessionTest::testDefaultGraphWithThreads": [
        "test_tensor_eval_variables"],
    "tensorflow/python/client/session_test.py::SessionTest::testExtendWithGroupBy": ["test_tensor_eval_variables"],
}


def _session(graph):
    return tf.compat.v1.Session(graph=graph)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.complex64], ids=lambda d: d.name)
def test_tensor_eval_matmul(bench, device, dtype):
    # testTensorGetMethod: [1, 2] x [2, 3] of ones and twos.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        a = tf.constant(1, shape=[1, 2], dtype=dtype)
        b = tf.constant(2, shape=[2, 3], dtype=dtype)
        c = tf.matmul(a, b)
    with graph.as_default(), _session(graph).as_default():
        value = bench(tf.Tensor.eval, c)
    assert isinstance(value, np.ndarray)
    assert value.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(value, np.full((1, 3), 4, dtype.as_numpy_dtype))


@pytest.mark.parametrize("feed_by", ["name", "tensor"])
def test_tensor_eval_feed_dict(bench, device, feed_by):
    # testTensorGetMethod: feeding a (by name or by tensor) overrides the constant.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        a = tf.constant(1.0, shape=[1, 2])
        b = tf.constant(2.0, shape=[2, 3])
        c = tf.matmul(a, b)
    feed = {a.name if feed_by == "name" else a: [[4.0, 4.0]]}
    with graph.as_default(), _session(graph).as_default():
        value = bench(tf.Tensor.eval, c, feed_dict=feed)
        unfed = c.eval()
    np.testing.assert_array_equal(value, [[16.0, 16.0, 16.0]])
    np.testing.assert_array_equal(unfed, [[4.0, 4.0, 4.0]])


def test_tensor_eval_placeholder(bench, device):
    # A placeholder-fed computation on a larger batch.
    x_np = np.random.default_rng(0).standard_normal((256, 128)).astype(np.float32)
    w_np = np.random.default_rng(1).standard_normal((128, 64)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 128])
        y = tf.nn.relu(tf.matmul(x, tf.constant(w_np)))
    with graph.as_default(), _session(graph).as_default():
        value = bench(tf.Tensor.eval, y, feed_dict={x: x_np})
    np.testing.assert_allclose(value, np.maximum(x_np @ w_np, 0), rtol=1e-4, atol=1e-4)


def test_tensor_eval_explicit_session(bench, device):
    # session= picks the Session without making it the default.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        c = tf.range(10) * 3
    sess = _session(graph)
    value = bench(tf.Tensor.eval, c, session=sess)
    sess.close()
    np.testing.assert_array_equal(value, np.arange(10) * 3)


def test_tensor_eval_variables(bench, device):
    # testOperationRunMethod / _testDefaultGraphInThread: a variable's value before and after an assign.
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        a = tf.constant(1.0, shape=[1, 2])
        d = tf.constant(3.0, shape=[2, 3])
        v = tf.compat.v1.Variable(tf.matmul(a, tf.constant(2.0, shape=[2, 3])), name="var")
        read = v.read_value() if hasattr(v, "read_value") else tf.identity(v)
        assign = tf.compat.v1.assign(v, tf.matmul(a, d))
    with graph.as_default(), _session(graph).as_default() as sess:
        sess.run(v.initializer)
        before = bench(tf.Tensor.eval, read)
        sess.run(assign)
        after = read.eval()
    np.testing.assert_array_equal(before, [[4.0, 4.0, 4.0]])
    np.testing.assert_array_equal(after, [[6.0, 6.0, 6.0]])


def test_tensor_eval_strings(bench, device):
    # Non-numeric results come back as NumPy bytes arrays (string ops run on the host, so no device).
    graph = tf.Graph()
    with graph.as_default():
        s = tf.strings.join([tf.constant(["a", "b"]), tf.constant(["x", "y"])])
    with graph.as_default(), _session(graph).as_default():
        value = bench(tf.Tensor.eval, s)
    assert value.tolist() == [b"ax", b"by"]
