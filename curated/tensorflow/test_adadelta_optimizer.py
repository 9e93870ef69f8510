"""tf.compat.v1.train.AdadeltaOptimizer: cases adapted from tensorflow/python/training/adadelta_test.py (AdadeltaOptimizerTest.testBasic / testResourceBasic via doTestBasic, testMinimizeSparseResourceVariable); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is the constructor; each case then applies the optimizer eagerly and checks the slots and
variables against the ADADELTA recurrence computed in Python, with upstream's rtol=1e-3
(assertAllCloseAccordingToType, which also uses 1e-3 for float16)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.train.AdadeltaOptimizer", decile=50, top20=False,
                                  paper_label="tf.keras.optimizers.experimental.Adadelta",
                                  backward=("an optimizer: its step writes the variables through "
                                            "ResourceApplyAdadelta / ResourceSparseApplyAdadelta, which register no "
                                            "gradient (the cases check the update rule)"))

UPSTREAM_TESTS = {
    "tensorflow/python/training/adadelta_test.py::AdadeltaOptimizerTest::testBasic": [
        "test_adadelta_basic", "test_adadelta_hyperparameters"],
    "tensorflow/python/training/adadelta_test.py::AdadeltaOptimizerTest::testResourceBasic": ["test_adadelta_basic"],
    "tensorflow/python/training/adadelta_test.py::AdadeltaOptimizerTest::testMinimizeSparseResourceVariable": [
        "test_adadelta_minimize_sparse"],
}


def _reference(grad, lr, rho, epsilon, steps):
    """Per step: (accum, accum_update, total update applied so far), scalar ADADELTA in float64."""
    accum = accum_update = total = 0.0
    out = []
    for _ in range(steps):
        accum = accum * rho + grad ** 2 * (1 - rho)
        update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
        accum_update = accum_update * rho + update ** 2 * (1 - rho)
        total += update * lr
        out.append((accum, accum_update, total))
    return out


def _close(actual, expected, dtype):
    atol = 1e-3 if dtype == tf.float16 else 1e-6
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=1e-3, atol=atol)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("grad,lr", [(0.2, 1.0), (0.1, 0.5), (0.01, 0.1)], ids=str)
def test_adadelta_basic(bench, device, dtype, grad, lr):
    # doTestBasic: two variables, a constant gradient, four steps; slots and values checked each step.
    rho, epsilon, steps = 0.95, 1e-8, 4
    var0_init, var1_init = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with tf.device(device):
        var0 = tf.Variable(var0_init, dtype=dtype)
        var1 = tf.Variable(var1_init, dtype=dtype)
        grads = tf.constant([grad, grad], dtype=dtype)
        opt = bench(tf.compat.v1.train.AdadeltaOptimizer, lr, rho, epsilon)
        assert isinstance(opt, tf.compat.v1.train.Optimizer)
        assert opt.get_name() == "Adadelta"
        history = []
        for _ in range(steps):
            opt.apply_gradients(zip([grads, grads], [var0, var1]))
            history.append([(opt.get_slot(v, "accum").numpy(), opt.get_slot(v, "accum_update").numpy(),
                             v.numpy()) for v in (var0, var1)])
    assert opt.get_slot_names() == ["accum", "accum_update"]
    assert len(opt.variables()) == 4
    for v in (var0, var1):
        assert opt.get_slot(v, "accum").dtype.base_dtype == dtype
        assert tuple(opt.get_slot(v, "accum").shape) == (2,)
    for step, (accum, accum_update, total) in enumerate(_reference(grad, lr, rho, epsilon, steps)):
        for (slot, slot_update, value), init in zip(history[step], (var0_init, var1_init)):
            _close(slot, [accum, accum], dtype)
            _close(slot_update, [accum_update, accum_update], dtype)
            _close(value, init - total, dtype)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64], ids=lambda d: d.name)
def test_adadelta_minimize_sparse(bench, device, dtype):
    # testMinimizeSparseResourceVariable: an embedding lookup gives a sparse gradient; with lr = rho =
    # epsilon = 1 one step moves [[1, 2]] to [[-111, -138]].
    with tf.device(device):
        var0 = tf.Variable([[1.0, 2.0]], dtype=dtype)
        x = tf.constant([[4.0], [5.0]], dtype=dtype)

        def loss():
            pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
            return pred * pred

        opt = bench(tf.compat.v1.train.AdadeltaOptimizer, 1.0, 1.0, 1.0)
        opt.minimize(loss, var_list=[var0])
    assert var0.dtype == dtype
    _close(var0.numpy(), [[-111.0, -138.0]], dtype)


@pytest.mark.parametrize("lr,rho,epsilon", [(0.001, 0.95, 1e-8), (1.0, 0.9, 1e-6), (0.5, 0.99, 1e-7)],
                         ids=["defaults", "rho0.9", "rho0.99"])
def test_adadelta_hyperparameters(bench, device, lr, rho, epsilon):
    # The constructor's arguments (upstream's defaults first) drive the update of a larger variable.
    rng = np.random.default_rng(0)
    w_np = rng.standard_normal((256, 128))
    g_np = rng.standard_normal((256, 128))
    with tf.device(device):
        w = tf.Variable(w_np, dtype=tf.float64)
        g = tf.constant(g_np)
        if (lr, rho, epsilon) == (0.001, 0.95, 1e-8):
            opt = bench(tf.compat.v1.train.AdadeltaOptimizer)
        else:
            opt = bench(tf.compat.v1.train.AdadeltaOptimizer, learning_rate=lr, rho=rho, epsilon=epsilon)
        for _ in range(2):
            opt.apply_gradients([(g, w)])
    accum = np.zeros_like(w_np)
    accum_update = np.zeros_like(w_np)
    expected = w_np.copy()
    for _ in range(2):
        accum = accum * rho + g_np ** 2 * (1 - rho)
        update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * g_np
        accum_update = accum_update * rho + update ** 2 * (1 - rho)
        expected -= lr * update
    # assertAllClose's default tolerances (1e-6): updates of ~1e-3 cancel against values near zero.
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(opt.get_slot(w, "accum").numpy(), accum, rtol=1e-6, atol=1e-6)
