"""tf.estimator.CheckpointSaverHook: cases adapted from tensorflow/python/training/basic_session_run_hooks_test.py (CheckpointSaverHookTest.test_saves_when_saver_and_scaffold_both_missing, test_save_steps_saves_periodically, test_save_saves_at_end, test_listener_with_monitored_session, test_listener_with_default_saver, test_save_checkpoint_before_first_train_step); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

tf.estimator was removed in TensorFlow 2.16, so on current versions the harness records missing_api; the
hook is the TF1 training hook, run here in a graph with a SingularMonitoredSession. It saves checkpoints,
so each case writes into pytest's temporary directory."""
import os

import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.estimator.CheckpointSaverHook", decile=30, top20=False,
                                  backward=("returns a training hook object that writes checkpoints (SaveV2, no "
                                            "gradient registered), not a tensor"))

UPSTREAM_TESTS = {
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_saves_when_saver_and_scaffold_both_missing": [
        "test_checkpoint_saver_hook_savers"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_save_steps_saves_periodically": [
        "test_checkpoint_saver_hook_save_steps"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_save_saves_at_end": [
        "test_checkpoint_saver_hook_save_secs_saves_at_end"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_listener_with_monitored_session": [
        "test_checkpoint_saver_hook_save_steps", "test_checkpoint_saver_hook_savers"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_listener_with_default_saver": [
        "test_checkpoint_saver_hook_save_steps"],
    "tensorflow/python/training/basic_session_run_hooks_test.py::CheckpointSaverHookTest::test_save_checkpoint_before_first_train_step": [
        "test_checkpoint_saver_hook_save_steps", "test_checkpoint_saver_hook_savers"],
}


class _CountingListener(tf.compat.v1.train.CheckpointSaverListener):
    """Counts the listener callbacks, as upstream's MockCheckpointSaverListener."""

    def __init__(self):
        self.counts = {"begin": 0, "before_save": 0, "after_save": 0, "end": 0}
        self.saved_steps = []

    def begin(self):
        self.counts["begin"] += 1

    def before_save(self, session, global_step_value):
        self.counts["before_save"] += 1

    def after_save(self, session, global_step_value):
        self.counts["after_save"] += 1
        self.saved_steps.append(int(global_step_value))

    def end(self, session, global_step_value):
        self.counts["end"] += 1


def _expected_saves(runs, save_steps=None):
    """Steps at which the hook saves: at session creation (step 0), whenever `save_steps` have passed
    since the last save (never, for a long save_secs), and at the end if the last step was not saved."""
    saved = [0]
    for step in range(1, runs + 1):
        if save_steps is not None and step - saved[-1] >= save_steps:
            saved.append(step)
    if saved[-1] != runs:
        saved.append(runs)
    return saved


def _train(make_hook, device, runs, saver_kind):
    """Build a graph with a global step and an increment op, create the hook in it, run `runs` steps."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        global_step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.assign_add(global_step, 1)
        scaffold = tf.compat.v1.train.Scaffold()
        extra = {}
        if saver_kind == "scaffold":
            extra["scaffold"] = scaffold
        elif saver_kind == "saver":
            extra["saver"] = tf.compat.v1.train.Saver()
        listener = _CountingListener()
        hook = make_hook(listener, extra)
        with tf.compat.v1.train.SingularMonitoredSession(hooks=[hook], scaffold=scaffold) as sess:
            for _ in range(runs):
                sess.run(train_op)
            final_step = sess.raw_session().run(global_step)
    return hook, listener, final_step


def _saved_step(model_dir):
    path = tf.train.latest_checkpoint(model_dir)
    assert path is not None
    return int(tf.train.load_variable(path, "global_step")), path


@pytest.mark.parametrize("save_steps,runs", [(1, 2), (2, 3), (3, 6), (2, 5)],
                         ids=["steps1_runs2", "steps2_runs3", "steps3_runs6", "steps2_runs5"])
def test_checkpoint_saver_hook_save_steps(bench, device, tmp_path, save_steps, runs):
    model_dir = str(tmp_path)

    def make_hook(listener, extra):
        return bench(tf.estimator.CheckpointSaverHook, model_dir, save_steps=save_steps,
                     listeners=[listener], **extra)

    hook, listener, final_step = _train(make_hook, device, runs, "default")
    assert isinstance(hook, tf.compat.v1.train.SessionRunHook)
    expected = _expected_saves(runs, save_steps)
    assert final_step == runs
    assert listener.saved_steps == expected
    assert listener.counts == {"begin": 1, "before_save": len(expected), "after_save": len(expected), "end": 1}
    step, path = _saved_step(model_dir)
    assert step == runs
    assert os.path.basename(path) == f"model.ckpt-{runs}"


@pytest.mark.parametrize("saver_kind", ["default", "scaffold", "saver"])
def test_checkpoint_saver_hook_savers(bench, device, tmp_path, saver_kind):
    # test_saves_when_saver_and_scaffold_both_missing and the scaffold / explicit saver variants.
    model_dir = str(tmp_path)

    def make_hook(listener, extra):
        return bench(tf.estimator.CheckpointSaverHook, model_dir, save_steps=1, listeners=[listener], **extra)

    _, listener, _ = _train(make_hook, device, 2, saver_kind)
    assert listener.saved_steps == [0, 1, 2]
    assert _saved_step(model_dir)[0] == 2


def test_checkpoint_saver_hook_save_secs_saves_at_end(bench, device, tmp_path):
    # test_save_saves_at_end: with a long save_secs, only the first step and the end are saved.
    model_dir = str(tmp_path)

    def make_hook(listener, extra):
        return bench(tf.estimator.CheckpointSaverHook, model_dir, save_secs=3600, listeners=[listener])

    _, listener, _ = _train(make_hook, device, 4, "default")
    assert listener.saved_steps == [0, 4]
    assert _saved_step(model_dir)[0] == 4


@pytest.mark.parametrize("save_graph_def", [True, False], ids=["graph_def", "no_graph_def"])
def test_checkpoint_saver_hook_basename_and_graph(bench, device, tmp_path, save_graph_def):
    # checkpoint_basename names the files; save_graph_def decides whether graph.pbtxt is written.
    model_dir = str(tmp_path)

    def make_hook(listener, extra):
        return bench(tf.estimator.CheckpointSaverHook, model_dir, save_steps=2, checkpoint_basename="step",
                     save_graph_def=save_graph_def)

    _train(make_hook, device, 2, "default")
    step, path = _saved_step(model_dir)
    assert step == 2
    assert os.path.basename(path) == "step-2"
    assert os.path.exists(os.path.join(model_dir, "graph.pbtxt")) == save_graph_def
