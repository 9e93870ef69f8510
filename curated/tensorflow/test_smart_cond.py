"""tf.__internal__.smart_cond.smart_cond: cases adapted from tensorflow/python/framework/smart_cond_test.py (SmartCondTest.testTrue, testFalse, testUnknown, testEval, testPlaceholderWithDefault), in graphs run by a Session as upstream, plus eager calls; UPSTREAM_TESTS below maps each to the cases here.

A known predicate (Python bool, or a tensor whose value is a graph-time constant) calls only the chosen
branch; an unknown one builds a tf.cond."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.__internal__.smart_cond.smart_cond", decile=30, top20=False,
                                  paper_label="tf.python.framework.smart_cond")

UPSTREAM_TESTS = {
    "tensorflow/python/framework/smart_cond_test.py::SmartCondTest::testTrue": [
        "test_smart_cond_python_bool", "test_smart_cond_eager", "test_smart_cond_backward"],
    "tensorflow/python/framework/smart_cond_test.py::SmartCondTest::testFalse": [
        "test_smart_cond_python_bool", "test_smart_cond_eager", "test_smart_cond_backward"],
    "tensorflow/python/framework/smart_cond_test.py::SmartCondTest::testUnknown": ["test_smart_cond_unknown"],
    "tensorflow/python/framework/smart_cond_test.py::SmartCondTest::testEval": ["test_smart_cond_constant_folded"],
    "tensorflow/python/framework/smart_cond_test.py::SmartCondTest::testPlaceholderWithDefault": [
        "test_smart_cond_placeholder_with_default"],
}

smart_cond = tf.__internal__.smart_cond.smart_cond


def _raise():
    raise RuntimeError("did not expect to be called")


@pytest.mark.parametrize("pred,expected", [(True, 32), (False, 9)], ids=["true", "false"])
def test_smart_cond_python_bool(bench, device, pred, expected):
    # testTrue / testFalse: only the chosen branch is built.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.constant(2 if pred else 4)
        y = tf.constant(5 if pred else 3)
        z = bench(smart_cond, pred, lambda: tf.multiply(x, 16), lambda: tf.multiply(y, 3))
    assert "cond" not in [op.type.lower() for op in g.get_operations()]
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(z) == expected


def test_smart_cond_unknown(bench, device):
    # testUnknown: a placeholder predicate builds a cond that chooses at run time.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(dtype=tf.int32)
        y = bench(smart_cond, x > 0, lambda: tf.constant(1), lambda: tf.constant(2))
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(y, feed_dict={x: 1}) == 1
        assert sess.run(y, feed_dict={x: -1}) == 2


def test_smart_cond_constant_folded(bench, device):
    # testEval: x * y > 0 is known when the graph is built, so the false branch is never called.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.constant(1)
        y = tf.constant(2)
        z = bench(smart_cond, x * y > 0, lambda: tf.constant(1), _raise)
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(z) == 1


def test_smart_cond_placeholder_with_default(bench, device):
    # testPlaceholderWithDefault: a defaulted placeholder is not a constant; both branches are built.
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder_with_default(1, shape=())
        y = bench(smart_cond, x > 0, lambda: tf.constant(1), lambda: tf.constant(2))
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(y) == 1
        assert sess.run(y, feed_dict={x: -1}) == 2


@pytest.mark.parametrize("pred", [True, False], ids=["true", "false"])
def test_smart_cond_eager(bench, device, pred):
    # Eagerly the predicate is always known: the branch result comes back directly.
    x_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    with tf.device(device):
        x = tf.constant(x_np)
        result = bench(smart_cond, tf.constant(pred), lambda: tf.square(x), lambda: -x)
    np.testing.assert_array_equal(result.numpy(), np.square(x_np) if pred else -x_np)


def _branch_of(pred):
    return lambda x: smart_cond(pred, lambda: tf.square(x), lambda: -x)


# Upstream checks which branch runs, not gradients; training differentiates through the branch taken (2 x times the
# cotangent, or minus it). The predicate is a tensor: eagerly its value is known, while inside a compiled function
# it is a captured input, so smart_cond builds a tf.cond and the gradient goes through it.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
@pytest.mark.parametrize("pred", [True, False], ids=["true", "false"])
def test_smart_cond_backward(backward, device, dtype, pred):
    x_np = np.linspace(-2, 2, 12).reshape(3, 4)
    if dtype.is_complex:
        x_np = x_np + 0.5j * x_np[::-1]
    with tf.device(device):
        x = tf.constant(x_np, dtype=dtype)
        branch = _branch_of(tf.constant(pred))
        grads = backward(branch, x)
    check_gradients(grads, branch, (x,))
