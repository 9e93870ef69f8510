"""tf.compat.v1.Session.run: cases adapted from tensorflow/python/client/session_test.py (SessionTest.testFetchTensorObject, testFetchScalar, testFetchOperationObject, testFetchSparseTensor, testFetchList, testFetchTuple, testFetchNamedTuple, testFetchDict, testFetchNestingEmptyOneLevel, testFeedAndFetch, testPerStepTrace's options and run_metadata); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is the unbound method on a Session over a graph built in the case."""
import collections

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.Session.run", decile=100, top20=True,
                                  backward=("returns NumPy values fetched from a graph, not tensors a GradientTape "
                                            "can watch"))

UPSTREAM_TESTS = {
    "tensorflow/python/client/session_test.py::SessionTest::testFetchTensorObject": [
        "test_run_fetch_tensor", "test_run_large_fetch"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchScalar": ["test_run_fetch_scalar"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchOperationObject": [
        "test_run_fetch_structures", "test_run_variables_and_updates"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchSparseTensor": ["test_run_fetch_sparse_tensor"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchList": ["test_run_fetch_structures"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchTuple": ["test_run_fetch_structures"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchNamedTuple": ["test_run_fetch_structures"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchDict": ["test_run_fetch_structures"],
    "tensorflow/python/client/session_test.py::SessionTest::testFetchNestingEmptyOneLevel": [
        "test_run_fetch_structures"],
    "tensorflow/python/client/session_test.py::SessionTest::testFeedAndFetch": ["test_run_feed_and_fetch"],
    "tensorflow/python/client/session_test.py::SessionTest::testPerStepTrace": ["test_run_options_and_metadata"],
}

_ABC = collections.namedtuple("ABC", ["a", "b", "c"])


@pytest.fixture
def graph_session(device):
    g = tf.Graph()
    sess = tf.compat.v1.Session(graph=g)
    yield g, sess
    sess.close()


def test_run_fetch_tensor(bench, device, graph_session):
    # testFetchTensorObject: a [2, 3] matmul of constants.
    g, sess = graph_session
    with g.as_default(), tf.device(device):
        a = tf.constant(1.0, shape=[1, 3])
        b = tf.constant(2.0, shape=[3, 2])
        c = tf.matmul(a, b)
    result = bench(tf.compat.v1.Session.run, sess, c)
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, [[6.0, 6.0]])


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.complex64,
                                   tf.string], ids=lambda d: d.name)
def test_run_fetch_scalar(bench, device, graph_session, dtype):
    # testFetchScalar: scalars come back as NumPy scalars of the matching type.
    g, sess = graph_session
    value = b"x" if dtype == tf.string else (True if dtype == tf.bool else 3)
    with g.as_default(), tf.device("/device:CPU:0" if dtype == tf.string else device):
        t = tf.identity(tf.constant(value, dtype=dtype))
    result = bench(tf.compat.v1.Session.run, sess, t)
    if dtype == tf.string:
        assert result == b"x"
    else:
        assert np.asarray(result).dtype == dtype.as_numpy_dtype
        assert result == value


def test_run_fetch_structures(bench, device, graph_session):
    # testFetchList / testFetchTuple / testFetchNamedTuple / testFetchDict / testFetchNestingEmptyOneLevel.
    g, sess = graph_session
    with g.as_default(), tf.device(device):
        a = tf.constant(10)
        b = tf.constant(20.0)
        c = tf.constant([1, 2])
        noop = tf.no_op()
    fetches = {"list": [a, b], "tuple": (c, a), "nt": _ABC(a=a, b=b, c=c), "empty": [], "op": noop}
    result = bench(tf.compat.v1.Session.run, sess, fetches)
    assert result["list"] == [10, 20.0]
    assert isinstance(result["tuple"], tuple)
    np.testing.assert_array_equal(result["tuple"][0], [1, 2])
    assert isinstance(result["nt"], _ABC) and result["nt"].a == 10
    assert result["empty"] == []
    assert result["op"] is None  # testFetchOperationObject: an operation fetches as None


@pytest.mark.layout("sparse_coo")
def test_run_fetch_sparse_tensor(bench, device, graph_session):
    # testFetchSparseTensor: a SparseTensor fetches as a SparseTensorValue.
    g, sess = graph_session
    with g.as_default():
        sp = tf.SparseTensor(indices=[[3, 2, 0], [4, 5, 1]], values=[1.0, 2.0], dense_shape=[7, 9, 2])
    result = bench(tf.compat.v1.Session.run, sess, sp)
    assert isinstance(result, tf.compat.v1.SparseTensorValue)
    np.testing.assert_array_equal(result.indices, [[3, 2, 0], [4, 5, 1]])
    np.testing.assert_array_equal(result.values, [1.0, 2.0])
    np.testing.assert_array_equal(result.dense_shape, [7, 9, 2])


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32], ids=lambda d: d.name)
def test_run_feed_and_fetch(bench, device, graph_session, dtype):
    # testFeedAndFetch: a placeholder fed with a NumPy array, fetched through an op.
    g, sess = graph_session
    x_np = (np.random.default_rng(0).random((4, 5)) * 100).astype(dtype.as_numpy_dtype)
    with g.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(dtype, shape=[None, 5])
        y = x * 2
    result = bench(tf.compat.v1.Session.run, sess, y, feed_dict={x: x_np})
    assert result.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(result, x_np * 2)


def test_run_variables_and_updates(bench, device, graph_session):
    # Running an update op then reading: state persists across run calls.
    g, sess = graph_session
    with g.as_default(), tf.device(device):
        v = tf.compat.v1.Variable(0, dtype=tf.int64)
        inc = v.assign_add(1)
        init = tf.compat.v1.global_variables_initializer()
    sess.run(init)
    first = bench(tf.compat.v1.Session.run, sess, inc)
    total = sess.run(v)
    assert first == 1
    assert total >= first  # each timed call incremented it once more


def test_run_options_and_metadata(bench, device, graph_session):
    # testPerStepTrace: run_options with a full trace fill run_metadata's step stats.
    g, sess = graph_session
    with g.as_default(), tf.device(device):
        c = tf.reduce_sum(tf.ones([64, 64]))
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    metadata = tf.compat.v1.RunMetadata()
    result = bench(tf.compat.v1.Session.run, sess, c, options=options, run_metadata=metadata)
    assert result == 4096.0
    assert len(metadata.step_stats.dev_stats) > 0


def test_run_large_fetch(bench, device, graph_session):
    # A [1024, 1024] float32 result copied back to the host.
    g, sess = graph_session
    x_np = np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)
    with g.as_default(), tf.device(device):
        y = tf.nn.relu(tf.constant(x_np))
    result = bench(tf.compat.v1.Session.run, sess, y)
    np.testing.assert_array_equal(result, np.maximum(x_np, 0))
