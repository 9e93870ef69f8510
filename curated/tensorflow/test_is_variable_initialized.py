"""tf.compat.v1.is_variable_initialized: cases adapted from tensorflow/python/kernel_tests/variables/variables_test.py (VariablesTestCase.testInitialization's uninitialised reads; IsInitializedTest.testAssertVariablesInitialized / testVariableList, which check report_uninitialized_variables, built on this op) and tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py (ResourceVariableOpsTest.testInitializeVariableUsingInitializedValue); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

In a graph the timed call builds the check op, which the case then runs before and after initialisation;
eagerly it returns True at once."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.is_variable_initialized", decile=40, top20=False,
                                  backward=("boolean output: TensorFlow registers VarIsInitializedOp "
                                            "NotDifferentiable (IsVariableInitialized, for reference variables, has "
                                            "no gradient)"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testInitialization": [
        "test_is_variable_initialized_graph", "test_is_variable_initialized_eager"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::IsInitializedTest::testAssertVariablesInitialized": [
        "test_is_variable_initialized_two_variables"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::IsInitializedTest::testVariableList": [
        "test_is_variable_initialized_two_variables"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testInitializeVariableUsingInitializedValue": [
        "test_is_variable_initialized_in_cond"],
}


@pytest.mark.parametrize("use_resource", [True, False], ids=["resource", "ref"])
@pytest.mark.parametrize("dtype", [tf.float32, tf.int64], ids=lambda d: d.name)
def test_is_variable_initialized_graph(bench, device, use_resource, dtype):
    # False until the initializer runs, then True.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        v = tf.compat.v1.Variable(tf.constant([1, 2], dtype=dtype), use_resource=use_resource)
        check = bench(tf.compat.v1.is_variable_initialized, v)
    assert check.dtype == tf.bool
    assert check.shape.as_list() == []
    with tf.compat.v1.Session(graph=g) as sess:
        before = sess.run(check)
        sess.run(v.initializer)
        after = sess.run(check)
    assert before is False or before == np.False_
    assert after == np.True_


def test_is_variable_initialized_two_variables(bench, device):
    # testVariableList / testAssertVariablesInitialized: each variable is reported on its own.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        v = tf.compat.v1.Variable([1, 2], name="v")
        w = tf.compat.v1.Variable([3, 4], name="w")
        check_v = bench(tf.compat.v1.is_variable_initialized, v)
        check_w = tf.compat.v1.is_variable_initialized(w)
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run([check_v, check_w]) == [False, False]
        sess.run(w.initializer)
        assert sess.run([check_v, check_w]) == [False, True]
        sess.run(v.initializer)
        assert sess.run([check_v, check_w]) == [True, True]


def test_is_variable_initialized_in_cond(bench, device):
    # testInitializeVariableUsingInitializedValue: a second variable initialised from the first's value
    # when that one is initialised, else from its initial value.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        var1 = tf.compat.v1.Variable(1.0, name="var1", use_resource=True)
        check = bench(tf.compat.v1.is_variable_initialized, var1)
        var2 = tf.compat.v1.Variable(tf.cond(check, var1.read_value, lambda: var1.initial_value),
                                     name="var2", use_resource=True)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(var2.initializer)
        assert sess.run(var2) == 1.0
        assert not sess.run(check)


def test_is_variable_initialized_eager(bench, device):
    # Eagerly a variable is initialised when created.
    with tf.device(device):
        v = tf.Variable(tf.zeros([256, 256]))
        result = bench(tf.compat.v1.is_variable_initialized, v)
    assert result.dtype == tf.bool
    assert bool(result.numpy()) is True
