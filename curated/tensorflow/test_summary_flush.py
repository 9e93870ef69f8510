"""tf.summary.flush: cases adapted from tensorflow/python/kernel_tests/summary_ops/summary_ops_test.py (SummaryWriterTest.testFlushFunction, testCreate_immediateAsDefault_retainsReference), plus a no-op writer and a writer used from a tf.function; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A summary writer writes event files, so these cases use pytest's temporary directory; the writers are
made with huge max_queue / flush_millis so that only flush() moves the events to disk. Events are written
with tf.summary.write, a core op (tf.summary.scalar comes from TensorBoard, which tensorflow-cpu lacks)."""
import glob
import os

import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.summary.flush", decile=90, top20=False,
                                  backward=("returns an op or None: FlushSummaryWriter writes queued events to disk "
                                            "and registers no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/summary_ops/summary_ops_test.py::SummaryWriterTest::testFlushFunction": [
        "test_summary_flush_default_writer", "test_summary_flush_explicit_writer", "test_summary_flush_in_function"],
    "tensorflow/python/kernel_tests/summary_ops/summary_ops_test.py::SummaryWriterTest::testCreate_immediateAsDefault_retainsReference": [
        "test_summary_flush_as_default_retains_reference"],
}


def _events(logdir):
    """Every event in the logdir's event files (the first of each file is its file_version)."""
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "*"))):
        out.extend(tf.compat.v1.train.summary_iterator(path))
    return out


def _lazy_writer(logdir):
    return tf.summary.create_file_writer(logdir, max_queue=999999, flush_millis=999999)


@pytest.mark.parametrize("n", [1, 2, 50])
def test_summary_flush_default_writer(bench, device, tmp_path, n):
    # testFlushFunction: events stay queued until flush() with the default writer.
    logdir = str(tmp_path)
    writer = _lazy_writer(logdir)
    with writer.as_default(), tf.device(device):
        for step in range(n):
            tf.summary.write("scalar", 2.0 * step, step=step)
        assert len(_events(logdir)) == 1
        result = bench(tf.summary.flush)
    events = _events(logdir)
    assert len(events) == 1 + n
    assert events[0].file_version.startswith("brain.Event")
    assert [e.step for e in events[1:]] == list(range(n))
    assert result is None or isinstance(result, (tf.Operation, tf.Tensor))


def test_summary_flush_explicit_writer(bench, device, tmp_path):
    # testFlushFunction's "writer" parameter: flush a writer that is not the default one.
    logdir = str(tmp_path)
    writer = _lazy_writer(logdir)
    with writer.as_default(), tf.device(device):  # leaving as_default() would flush by itself
        tf.summary.write("tag", 1, step=0)
        assert len(_events(logdir)) == 1
        bench(tf.summary.flush, writer=writer)
        events = _events(logdir)
    assert len(events) == 2
    assert events[1].summary.value[0].tag == "tag"


def test_summary_flush_as_default_retains_reference(bench, device, tmp_path):
    # testCreate_immediateAsDefault_retainsReference: a writer kept alive only by as_default().
    logdir = str(tmp_path)
    with tf.summary.create_file_writer(logdir, max_queue=999999, flush_millis=999999).as_default():
        tf.summary.write("x", 1.5, step=3)
        bench(tf.summary.flush)
    events = _events(logdir)
    assert len(events) == 2
    assert events[1].step == 3


def test_summary_flush_noop_writer(bench, device):
    # A no-op writer makes flush a no-op that does not fail.
    writer = tf.summary.create_noop_writer()
    with writer.as_default():
        tf.summary.write("ignored", 1.0, step=0)
        result = bench(tf.summary.flush)
    assert result is None or isinstance(result, (tf.Operation, tf.Tensor))


def test_summary_flush_in_function(bench, device, tmp_path):
    # flush inside a tf.function writes the traced summaries too; timed here eagerly after the call.
    logdir = str(tmp_path)
    writer = _lazy_writer(logdir)

    @tf.function
    def log(step):
        with writer.as_default():
            tf.summary.write("loss", tf.cast(step, tf.float32) * 0.5, step=step)

    with tf.device(device):
        for step in range(3):
            log(tf.constant(step, tf.int64))
        bench(tf.summary.flush, writer=writer)
    events = _events(logdir)
    assert [e.step for e in events[1:]] == [0, 1, 2]
    values = [tf.make_ndarray(e.summary.value[0].tensor) for e in events[1:]]
    assert [float(v) for v in values] == [0.0, 0.5, 1.0]
