"""tf.compat.v1.saved_model.simple_save: cases adapted from tensorflow/python/saved_model/simple_save_test.py (SimpleSaveTest.testSimpleSave: variables saved as the signature's inputs and outputs, loaded back with loader.load in a fresh graph and session; the restored values, the variables' names, dtypes and shapes, the single default serving signature, its predict method name and the tensor infos are checked), extended to a matmul model in float32 and float64, several inputs and outputs, a model without variables, the legacy_init_op (run at load), and the export directory rules of SavedModelBuilder.

The model is a tf.compat.v1 Graph with a Session, built before bench. simple_save returns None and
refuses an export directory that exists and is not empty, while bench calls it many times: the cases
use bench.with_setup with a setup that clears the export folder (under pytest's tmp_path) before every
call, outside the timed region. What is checked after bench is the export on disk (the last call's),
loaded back and run against NumPy with assertAllClose's default tolerances (1e-6).

Each call builds a new Saver in the model's graph (simple_save takes no saver), so the graph grows
from call to call and later calls take longer than the first ones."""
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.saved_model.simple_save", decile=10, top20=False)

_SERVING_KEY = "serving_default"  # signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_PREDICT = "tensorflow/serving/predict"  # signature_constants.PREDICT_METHOD_NAME
_TOL = {"rtol": 1e-6, "atol": 1e-6}  # tf.test.TestCase.assertAllClose's defaults


@pytest.fixture
def graph_session():
    g = tf.Graph()
    sess = tf.compat.v1.Session(graph=g)
    yield g, sess
    sess.close()


def _clear(path):
    """The setup: no export directory left by the previous call."""

    def clear():
        if os.path.exists(path):
            shutil.rmtree(path)

    return clear


def _empty(path):
    """The other setup: an existing but empty export directory, which SavedModelBuilder accepts."""

    def empty():
        _clear(path)()
        os.makedirs(path)

    return empty


def _save(bench, graph, sess, export_dir, inputs, outputs, setup=None, **kwargs):
    # simple_save reads the default graph (collections, Saver, meta graph): call it inside the model's.
    with graph.as_default():
        result = bench.with_setup(setup or _clear(export_dir), tf.compat.v1.saved_model.simple_save,
                                  sess, export_dir, inputs, outputs, **kwargs)
    assert result is None
    assert os.path.isfile(os.path.join(export_dir, "saved_model.pb"))


def _init(graph, sess):
    with graph.as_default():
        sess.run(tf.compat.v1.global_variables_initializer())


class _Loaded:
    """An export loaded with the SERVING tag in a fresh graph and session."""

    def __init__(self, export_dir):
        self.graph = tf.Graph()
        self.sess = tf.compat.v1.Session(graph=self.graph)
        with self.graph.as_default():
            self.meta_graph = tf.compat.v1.saved_model.loader.load(
                self.sess, [tf.compat.v1.saved_model.tag_constants.SERVING], export_dir)
            self.variables = tf.compat.v1.global_variables()
        assert list(self.meta_graph.signature_def) == [_SERVING_KEY]
        self.signature = self.meta_graph.signature_def[_SERVING_KEY]
        assert self.signature.method_name == _PREDICT

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sess.close()

    def values(self):
        return {v.op.name: self.sess.run(v) for v in self.variables}

    def run(self, feeds):
        """Run every output of the signature, feeding its inputs by key."""
        keys = sorted(self.signature.outputs)
        fetched = self.sess.run([self.signature.outputs[k].name for k in keys],
                                {self.signature.inputs[k].name: v for k, v in feeds.items()})
        return dict(zip(keys, fetched))


def _check_tensor_info(info, tensor):
    # _check_tensor_info: name, dtype and static shape as the graph had them.
    assert info.name == tensor.name
    assert info.dtype == tensor.dtype.as_datatype_enum
    dims = [d.size for d in info.tensor_shape.dim]
    assert dims == [-1 if d is None else d for d in tensor.shape.as_list()]


@pytest.mark.parametrize("dtype", [tf.int32, tf.float32], ids=lambda d: d.name)
def test_simple_save_variables(bench, device, graph_session, tmp_path, dtype):
    # testSimpleSave: two reference variables, one as the input and one as the output of the signature.
    graph, sess = graph_session
    export_dir = str(tmp_path / "simple_save")
    with graph.as_default(), tf.device(device):
        var_x = tf.compat.v1.Variable(tf.constant(1, dtype), name="var_x", use_resource=False)
        var_y = tf.compat.v1.Variable(tf.constant(2, dtype), name="var_y", use_resource=False)
    _init(graph, sess)
    _save(bench, graph, sess, export_dir, {"x": var_x}, {"y": var_y})
    with _Loaded(export_dir) as loaded:
        assert [v.name for v in loaded.variables] == ["var_x:0", "var_y:0"]
        for got, want in zip(loaded.variables, (var_x, var_y)):
            assert got.dtype == want.dtype and got.shape == want.shape
        values = loaded.values()
        assert values == {"var_x": 1, "var_y": 2}
        assert np.asarray(values["var_x"]).dtype == dtype.as_numpy_dtype
        assert len(loaded.signature.inputs) == 1 and len(loaded.signature.outputs) == 1
        _check_tensor_info(loaded.signature.inputs["x"], var_x)
        _check_tensor_info(loaded.signature.outputs["y"], var_y)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_simple_save_matmul(bench, device, graph_session, tmp_path, dtype):
    # A dense layer: a placeholder times a weight variable plus a bias, saved and served.
    graph, sess = graph_session
    export_dir = str(tmp_path / "dense")
    rng = np.random.default_rng(0)
    np_dtype = dtype.as_numpy_dtype
    w_np = rng.standard_normal((3, 2)).astype(np_dtype)
    b_np = rng.standard_normal(2).astype(np_dtype)
    with graph.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(dtype, shape=[None, 3], name="x")
        w = tf.compat.v1.Variable(w_np, name="w")
        b = tf.compat.v1.Variable(b_np, name="b")
        y = tf.add(tf.matmul(x, w), b, name="y")
    _init(graph, sess)
    _save(bench, graph, sess, export_dir, {"x": x}, {"y": y})
    assert os.path.isfile(os.path.join(export_dir, "variables", "variables.index"))
    x_np = rng.standard_normal((4, 3)).astype(np_dtype)
    with _Loaded(export_dir) as loaded:
        _check_tensor_info(loaded.signature.inputs["x"], x)
        _check_tensor_info(loaded.signature.outputs["y"], y)
        values = loaded.values()
        np.testing.assert_array_equal(values["w"], w_np)  # restored bit for bit
        np.testing.assert_array_equal(values["b"], b_np)
        out = loaded.run({"x": x_np})["y"]
    assert out.dtype == np_dtype and out.shape == (4, 2)
    np.testing.assert_allclose(out, x_np @ w_np + b_np, **_TOL)


def test_simple_save_several_inputs_outputs(bench, device, graph_session, tmp_path):
    # Three inputs of two dtypes and four outputs of three dtypes in one signature.
    graph, sess = graph_session
    export_dir = str(tmp_path / "multi")
    rng = np.random.default_rng(1)
    w_np = rng.standard_normal((4, 3)).astype(np.float32)
    with graph.as_default(), tf.device(device):
        a = tf.compat.v1.placeholder(tf.float32, shape=[None, 4], name="a")
        b = tf.compat.v1.placeholder(tf.float32, shape=[None, 4], name="b")
        k = tf.compat.v1.placeholder(tf.int32, shape=[], name="k")
        w = tf.compat.v1.Variable(w_np, name="w")
        outputs = {
            "sum": tf.add(a, b, name="sum"),
            "dense": tf.matmul(a, w, name="dense"),
            "scaled": tf.multiply(a, tf.cast(k, tf.float32), name="scaled"),
            "argmax": tf.argmax(a + b, axis=1, name="argmax"),
        }
    _init(graph, sess)
    _save(bench, graph, sess, export_dir, {"a": a, "b": b, "k": k}, outputs)
    a_np = rng.standard_normal((5, 4)).astype(np.float32)
    b_np = rng.standard_normal((5, 4)).astype(np.float32)
    with _Loaded(export_dir) as loaded:
        assert sorted(loaded.signature.inputs) == ["a", "b", "k"]
        assert sorted(loaded.signature.outputs) == ["argmax", "dense", "scaled", "sum"]
        for key, tensor in {"a": a, "b": b, "k": k}.items():
            _check_tensor_info(loaded.signature.inputs[key], tensor)
        for key, tensor in outputs.items():
            _check_tensor_info(loaded.signature.outputs[key], tensor)
        out = loaded.run({"a": a_np, "b": b_np, "k": np.int32(3)})
    np.testing.assert_allclose(out["sum"], a_np + b_np, **_TOL)
    np.testing.assert_allclose(out["dense"], a_np @ w_np, **_TOL)
    np.testing.assert_allclose(out["scaled"], a_np * 3, **_TOL)
    assert out["argmax"].dtype == np.int64
    np.testing.assert_array_equal(out["argmax"], np.argmax(a_np + b_np, axis=1))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_simple_save_no_variables(bench, device, graph_session, tmp_path, dtype):
    # A graph of constants and ops only: the export restores no variables and still serves.
    graph, sess = graph_session
    export_dir = str(tmp_path / "stateless")
    np_dtype = dtype.as_numpy_dtype
    with graph.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(dtype, shape=[2, 3], name="x")
        y = tf.add(tf.multiply(x, tf.constant(2, dtype)), tf.constant(1, dtype), name="y")
        m = tf.reduce_max(x, axis=0, name="m")
    _save(bench, graph, sess, export_dir, {"x": x}, {"y": y, "m": m})
    x_np = np.random.default_rng(2).standard_normal((2, 3)).astype(np_dtype)
    with _Loaded(export_dir) as loaded:
        assert loaded.variables == []
        out = loaded.run({"x": x_np})
    assert out["y"].dtype == np_dtype and out["y"].shape == (2, 3)
    np.testing.assert_allclose(out["y"], 2 * x_np + 1, **_TOL)
    np.testing.assert_array_equal(out["m"], x_np.max(axis=0))


def test_simple_save_legacy_init_op(bench, device, graph_session, tmp_path):
    # legacy_init_op is stored as the main op: loader.load runs it after restoring the variables.
    # simple_save also adds it to the graph's main-op collection and refuses a graph that already has
    # one, so the setup clears that collection too, undoing the previous call's effect on the graph.
    graph, sess = graph_session
    export_dir = str(tmp_path / "init_op")
    with graph.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(tf.float32, shape=[None], name="x")
        v = tf.compat.v1.Variable(1.0, name="v")
        y = tf.multiply(x, v, name="y")
        init_op = tf.group(tf.compat.v1.assign(v, 7.0), name="legacy_init")
    _init(graph, sess)
    clear_dir = _clear(export_dir)

    def clear():
        clear_dir()
        graph.clear_collection(tf.compat.v1.saved_model.MAIN_OP_KEY)

    _save(bench, graph, sess, export_dir, {"x": x}, {"y": y}, setup=clear, legacy_init_op=init_op)
    assert graph.get_collection(tf.compat.v1.saved_model.MAIN_OP_KEY) == [init_op]
    assert sess.run(v) == 1.0  # saving does not run the op
    with _Loaded(export_dir) as loaded:
        assert loaded.values() == {"v": 7.0}
        out = loaded.run({"x": np.array([1.0, -2.0], np.float32)})
    np.testing.assert_array_equal(out["y"], np.array([7.0, -14.0], np.float32))


@pytest.mark.parametrize("setup", ["removed", "empty"])
def test_simple_save_export_dir_rules(bench, device, graph_session, tmp_path, setup):
    # SavedModelBuilder writes into a missing or an empty directory and refuses a non-empty one.
    graph, sess = graph_session
    export_dir = str(tmp_path / "rules")
    with graph.as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 2], name="x")
        w = tf.compat.v1.Variable(np.eye(2, dtype=np.float32) * 3, name="w")
        y = tf.matmul(x, w, name="y")
    _init(graph, sess)
    prepare = _clear(export_dir) if setup == "removed" else _empty(export_dir)
    _save(bench, graph, sess, export_dir, {"x": x}, {"y": y}, setup=prepare)
    with graph.as_default(), pytest.raises(AssertionError, match="already exists"):
        tf.compat.v1.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
    with _Loaded(export_dir) as loaded:
        out = loaded.run({"x": np.array([[1.0, 2.0]], np.float32)})
    np.testing.assert_array_equal(out["y"], np.array([[3.0, 6.0]], np.float32))
