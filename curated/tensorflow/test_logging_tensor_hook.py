"""tf.estimator.LoggingTensorHook: cases adapted from tensorflow/python/training/basic_session_run_hooks_test.py (LoggingTensorHookTest.test_print_at_end_only, test_print_every_n_steps, test_print_every_n_steps_and_end, test_print_first_step, test_print_every_n_secs, test_print_formatter); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

tf.estimator was removed in TensorFlow 2.16, so on current versions the harness records missing_api; the
hook is the TF1 training hook, run here in a graph with a SingularMonitoredSession. Upstream replaces
tf_logging.info to see what is logged; here a handler on the "tensorflow" logger collects the messages."""
import logging

import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.estimator.LoggingTensorHook", decile=50, top20=False,
                                  backward="returns a training hook object that logs tensors' values, not a tensor")

UPSTREAM_TESTS = {
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_at_end_only": [
        "test_logging_tensor_hook_at_end_only"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_every_n_steps": [
        "test_logging_tensor_hook_every_n_iter"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_every_n_steps_and_end": [
        "test_logging_tensor_hook_every_n_iter"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_first_step": [
        "test_logging_tensor_hook_first_step_dict"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_every_n_secs": [
        "test_logging_tensor_hook_every_n_secs"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::LoggingTensorHookTest::test_print_formatter": [
        "test_logging_tensor_hook_formatter"],
}


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.INFO)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def logged():
    """Messages of the "tensorflow" logger at INFO level, collected during the case."""
    logger = tf.get_logger()
    handler = _Collect()
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield handler.messages
    logger.removeHandler(handler)
    logger.setLevel(level)


def _run(make_hook, device, runs, messages, marker):
    """Build a graph with a constant named foo and a train op, make the hook, run `runs` steps.
    Returns the hook and, per run plus one for the end, whether a message containing `marker` was
    logged during it."""
    per_step = []
    with tf.Graph().as_default(), tf.device(device):
        t = tf.constant(42.0, name="foo")
        train_op = tf.constant(3)
        hook = make_hook(t)
        with tf.compat.v1.train.SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(runs):
                before = len(messages)
                sess.run(train_op)
                per_step.append(any(marker in m for m in messages[before:]))
            before = len(messages)
        per_step.append(any(marker in m for m in messages[before:]))  # hook.end runs at close
    return hook, per_step


@pytest.mark.parametrize("every_n_iter,at_end", [(10, False), (10, True), (3, False), (1, True)],
                         ids=["every10", "every10_and_end", "every3", "every1_and_end"])
def test_logging_tensor_hook_every_n_iter(bench, device, logged, every_n_iter, at_end):
    # test_print_every_n_steps(_and_end): steps 0, N, 2N, ... log the tensor; the end logs if at_end.
    runs = 21

    def make_hook(t):
        return bench(tf.estimator.LoggingTensorHook, tensors=[t.name], every_n_iter=every_n_iter, at_end=at_end)

    hook, per_step = _run(make_hook, device, runs, logged, "foo:0")
    assert isinstance(hook, tf.compat.v1.train.SessionRunHook)
    assert per_step == [i % every_n_iter == 0 for i in range(runs)] + [at_end]
    assert any("foo:0 = 42.0" in m for m in logged)


def test_logging_tensor_hook_at_end_only(bench, device, logged):
    # test_print_at_end_only: nothing is logged while running, the tensor is logged at the end.
    def make_hook(t):
        return bench(tf.estimator.LoggingTensorHook, tensors=[t.name], at_end=True)

    _, per_step = _run(make_hook, device, 3, logged, "foo:0")
    assert per_step == [False, False, False, True]


def test_logging_tensor_hook_first_step_dict(bench, device, logged):
    # test_print_first_step: a dict of tags; the first logged step has no elapsed time.
    def make_hook(t):
        return bench(tf.estimator.LoggingTensorHook, tensors={"foo": t}, every_n_iter=1)

    _, per_step = _run(make_hook, device, 2, logged, "foo = 42.0")
    assert per_step == [True, True, False]
    values = [m for m in logged if "foo = 42.0" in m]
    assert "sec" not in values[0]
    assert "sec" in values[1]


@pytest.mark.parametrize("at_end", [False, True], ids=["secs", "secs_and_end"])
def test_logging_tensor_hook_every_n_secs(bench, device, logged, at_end):
    # test_print_every_n_secs(_and_end): the first step logs; within an hour no other step does.
    def make_hook(t):
        return bench(tf.estimator.LoggingTensorHook, tensors=[t.name], every_n_secs=3600.0, at_end=at_end)

    _, per_step = _run(make_hook, device, 4, logged, "foo:0")
    assert per_step == [True, False, False, False, at_end]


def test_logging_tensor_hook_formatter(bench, device, logged):
    # test_print_formatter: the formatter's string is logged as is.
    def make_hook(t):
        return bench(tf.estimator.LoggingTensorHook, tensors=[t.name], every_n_iter=10,
                     formatter=lambda values: "qqq=%s" % values[t.name])

    _, per_step = _run(make_hook, device, 1, logged, "qqq=")
    assert per_step == [True, False]
    assert "qqq=42.0" in logged
