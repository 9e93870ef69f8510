"""tf.train.list_variables: cases adapted from tensorflow/python/training/checkpoint_utils_test.py (CheckpointsTest.testGetAllVariables with its _create_checkpoints layout, testFSPath), plus an object-based tf.train.Checkpoint; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Listing a checkpoint needs one on disk: each case writes it into pytest's temporary directory first."""
import os

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.train.list_variables", decile=60, top20=False,
                                  backward=("reads a checkpoint's index from disk: returns (name, shape) pairs, not "
                                            "tensors"))

UPSTREAM_TESTS = {
    "tensorflow/python/training/checkpoint_utils_test.py::CheckpointsTest::testGetAllVariables": [
        "test_list_variables_tf1_saver", "test_list_variables_object_checkpoint", "test_list_variables_many"],
    "tensorflow/python/training/checkpoint_utils_test.py::CheckpointsTest::testFSPath": [
        "test_list_variables_pathlike"],
}


def _tf1_checkpoint(checkpoint_dir):
    """_create_checkpoints: var1..var3 and useful_scope/var4, saved by a TF1 Saver."""
    g = tf.Graph()
    with g.as_default():
        with tf.compat.v1.variable_scope("some_scope"):
            v1 = tf.compat.v1.get_variable("var1", [1, 10], use_resource=False)
            v2 = tf.compat.v1.get_variable("var2", [10, 10], use_resource=False)
            v3 = tf.compat.v1.get_variable("var3", [100, 100], use_resource=False)
        with tf.compat.v1.variable_scope("useful_scope"):
            v4 = tf.compat.v1.get_variable("var4", [9, 9], use_resource=False)
        saver = tf.compat.v1.train.Saver({"var1": v1, "var2": v2, "var3": v3, "useful_scope/var4": v4})
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(checkpoint_dir, "model"), global_step=0,
                       latest_filename="checkpoint")


@pytest.mark.parametrize("target", ["directory", "prefix"])
def test_list_variables_tf1_saver(bench, device, tmp_path, target):
    # testGetAllVariables: sorted (name, shape) pairs, from the directory or the checkpoint prefix.
    _tf1_checkpoint(str(tmp_path))
    path = str(tmp_path) if target == "directory" else tf.train.latest_checkpoint(str(tmp_path))
    result = bench(tf.train.list_variables, path)
    assert result == [("useful_scope/var4", [9, 9]), ("var1", [1, 10]), ("var2", [10, 10]),
                      ("var3", [100, 100])]


def test_list_variables_pathlike(bench, device, tmp_path):
    # testFSPath: a pathlib.Path works as well as a string.
    _tf1_checkpoint(str(tmp_path))
    result = bench(tf.train.list_variables, tmp_path)
    assert [name for name, _ in result] == ["useful_scope/var4", "var1", "var2", "var3"]


@pytest.mark.parametrize("dtype", [tf.float32, tf.int64, tf.bool], ids=lambda d: d.name)
def test_list_variables_object_checkpoint(bench, device, tmp_path, dtype):
    # A TF2 object-based checkpoint: attribute paths plus the object graph entry.
    with tf.device(device):
        model = tf.Module()
        model.kernel = tf.Variable(tf.zeros([3, 4], dtype=dtype))
        model.bias = tf.Variable(tf.zeros([4], dtype=dtype))
        ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(5, dtype=tf.int64))
        prefix = ckpt.save(os.path.join(str(tmp_path), "ckpt"))
    result = bench(tf.train.list_variables, prefix)
    as_dict = dict(result)
    assert as_dict["model/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 4]
    assert as_dict["model/bias/.ATTRIBUTES/VARIABLE_VALUE"] == [4]
    assert as_dict["step/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in as_dict
    assert [name for name, _ in result] == sorted(as_dict)
    assert int(tf.train.load_variable(prefix, "step/.ATTRIBUTES/VARIABLE_VALUE")) == 5


def test_list_variables_many(bench, device, tmp_path):
    # 200 variables of growing shapes in one checkpoint.
    values = {f"layer_{i:03d}": np.full((i % 7 + 1, i % 5 + 1), i, np.float32) for i in range(200)}
    with tf.device(device):
        ckpt = tf.train.Checkpoint(**{k: tf.Variable(v) for k, v in values.items()})
        prefix = ckpt.write(os.path.join(str(tmp_path), "many"))
    result = bench(tf.train.list_variables, prefix)
    shapes = {name.split("/")[0]: shape for name, shape in result if name != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    assert shapes == {k: list(v.shape) for k, v in values.items()}
