"""tf.compat.v1.global_variables_initializer: cases adapted from tensorflow/python/kernel_tests/variables/variables_test.py (VariablesTestCase.testInitialization, testInitializationOrder, testAssignments, testZeroSizeVarSameAsConst, testCollections) and tensorflow/python/client/session_test.py (SessionTest.testExtendWithGroupBy); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call builds the initializer op in a graph (a no-op eagerly); each case then runs it in a Session
and reads the variables."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.global_variables_initializer", decile=100, top20=False,
                                  backward=("returns an op (the variables' assignments grouped), no tensor: "
                                            "AssignVariableOp registers no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testInitialization": [
        "test_initializer_scalars", "test_initializer_eager_is_noop"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testInitializationOrder": [
        "test_initializer_order"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testAssignments": [
        "test_initializer_dtypes_and_assign"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testZeroSizeVarSameAsConst": [
        "test_initializer_zero_size"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testCollections": [
        "test_initializer_skips_local_variables"],
    "tensorflow/python/client/session_test.py::SessionTest::testExtendWithGroupBy": ["test_initializer_many_variables"],
}


def test_initializer_scalars(bench, device):
    # testInitialization: two scalars, uninitialised until the initializer runs.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        var0 = tf.compat.v1.Variable(0.0)
        var1 = tf.compat.v1.Variable(1.1)
        init = bench(tf.compat.v1.global_variables_initializer)
    assert isinstance(init, tf.Operation)
    assert init.graph is g
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(var0)
        sess.run(init)
        np.testing.assert_allclose(sess.run([var0, var1]), [0.0, 1.1], rtol=1e-6)


def test_initializer_order(bench, device):
    # testInitializationOrder: variables initialised from other variables' initial values (through
    # initial_value: Variable.initialized_value is gone from recent TensorFlow). One run of the
    # initializer evaluates the random op once, so rnd and dep agree.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        rnd = tf.compat.v1.Variable(tf.random.uniform([3, 6], seed=1), name="rnd")
        dep = tf.compat.v1.Variable(rnd.initial_value, name="dep")
        added = rnd.initial_value + dep.initial_value + 2.0
        depdep = tf.compat.v1.Variable(added, name="depdep")
        init = bench(tf.compat.v1.global_variables_initializer)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        r, d, dd = sess.run([rnd, dep, depdep])
    np.testing.assert_allclose(r, d)
    np.testing.assert_allclose(r + d + 2.0, dd, rtol=1e-6)
    assert r.shape == (3, 6)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64], ids=lambda d: d.name)
def test_initializer_dtypes_and_assign(bench, device, dtype):
    # testAssignments: initial value, then assign_add / assign_sub / assign.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        var = tf.compat.v1.Variable(tf.constant(0, dtype=dtype))
        plus_one = var.assign_add(tf.constant(1, dtype=dtype))
        minus_two = var.assign_sub(tf.constant(2, dtype=dtype))
        four = var.assign(tf.constant(4, dtype=dtype))
        init = bench(tf.compat.v1.global_variables_initializer)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        values = [sess.run(var)]
        for op in (plus_one, minus_two, four):
            sess.run(op)
            values.append(sess.run(var))
    assert values == [0, 1, -1, 4]


def test_initializer_zero_size(bench, device):
    # testZeroSizeVarSameAsConst: a [0, 2] variable initialises and multiplies like a constant.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        zero_size = tf.compat.v1.Variable(tf.zeros([0, 2]))
        product = tf.matmul(tf.ones([2, 0]), zero_size)
        init = bench(tf.compat.v1.global_variables_initializer)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        np.testing.assert_array_equal(sess.run(product), np.zeros((2, 2), np.float32))


def test_initializer_skips_local_variables(bench, device):
    # testCollections: only GLOBAL_VARIABLES are initialised; local variables need their own initializer.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        glob = tf.compat.v1.Variable(2.0, name="glob")
        local = tf.compat.v1.Variable(3.0, name="local", collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
        init = bench(tf.compat.v1.global_variables_initializer)
        init_local = tf.compat.v1.local_variables_initializer()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        assert sess.run(glob) == 2.0
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(local)
        sess.run(init_local)
        assert sess.run(local) == 3.0


def test_initializer_many_variables(bench, device):
    # 200 variables of 64 x 64 (800k values) initialised by one grouped op.
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((64, 64)).astype(np.float32) for _ in range(200)]
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        variables = [tf.compat.v1.Variable(v) for v in values]
        init = bench(tf.compat.v1.global_variables_initializer)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        got = sess.run(variables)
    for a, b in zip(got, values):
        np.testing.assert_array_equal(a, b)


def test_initializer_eager_is_noop(bench, device):
    # Eagerly, variables are initialised on creation and the initializer does nothing.
    with tf.device(device):
        v = tf.Variable(5.0)
        result = bench(tf.compat.v1.global_variables_initializer)
    assert result is None or isinstance(result, tf.Operation)
    assert float(v.numpy()) == 5.0
