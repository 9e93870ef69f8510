"""tf.Variable: cases adapted from tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py (ResourceVariableOpsTest.testEagerInitializedValue, testEagerBool, testGPUInteger, testEagerDeepCopy, testStridedSliceAssign, testRepr, testEagerNameNotIdentity) and tensorflow/python/kernel_tests/variables/variables_test.py (VariablesTestCase.testInitialization, testAssignments, testAssignDifferentShapesAllowed, testConstraintArg, testZeroSizeVarSameAsConst); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.Variable", decile=100, top20=True,
                                  backward=("creates a resource variable: AssignVariableOp writes the initial value "
                                            "and registers no gradient (a tape differentiates the variable's reads, "
                                            "ReadVariableOp, which test_variable_gradient checks)"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testEagerInitializedValue": [
        "test_variable_dtypes", "test_variable_large"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testEagerBool": [
        "test_variable_initial_value_kinds", "test_variable_bool"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testGPUInteger": [
        "test_variable_dtypes", "test_variable_updates"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testEagerDeepCopy": [
        "test_variable_sync_aggregation_deepcopy"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testStridedSliceAssign": [
        "test_variable_strided_slice_assign"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testRepr": [
        "test_variable_explicit_dtype_and_name"],
    "tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py::ResourceVariableOpsTest::testEagerNameNotIdentity": [
        "test_variable_explicit_dtype_and_name"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testInitialization": [
        "test_variable_initial_value_kinds"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testAssignments": [
        "test_variable_updates"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testAssignDifferentShapesAllowed": [
        "test_variable_unknown_shape"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testConstraintArg": [
        "test_variable_constraint"],
    "tensorflow/python/kernel_tests/variables/variables_test.py::VariablesTestCase::testZeroSizeVarSameAsConst": [
        "test_variable_zero_size"],
}


def _check(v, expected, dtype):
    assert isinstance(v, tf.Variable)
    assert v.dtype == dtype
    assert tuple(v.shape) == np.shape(expected)
    np.testing.assert_array_equal(v.numpy(), np.asarray(expected, dtype.as_numpy_dtype))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.uint8,
                                   tf.int16, tf.int32, tf.int64, tf.complex64, tf.bool],
                         ids=lambda d: d.name)
def test_variable_dtypes(bench, device, dtype):
    # testEagerInitializedValue / testGPUInteger: a variable of each dtype holds its initial value.
    init_np = (np.arange(12).reshape(3, 4) % 2).astype(dtype.as_numpy_dtype)
    with tf.device(device):
        init = tf.constant(init_np, dtype=dtype)
        v = bench(tf.Variable, init)
    _check(v, init_np, dtype)
    assert v.trainable


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.float32], ids=lambda d: d.name)
def test_variable_updates(bench, device, dtype):
    # testGPUInteger / testAssignments: assign_add / assign_sub / scatter updates on a fresh variable.
    with tf.device(device):
        init = tf.constant([1, 2], dtype=dtype)
        v = bench(tf.Variable, init, trainable=False)
        v.assign_add(tf.constant([1, 1], dtype=dtype))
        after_add = v.numpy()
        v.assign_sub(tf.constant([1, 0], dtype=dtype))
        v.scatter_nd_add(indices=[[1]], updates=tf.constant([2], dtype=dtype))
    assert not v.trainable
    np.testing.assert_array_equal(after_add, np.array([2, 3], dtype.as_numpy_dtype))
    _check(v, [1, 5], dtype)


@pytest.mark.parametrize("kind", ["python_scalar", "python_list", "numpy", "callable"])
def test_variable_initial_value_kinds(bench, device, kind):
    # testInitialization / testEagerBool: Python values, NumPy arrays and callables as initial values.
    expected = {
        "python_scalar": (1.0, tf.float32),
        "python_list": ([[1, 2], [3, 4]], tf.int32),
        "numpy": (np.ones((4, 4, 4)), tf.float64),
        "callable": (np.full((2, 3), 0.5, np.float32), tf.float32),
    }[kind]
    value, dtype = expected
    initial = (lambda: tf.fill([2, 3], 0.5)) if kind == "callable" else value
    with tf.device(device):
        v = bench(tf.Variable, initial)
    _check(v, value, dtype)


def test_variable_bool(bench, device):
    # testEagerBool: a boolean scalar variable converts to a Python bool.
    with tf.device(device):
        v = bench(tf.Variable, False, name="bool_test")
    _check(v, False, tf.bool)
    assert bool(v) is False


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_variable_explicit_dtype_and_name(bench, device, dtype):
    # testEagerNameNotIdentity / testRepr: dtype converts the value; names need not be unique eagerly.
    with tf.device(device):
        v0 = tf.Variable(1.0, name="a", dtype=dtype)
        v1 = bench(tf.Variable, 2, name="a", dtype=dtype)
    _check(v0, 1.0, dtype)
    _check(v1, 2.0, dtype)
    assert v1.name == "a:0"
    assert repr(v1) == f"<tf.Variable 'a:0' shape=() dtype={dtype.name}, numpy=2.0>"


def test_variable_sync_aggregation_deepcopy(bench, device):
    # testEagerDeepCopy: synchronization and aggregation are kept; a deep copy is independent.
    import copy

    with tf.device(device):
        init = tf.ones((4, 4, 4), dtype=tf.float64)
        v = bench(tf.Variable, init, name="init", synchronization=tf.VariableSynchronization.ON_READ,
                  aggregation=tf.VariableAggregation.SUM)
        copied = copy.deepcopy(v)
        copied.assign(4 * np.ones((4, 4, 4)))
    assert v.synchronization == tf.VariableSynchronization.ON_READ
    assert v.aggregation == tf.VariableAggregation.SUM
    assert copied.name == v.name and copied.synchronization == v.synchronization
    _check(v, np.ones((4, 4, 4)), tf.float64)
    _check(copied, 4 * np.ones((4, 4, 4)), tf.float64)


def test_variable_strided_slice_assign(bench, device):
    # testStridedSliceAssign: v[0].assign(...) writes into the variable.
    with tf.device(device):
        init = tf.constant([1.0, 2.0])
        v = bench(tf.Variable, init)
        v[0].assign(2.0)
    _check(v, [2.0, 2.0], tf.float32)


def test_variable_constraint(bench, device):
    # testConstraintArg: the constraint is stored and applies where an optimizer would use it.
    constraint = lambda x: tf.clip_by_value(x, -1.0, 1.0)  # noqa: E731
    with tf.device(device):
        init = tf.constant([-3.0, 0.5, 3.0])
        v = bench(tf.Variable, init, constraint=constraint)
        projected = v.constraint(v)
    assert v.constraint is constraint
    _check(v, [-3.0, 0.5, 3.0], tf.float32)
    np.testing.assert_array_equal(projected.numpy(), [-1.0, 0.5, 1.0])


def test_variable_unknown_shape(bench, device):
    # testAssignDifferentShapesAllowed: shape=TensorShape(None) lets the variable be re-assigned another shape.
    with tf.device(device):
        init = tf.zeros([2, 3])
        v = bench(tf.Variable, init, shape=tf.TensorShape(None))
        v.assign(tf.ones([5]))
    assert v.shape.rank is None
    np.testing.assert_array_equal(v.numpy(), np.ones(5, np.float32))


@pytest.mark.parametrize("trainable", [True, False], ids=["trainable", "not_trainable"])
def test_variable_gradient(bench, device, trainable):
    # Trainability: a tape watches trainable variables by itself, and not the others.
    w_np = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    x_np = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    with tf.device(device):
        init = tf.constant(w_np)
        x = tf.constant(x_np)
        w = bench(tf.Variable, init, trainable=trainable)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.matmul(x, w))
        grad = tape.gradient(y, w)
    assert w.trainable == trainable
    _check(w, w_np, tf.float32)
    if trainable:
        np.testing.assert_allclose(grad.numpy(), np.repeat(x_np.sum(axis=0)[:, None], 32, axis=1),
                                   rtol=1e-5, atol=1e-5)
    else:
        assert grad is None


def test_variable_large(bench, device):
    # A 1024 x 1024 float32 variable (4 MiB) initialised from a tensor on the device.
    init_np = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32)
    with tf.device(device):
        init = tf.constant(init_np)
        v = bench(tf.Variable, init)
    _check(v, init_np, tf.float32)


def test_variable_zero_size(bench, device):
    # testZeroSizeVarSameAsConst: a [0, 2] variable multiplies like a constant of that shape.
    with tf.device(device):
        init = tf.zeros([0, 2])
        v = bench(tf.Variable, init)
        product = tf.matmul(tf.ones([2, 0]), v)
    _check(v, np.zeros((0, 2), np.float32), tf.float32)
    np.testing.assert_array_equal(product.numpy(), np.zeros((2, 2), np.float32))
