"""tf.compat.v1.variable_scope: cases adapted from tensorflow/python/kernel_tests/variables/variable_scope_test.py (VariableScopeTest.testGetVar, testNameExists, testVarScopeInitializer, testVarScopeDType, testVarOpScope, testVarScopeGetOrCreateReuse; reuse=True and nested scopes as used throughout that file); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call builds the scope's context manager (what `with` then enters); each case enters it in its
own graph and checks the variables and names it produces."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.variable_scope", decile=100, top20=True,
                                  backward=("returns a context manager that names and shares variables, not a tensor: "
                                            "no op runs"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testGetVar": [
        "test_variable_scope_names"],
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testNameExists": [
        "test_variable_scope_reuse"],
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testVarScopeInitializer": [
        "test_variable_scope_initializer"],
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testVarScopeDType": [
        "test_variable_scope_dtype"],
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testVarOpScope": [
        "test_variable_scope_default_name"],
    "tensorflow/python/kernel_tests/variables/variable_scope_test.py::VariableScopeTest::testVarScopeGetOrCreateReuse": [
        "test_variable_scope_auto_reuse"],
}


def _init_and_read(g, variables):
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        return sess.run(variables)


def test_variable_scope_names(bench, device):
    # testGetVar and nested scopes: variables and ops are named under the scope, nested scopes stack.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        scope = bench(tf.compat.v1.variable_scope, "outer")
        with scope as entered:
            v = tf.compat.v1.get_variable("v", [1])
            with tf.compat.v1.variable_scope("inner"):
                w = tf.compat.v1.get_variable("w", [2, 3])
                op = tf.add(w, 1.0, name="add")
    assert entered.name == "outer"
    assert v.name == "outer/v:0"
    assert w.name == "outer/inner/w:0"
    assert op.name == "outer/inner/add:0"
    assert w.shape.as_list() == [2, 3]


def test_variable_scope_reuse(bench, device):
    # testNameExists and reuse=True: reuse=True returns the existing variable; a second creation
    # without reuse is refused.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        with tf.compat.v1.variable_scope("s"):
            v1 = tf.compat.v1.get_variable("v", [1])
        scope = bench(tf.compat.v1.variable_scope, "s", reuse=True)
        with scope:
            v2 = tf.compat.v1.get_variable("v", [1])
        with pytest.raises(ValueError, match="already exists"):
            with tf.compat.v1.variable_scope("s"):
                tf.compat.v1.get_variable("v", [1])
    assert v1 is v2


def test_variable_scope_auto_reuse(bench, device):
    # testVarScopeGetOrCreateReuse: AUTO_REUSE creates once, then returns the same variable.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        scope = bench(tf.compat.v1.variable_scope, "auto", reuse=tf.compat.v1.AUTO_REUSE)
        with scope:
            a = tf.compat.v1.get_variable("x", [], initializer=tf.compat.v1.constant_initializer(2.0))
        with tf.compat.v1.variable_scope("auto", reuse=tf.compat.v1.AUTO_REUSE):
            b = tf.compat.v1.get_variable("x", [])
    assert a is b
    assert _init_and_read(g, a) == 2.0


@pytest.mark.parametrize("value", [0.3, -1.5])
def test_variable_scope_initializer(bench, device, value):
    # testVarScopeInitializer: the scope's initializer is the default for its variables.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        scope = bench(tf.compat.v1.variable_scope, "tower", initializer=tf.compat.v1.constant_initializer(value))
        with scope:
            w = tf.compat.v1.get_variable("w", [2, 2])
            with tf.compat.v1.variable_scope("foo"):
                u = tf.compat.v1.get_variable("u", [3])
    wv, uv = _init_and_read(g, [w, u])
    np.testing.assert_allclose(wv, np.full((2, 2), value), rtol=1e-6)
    np.testing.assert_allclose(uv, np.full(3, value), rtol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float64, tf.int32], ids=lambda d: d.name)
def test_variable_scope_dtype(bench, device, dtype):
    # testVarScopeDType: the scope's dtype is the default for get_variable.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        scope = bench(tf.compat.v1.variable_scope, "typed", dtype=dtype)
        with scope:
            v = tf.compat.v1.get_variable("v", [4], initializer=tf.compat.v1.zeros_initializer())
    assert v.dtype.base_dtype == dtype
    np.testing.assert_array_equal(_init_and_read(g, v), np.zeros(4, dtype.as_numpy_dtype))


def test_variable_scope_default_name(bench, device):
    # testVarOpScope: with name_or_scope None, default_name is made unique per use.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        first = bench(tf.compat.v1.variable_scope, None, default_name="layer")
        with first as s1:
            a = tf.compat.v1.get_variable("w", [1])
        with tf.compat.v1.variable_scope(None, default_name="layer") as s2:
            b = tf.compat.v1.get_variable("w", [1])
    assert s1.name == "layer" and s2.name == "layer_1"
    assert a.name == "layer/w:0" and b.name == "layer_1/w:0"
