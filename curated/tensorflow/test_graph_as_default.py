"""tf.Graph.as_default: cases adapted from tensorflow/python/framework/ops_test.py (GraphTest.testGraphContextManager, testDefaultGraph, testGraphContextManagerCancelsEager, testResetDefaultGraphNesting) and tensorflow/python/client/session_test.py (SessionTest._testDefaultGraphInThread, testDefaultGraphWithThreads); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is Graph.as_default(g) itself, which returns the context manager; the case then enters it
and checks what it does."""
import threading

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.Graph.as_default", decile=100, top20=False,
                                  backward=("returns a context manager that makes a graph the default, not a tensor: "
                                            "no op runs"))

UPSTREAM_TESTS = {
    "tensorflow/python/framework/ops_test.py::GraphTest::testGraphContextManager": [
        "test_graph_as_default_context_manager"],
    "tensorflow/python/framework/ops_test.py::GraphTest::testDefaultGraph": ["test_graph_as_default_nesting"],
    "tensorflow/python/framework/ops_test.py::GraphTest::testGraphContextManagerCancelsEager": [
        "test_graph_as_default_context_manager"],
    "tensorflow/python/framework/ops_test.py::GraphTest::testResetDefaultGraphNesting": [
        "test_graph_as_default_reset_inside_fails"],
    "tensorflow/python/client/session_test.py::SessionTest::testDefaultGraphWithThreads": [
        "test_graph_as_default_threads", "test_graph_as_default_build_and_run"],
}


def test_graph_as_default_context_manager(bench, device):
    # testGraphContextManager: entering the manager yields the graph itself and makes it the default.
    g = tf.Graph()
    ctx = bench(tf.Graph.as_default, g)
    assert tf.compat.v1.get_default_graph() is not g  # nothing happens before entering
    with ctx as entered, tf.device(device):
        assert entered is g
        assert tf.compat.v1.get_default_graph() is g
        assert not tf.executing_eagerly()  # testGraphContextManagerCancelsEager
        c = tf.constant(1.0)
    assert c.graph is g
    assert tf.executing_eagerly()


def test_graph_as_default_nesting(bench, device):
    # testDefaultGraph: defaults nest and unwind in order.
    orig = tf.compat.v1.get_default_graph()
    g0, g1 = tf.Graph(), tf.Graph()
    ctx0 = bench(tf.Graph.as_default, g0)
    assert tf.compat.v1.get_default_graph() is orig
    with ctx0:
        assert tf.compat.v1.get_default_graph() is g0
        with g1.as_default():
            assert tf.compat.v1.get_default_graph() is g1
            inner = tf.constant(2.0)
        assert tf.compat.v1.get_default_graph() is g0
        outer = tf.constant(1.0)
    assert tf.compat.v1.get_default_graph() is orig
    assert inner.graph is g1 and outer.graph is g0
    assert [op.type for op in g0.get_operations()] == ["Const"]


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32], ids=lambda d: d.name)
def test_graph_as_default_build_and_run(bench, device, dtype):
    # _testDefaultGraphInThread: ops built under the manager run in a Session on that graph.
    g = tf.Graph()
    ctx = bench(tf.Graph.as_default, g)
    with ctx, tf.device(device):
        a = tf.constant(1, dtype=dtype, shape=[1, 2])
        b = tf.constant(2, dtype=dtype, shape=[2, 3])
        c = tf.matmul(a, b)
        v = tf.compat.v1.Variable(c, name="var")
        d = tf.constant(3, dtype=dtype, shape=[2, 3])
        assign = tf.compat.v1.assign(v, tf.matmul(a, d))
        init = tf.compat.v1.global_variables_initializer()
    assert {op.graph for op in (a.op, c.op, init)} == {g}
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(v)
        sess.run(assign)
        second = sess.run(v)
    assert first.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(first, np.full((1, 3), 4, dtype.as_numpy_dtype))
    np.testing.assert_array_equal(second, np.full((1, 3), 6, dtype.as_numpy_dtype))


def test_graph_as_default_threads(bench, device):
    # testDefaultGraphWithThreads: the default graph is thread-local; each thread builds its own.
    graphs = [tf.Graph() for _ in range(4)]
    ctx = bench(tf.Graph.as_default, graphs[0])
    results, errors = {}, []

    def work(i, manager):
        try:
            with manager, tf.device(device):
                assert tf.compat.v1.get_default_graph() is graphs[i]
                x = tf.constant(float(i), shape=[2, 2])
                y = tf.reduce_sum(x)
            with tf.compat.v1.Session(graph=graphs[i]) as sess:
                results[i] = sess.run(y)
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i, ctx if i == 0 else graphs[i].as_default()))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert results == {i: 4.0 * i for i in range(4)}
    for g in graphs:  # each graph holds its own thread's ops only: one constant and one sum
        assert sorted(op.type for op in g.get_operations() if op.type != "Const") == ["Sum"]


def test_graph_as_default_reset_inside_fails(bench, device):
    # testResetDefaultGraphNesting: resetting the default graph inside the manager is refused.
    g = tf.Graph()
    ctx = bench(tf.Graph.as_default, g)
    with ctx:
        assert tf.compat.v1.get_default_graph() is g
        with pytest.raises(AssertionError):
            tf.compat.v1.reset_default_graph()
    assert tf.compat.v1.get_default_graph() is not g
