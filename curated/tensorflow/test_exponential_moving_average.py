"""tf.train.ExponentialMovingAverage: cases adapted from tensorflow/python/training/moving_averages_test.py (ExponentialMovingAverageTest.testAverageVariablesNoNumUpdates_Scalar / _Vector, testAverageVariablesNumUpdates_Scalar / _Vector via _CheckDecay, testAverageVariablesWithControlDeps, testAverageVariablesNames); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is the constructor; each case then applies the averager eagerly to variables and checks the
shadow values against decay * shadow + (1 - decay) * value (decay capped at (1 + n) / (10 + n) when
num_updates is given)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.train.ExponentialMovingAverage", decile=80, top20=False,
                                  backward=("updates shadow variables in place (AssignSubVariableOp, which registers "
                                            "no gradient), as an optimizer step does: the cases check the update rule"))

UPSTREAM_TESTS = {
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesNoNumUpdates_Scalar": [
        "test_ema_check_decay"],
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesNoNumUpdates_Vector": [
        "test_ema_check_decay"],
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesNumUpdates_Scalar": [
        "test_ema_check_decay", "test_ema_many_updates_large"],
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesNumUpdates_Vector": [
        "test_ema_check_decay"],
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesWithControlDeps": [
        "test_ema_update_after_assign"],
    "tensorflow/python/training/moving_averages_test.py::ExponentialMovingAverageTest::testAverageVariablesNames": [
        "test_ema_names"],
}


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("dim", [1, 5], ids=["scalar", "vector"])
@pytest.mark.parametrize("num_updates,actual_decay", [(None, 0.25), (1, 2.0 / 11.0)],
                         ids=["no_num_updates", "num_updates_1"])
def test_ema_check_decay(bench, device, dtype, dim, num_updates, actual_decay):
    # _CheckDecay: two variables (10 and 30), two updates after the averages start at the values.
    with tf.device(device):
        v0 = tf.Variable([10.0] * dim, dtype=dtype, name="v0")
        v1 = tf.Variable([30.0] * dim, dtype=dtype, name="v1")
        ema = bench(tf.train.ExponentialMovingAverage, 0.25, num_updates=num_updates)
        ema.apply([v0, v1])
        first = [ema.average(v).numpy() for v in (v0, v1)]
        v0.assign([20.0] * dim)
        v1.assign([0.0] * dim)
        ema.apply([v0, v1])
        second = [ema.average(v).numpy() for v in (v0, v1)]
    assert ema.name == "ExponentialMovingAverage"
    dk = actual_decay
    # The shadow starts at the variable's value, so a first update with an unchanged value keeps it.
    np.testing.assert_allclose(first[0], [10.0] * dim, rtol=1e-6)
    np.testing.assert_allclose(first[1], [30.0] * dim, rtol=1e-6)
    np.testing.assert_allclose(second[0], [10.0 * dk + 20.0 * (1 - dk)] * dim, rtol=1e-6)
    np.testing.assert_allclose(second[1], [30.0 * dk + 0.0 * (1 - dk)] * dim, rtol=1e-6)
    assert ema.average(v0).dtype == dtype


def test_ema_update_after_assign(bench, device):
    # testAverageVariablesWithControlDeps: average 10, value set to 20, one update with decay 0.25.
    with tf.device(device):
        v1 = tf.Variable([10.0], name="v1")
        ema = bench(tf.train.ExponentialMovingAverage, 0.25)
        ema.apply([v1])
        v1.assign([20.0])
        ema.apply([v1])
        avg = ema.average(v1).numpy()
    np.testing.assert_array_equal(avg, [17.5])


def test_ema_names(bench, device):
    # testAverageVariablesNames: the shadow variables are named <variable>/<name>.
    with tf.device(device):
        v0 = tf.Variable(10.0, name="v0")
        v1 = tf.Variable(30.0, name="v1")
        ema = bench(tf.train.ExponentialMovingAverage, 0.25, name="foo_avg")
        ema.apply([v0, v1])
    assert ema.name == "foo_avg"
    assert ema.average_name(v0) == "v0/foo_avg"
    assert ema.average_name(v1) == "v1/foo_avg"
    assert ema.average(v0).name.startswith("v0/foo_avg")
    restore = ema.variables_to_restore()
    assert "v0/foo_avg" in restore and "v1/foo_avg" in restore


@pytest.mark.parametrize("steps", [1, 5, 20])
def test_ema_many_updates_large(bench, device, steps):
    # A 512 x 512 variable averaged over several steps with num_updates tracking the step.
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((512, 512)) for _ in range(steps + 1)]
    with tf.device(device):
        var = tf.Variable(values[0], dtype=tf.float64)
        step = tf.Variable(0, dtype=tf.int64)
        ema = bench(tf.train.ExponentialMovingAverage, 0.99, num_updates=step)
        ema.apply([var])
        for i in range(1, steps + 1):
            step.assign(i)
            var.assign(values[i])
            ema.apply([var])
        avg = ema.average(var).numpy()
    expected = values[0].copy()
    for i in range(1, steps + 1):
        decay = min(0.99, (1.0 + i) / (10.0 + i))
        expected = decay * expected + (1 - decay) * values[i]
    # The averager computes the decay in float32 even for float64 variables: assertAllClose's 1e-6.
    np.testing.assert_allclose(avg, expected, rtol=1e-6, atol=1e-6)
