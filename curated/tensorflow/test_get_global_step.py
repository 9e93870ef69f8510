"""tf.compat.v1.train.get_global_step: cases adapted from tensorflow/python/training/training_util_test.py (GlobalStepTest.test_create_global_step, test_get_global_step, test_get_or_create_global_step) run eagerly, plus a step incremented by an optimizer; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

In eager mode the global step is kept in the collections of the process-wide default graph; a fixture
clears that collection around each case. (Graph-mode cases are left out: the harness's result sync calls
.numpy() on the returned graph variable.)"""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.train.get_global_step", decile=80, top20=False,
                                  backward=("returns the global step, an int64 variable (or None): integer, nothing "
                                            "to differentiate"))

UPSTREAM_TESTS = {
    "tensorflow/python/training/training_util_test.py::GlobalStepTest::test_create_global_step": [
        "test_get_global_step_after_create"],
    "tensorflow/python/training/training_util_test.py::GlobalStepTest::test_get_global_step": [
        "test_get_global_step_none", "test_get_global_step_after_create", "test_get_global_step_user_collection",
        "test_get_global_step_counts_optimizer_steps"],
    "tensorflow/python/training/training_util_test.py::GlobalStepTest::test_get_or_create_global_step": [
        "test_get_global_step_after_get_or_create"],
}

_KEY = tf.compat.v1.GraphKeys.GLOBAL_STEP


@pytest.fixture(autouse=True)
def _fresh_global_step():
    graph = tf.compat.v1.get_default_graph()
    graph.clear_collection(_KEY)
    yield
    graph.clear_collection(_KEY)


def test_get_global_step_none(bench, device):
    # test_get_global_step: before one is created there is no global step.
    result = bench(tf.compat.v1.train.get_global_step)
    assert result is None


def test_get_global_step_after_create(bench, device):
    # test_create_global_step / test_get_global_step: an int64 scalar starting at 0.
    with tf.device(device):
        created = tf.compat.v1.train.create_global_step()
        result = bench(tf.compat.v1.train.get_global_step)
    assert result is created
    assert result.name == "global_step:0"  # _assert_global_step
    assert result.dtype.base_dtype == tf.int64
    assert result.shape.as_list() == []
    assert int(result.numpy()) == 0


def test_get_global_step_after_get_or_create(bench, device):
    # test_get_or_create_global_step: the same variable every time.
    with tf.device(device):
        first = tf.compat.v1.train.get_or_create_global_step()
        second = tf.compat.v1.train.get_or_create_global_step()
        result = bench(tf.compat.v1.train.get_global_step)
    assert first is second is result


def test_get_global_step_user_collection(bench, device):
    # A variable added to the GLOBAL_STEP collection by hand is the global step.
    with tf.device(device):
        step = tf.Variable(7, dtype=tf.int64, trainable=False, name="my_step")
        tf.compat.v1.add_to_collection(_KEY, step)
        result = bench(tf.compat.v1.train.get_global_step)
    assert result is step
    assert int(result.numpy()) == 7


@pytest.mark.parametrize("steps", [1, 3])
def test_get_global_step_counts_optimizer_steps(bench, device, steps):
    # The step an optimizer increments through minimize(global_step=...) is the one returned.
    with tf.device(device):
        tf.compat.v1.train.get_or_create_global_step()
        w = tf.Variable([1.0, 2.0])
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        for _ in range(steps):
            opt.minimize(lambda: tf.reduce_sum(w * w), var_list=[w],
                         global_step=tf.compat.v1.train.get_global_step())
        result = bench(tf.compat.v1.train.get_global_step)
    assert int(result.numpy()) == steps
    np.testing.assert_allclose(w.numpy(), np.array([1.0, 2.0]) * 0.8 ** steps, rtol=1e-6)
