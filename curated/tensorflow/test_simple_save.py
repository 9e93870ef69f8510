"""tf.compat.v1.saved_model.simple_save: cases adapted from tensorflow/python/saved_model/simple_save_test.py (SimpleSaveTest.testSimpleSave: variables saved as the signature's inputs and outputs, loaded back with loader.load in a fresh graph and session; the restored values, the variables' names, dtypes and shapes, the single default serving signature, its predict method name and the tensor infos are checked), extended to a matmul model in float32 and float64, several inputs and outputs, a model without variables, the legacy_init_op (run at load), and the export directory rules of SavedModelBuilder; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

simple_save is not idempotent: it refuses an export directory that exists and is not empty, it adds a
new Saver to the model's graph on every call (so a reused graph grows and each call takes longer than
the one before), and with legacy_init_op it refuses a graph whose main-op collection it already filled.
So every call gets the state a user's single call has: the cases use bench.with_setup with a setup that,
outside the timed region, clears the export folder (under pytest's tmp_path) and builds the model anew
in a fresh tf.compat.v1 Graph and Session with its variables initialized. The timed callable enters
that graph (simple_save reads the default graph's collections) and calls simple_save; entering a graph
context is a few microseconds against milliseconds of saving. What is checked after bench is the last
call's export on disk, loaded back and run against NumPy with assertAllClose's default tolerances
(1e-6), and the last call's graph."""
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.compat.v1.saved_model.simple_save", decile=10, top20=False,
                                  backward=("writes a SavedModel to disk (SaveV2, no gradient registered) and returns "
                                            "None"))

UPSTREAM_TESTS = {
    "tensorflow/python/saved_model/simple_save_test.py::SimpleSaveTest::testSimpleSave": [
        "test_simple_save_variables", "test_simple_save_matmul", "test_simple_save_several_inputs_outputs",
        "test_simple_save_no_variables", "test_simple_save_legacy_init_op", "test_simple_save_export_dir_rules"],
}

_SERVING_KEY = "serving_default"  # signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_PREDICT = "tensorflow/serving/predict"  # signature_constants.PREDICT_METHOD_NAME
_TOL = {"rtol": 1e-6, "atol": 1e-6}  # tf.test.TestCase.assertAllClose's defaults


class _Model:
    """A model rebuilt before every timed call: `build()` runs in a fresh Graph under the case's device
    and returns (inputs, outputs, simple_save's keyword arguments, handles the case checks later)."""

    def __init__(self, build, device, export_dir, empty_dir):
        self.build, self.device, self.export_dir, self.empty_dir = build, device, export_dir, empty_dir
        self.graph = self.sess = None

    def setup(self):
        self.close()
        if os.path.exists(self.export_dir):
            shutil.rmtree(self.export_dir)
        if self.empty_dir:  # an existing but empty directory, which SavedModelBuilder accepts
            os.makedirs(self.export_dir)
        self.graph = tf.Graph()
        with self.graph.as_default(), tf.device(self.device):
            self.inputs, self.outputs, self.kwargs, self.handles = self.build()
            init = tf.compat.v1.global_variables_initializer()
        self.sess = tf.compat.v1.Session(graph=self.graph)
        self.sess.run(init)

    def save(self):
        with self.graph.as_default():
            return tf.compat.v1.saved_model.simple_save(
                self.sess, self.export_dir, self.inputs, self.outputs, **self.kwargs)

    def close(self):
        if self.sess is not None:
            self.sess.close()


@pytest.fixture
def saved(bench, device, tmp_path):
    """saved(build, empty_dir=False): bench simple_save on a model from `build`, return the last one."""
    models = []

    def run(build, empty_dir=False):
        model = _Model(build, device, str(tmp_path / "export"), empty_dir)
        models.append(model)
        assert bench.with_setup(model.setup, model.save) is None
        assert os.path.isfile(os.path.join(model.export_dir, "saved_model.pb"))
        return model

    yield run
    for model in models:
        model.close()


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
def test_simple_save_variables(saved, dtype):
    # testSimpleSave: two reference variables, one as the input and one as the output of the signature.
    def build():
        var_x = tf.compat.v1.Variable(tf.constant(1, dtype), name="var_x", use_resource=False)
        var_y = tf.compat.v1.Variable(tf.constant(2, dtype), name="var_y", use_resource=False)
        return {"x": var_x}, {"y": var_y}, {}, (var_x, var_y)

    model = saved(build)
    var_x, var_y = model.handles
    with _Loaded(model.export_dir) as loaded:
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
def test_simple_save_matmul(saved, dtype):
    # A dense layer: a placeholder times a weight variable plus a bias, saved and served.
    rng = np.random.default_rng(0)
    np_dtype = dtype.as_numpy_dtype
    w_np = rng.standard_normal((3, 2)).astype(np_dtype)
    b_np = rng.standard_normal(2).astype(np_dtype)

    def build():
        x = tf.compat.v1.placeholder(dtype, shape=[None, 3], name="x")
        w = tf.compat.v1.Variable(w_np, name="w")
        b = tf.compat.v1.Variable(b_np, name="b")
        y = tf.add(tf.matmul(x, w), b, name="y")
        return {"x": x}, {"y": y}, {}, None

    model = saved(build)
    assert os.path.isfile(os.path.join(model.export_dir, "variables", "variables.index"))
    x_np = rng.standard_normal((4, 3)).astype(np_dtype)
    with _Loaded(model.export_dir) as loaded:
        _check_tensor_info(loaded.signature.inputs["x"], model.inputs["x"])
        _check_tensor_info(loaded.signature.outputs["y"], model.outputs["y"])
        values = loaded.values()
        np.testing.assert_array_equal(values["w"], w_np)  # restored bit for bit
        np.testing.assert_array_equal(values["b"], b_np)
        out = loaded.run({"x": x_np})["y"]
    assert out.dtype == np_dtype and out.shape == (4, 2)
    np.testing.assert_allclose(out, x_np @ w_np + b_np, **_TOL)


def test_simple_save_several_inputs_outputs(saved):
    # Three inputs of two dtypes and four outputs of three dtypes in one signature.
    rng = np.random.default_rng(1)
    w_np = rng.standard_normal((4, 3)).astype(np.float32)

    def build():
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
        return {"a": a, "b": b, "k": k}, outputs, {}, None

    model = saved(build)
    a_np = rng.standard_normal((5, 4)).astype(np.float32)
    b_np = rng.standard_normal((5, 4)).astype(np.float32)
    with _Loaded(model.export_dir) as loaded:
        assert sorted(loaded.signature.inputs) == ["a", "b", "k"]
        assert sorted(loaded.signature.outputs) == ["argmax", "dense", "scaled", "sum"]
        for key, tensor in model.inputs.items():
            _check_tensor_info(loaded.signature.inputs[key], tensor)
        for key, tensor in model.outputs.items():
            _check_tensor_info(loaded.signature.outputs[key], tensor)
        out = loaded.run({"a": a_np, "b": b_np, "k": np.int32(3)})
    np.testing.assert_allclose(out["sum"], a_np + b_np, **_TOL)
    np.testing.assert_allclose(out["dense"], a_np @ w_np, **_TOL)
    np.testing.assert_allclose(out["scaled"], a_np * 3, **_TOL)
    assert out["argmax"].dtype == np.int64
    np.testing.assert_array_equal(out["argmax"], np.argmax(a_np + b_np, axis=1))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_simple_save_no_variables(saved, dtype):
    # A graph of constants and ops only: the export restores no variables and still serves.
    np_dtype = dtype.as_numpy_dtype

    def build():
        x = tf.compat.v1.placeholder(dtype, shape=[2, 3], name="x")
        y = tf.add(tf.multiply(x, tf.constant(2, dtype)), tf.constant(1, dtype), name="y")
        m = tf.reduce_max(x, axis=0, name="m")
        return {"x": x}, {"y": y, "m": m}, {}, None

    model = saved(build)
    x_np = np.random.default_rng(2).standard_normal((2, 3)).astype(np_dtype)
    with _Loaded(model.export_dir) as loaded:
        assert loaded.variables == []
        out = loaded.run({"x": x_np})
    assert out["y"].dtype == np_dtype and out["y"].shape == (2, 3)
    np.testing.assert_allclose(out["y"], 2 * x_np + 1, **_TOL)
    np.testing.assert_array_equal(out["m"], x_np.max(axis=0))


def test_simple_save_legacy_init_op(saved):
    # legacy_init_op is stored as the main op: loader.load runs it after restoring the variables.
    def build():
        x = tf.compat.v1.placeholder(tf.float32, shape=[None], name="x")
        v = tf.compat.v1.Variable(1.0, name="v")
        y = tf.multiply(x, v, name="y")
        init_op = tf.group(tf.compat.v1.assign(v, 7.0), name="legacy_init")
        return {"x": x}, {"y": y}, {"legacy_init_op": init_op}, v

    model = saved(build)
    main_ops = model.graph.get_collection(tf.compat.v1.saved_model.MAIN_OP_KEY)
    assert main_ops == [model.kwargs["legacy_init_op"]]
    assert model.sess.run(model.handles) == 1.0  # saving does not run the op
    with _Loaded(model.export_dir) as loaded:
        assert loaded.values() == {"v": 7.0}
        out = loaded.run({"x": np.array([1.0, -2.0], np.float32)})
    np.testing.assert_array_equal(out["y"], np.array([7.0, -14.0], np.float32))


@pytest.mark.parametrize("setup", ["removed", "empty"])
def test_simple_save_export_dir_rules(saved, setup):
    # SavedModelBuilder writes into a missing or an empty directory and refuses a non-empty one.
    def build():
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 2], name="x")
        w = tf.compat.v1.Variable(np.eye(2, dtype=np.float32) * 3, name="w")
        y = tf.matmul(x, w, name="y")
        return {"x": x}, {"y": y}, {}, None

    model = saved(build, empty_dir=setup == "empty")
    with pytest.raises(AssertionError, match="already exists"):
        model.save()
    with _Loaded(model.export_dir) as loaded:
        out = loaded.run({"x": np.array([[1.0, 2.0]], np.float32)})
    np.testing.assert_array_equal(out["y"], np.array([[3.0, 6.0]], np.float32))
