"""tf.compat.v1.TextLineReader.restore_state: cases adapted from tensorflow/python/kernel_tests/io_ops/reader_ops_test.py (IdentityReaderTest.testSerializeRestore's restore_state calls, applied to the TextLineReaderTest reader); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Readers are TF1 graph constructs (they raise under eager execution). The timed call builds the
ReaderRestoreStateV2 op. TextLineReader does not implement state serialization: running the op fails
with UnimplementedError in TensorFlow 2.11 and 2.21 alike, which each case checks, together with the
reader still working afterwards. The text file a reader needs is written into pytest's temporary
directory."""
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.TextLineReader.restore_state", decile=70, top20=False,
                                  backward=("returns an op: ReaderRestoreStateV2 restores a reader's state from a "
                                            "string and registers no gradient (ReaderRestoreState is registered "
                                            "NotDifferentiable)"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/io_ops/reader_ops_test.py::IdentityReaderTest::testSerializeRestore": [
        "test_restore_state_constant", "test_restore_state_from_placeholder",
        "test_restore_state_from_serialize_state"],
}


def _reader_graph(tmp_path, lines):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"".join(l + b"\n" for l in lines))
    g = tf.Graph()
    with g.as_default():
        reader = tf.compat.v1.TextLineReader(name="reader")
        queue = tf.queue.FIFOQueue(10, tf.string)
        enqueue = queue.enqueue_many([[str(path)]])
        close = queue.close()
        key, value = reader.read(queue)
    return g, reader, enqueue, close, key, value


def _check_restore_op(op, reader):
    assert isinstance(op, tf.Operation)
    assert op.type == "ReaderRestoreStateV2"
    assert op.inputs[0] is reader.reader_ref


@pytest.mark.parametrize("state", [b"", b"\x08\x01", bytes(range(256)) * 64], ids=["empty", "short", "16KiB"])
def test_restore_state_constant(bench, device, tmp_path, state):
    g, reader, enqueue, close, key, value = _reader_graph(tmp_path, [b"alpha", b"beta"])
    with g.as_default():
        restore = bench(tf.compat.v1.TextLineReader.restore_state, reader, tf.constant(state))
    _check_restore_op(restore, reader)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(enqueue)
        sess.run(close)
        with pytest.raises(tf.errors.UnimplementedError, match="RestoreState"):
            sess.run(restore)
        # The reader is unaffected by the refused restore.
        assert sess.run(value) == b"alpha"
        assert sess.run(value) == b"beta"


def test_restore_state_from_placeholder(bench, device, tmp_path):
    # The state as a fed string placeholder.
    g, reader, enqueue, close, key, value = _reader_graph(tmp_path, [b"x"])
    with g.as_default():
        state = tf.compat.v1.placeholder(tf.string, shape=[])
        restore = bench(tf.compat.v1.TextLineReader.restore_state, reader, state)
    _check_restore_op(restore, reader)
    assert restore.inputs[1] is state
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(tf.errors.UnimplementedError):
            sess.run(restore, feed_dict={state: b"anything"})


def test_restore_state_from_serialize_state(bench, device, tmp_path):
    # testSerializeRestore's pattern: restore from serialize_state(); both halves are unimplemented here.
    g, reader, enqueue, close, key, value = _reader_graph(tmp_path, [b"a", b"b", b"c"])
    with g.as_default():
        state = reader.serialize_state()
        restore = bench(tf.compat.v1.TextLineReader.restore_state, reader, state, name="restore")
    _check_restore_op(restore, reader)
    assert restore.name == "restore"
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(enqueue)
        sess.run(close)
        assert sess.run([key, value])[1] == b"a"
        with pytest.raises(tf.errors.UnimplementedError):
            sess.run(restore)
        assert int(sess.run(reader.num_records_produced())) == 1
