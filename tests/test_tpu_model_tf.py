"""TensorFlow's TPU model with the real TensorFlow on this CPU (device kind xla-cpu: each eager op on XLA's CPU device,
soft placement off around the timed call only): a string op fails placement there and names its op and dtype, a
complex128 op is forecast to fail although the CPU ran it, TensorFlow 1's graph API is not forecast to fail, paper mode
keeps soft placement on outside the timed call; and on the compiled axis, what cannot be compiled whole is
`not_compilable`, not a device's failure."""
from __future__ import annotations

import json
import shutil
import subprocess
import textwrap

import pytest
from conftest import CURATED, cases_of, config, harness

from portability_harness.frameworks import xla_quick_compile

pytestmark = pytest.mark.slow

PLACEMENT = """
import json
import tensorflow as tf
from portability_harness.frameworks import adapter_for

a = adapter_for("tensorflow")
a.setup("xla-cpu", "steady")
found = {"version": tf.__version__, "soft": tf.config.get_soft_device_placement(),
         "xla_flags": a.environment("xla-cpu", "steady").get("XLA_FLAGS")}
with a.scope():
    x = tf.constant([1, 2])
    found["soft_placed_on"] = tf.strings.as_string(x).device  # soft placement moves it to the CPU
    call = a.prepare(tf.strings.as_string, (x,), {})
    try:
        with a.timed():
            call()
        found["strict"] = "ran"
    except tf.errors.InvalidArgumentError as e:
        found["strict"] = a.failure_reason([(type(e).__name__, str(e))])
    found["soft_after"] = tf.config.get_soft_device_placement()
    # A function the case wraps in tf.function runs whole through XLA on an XLA device, soft placement or not.
    wrapped = tf.function(lambda v: tf.strings.as_string(v))
    try:
        wrapped(x)
        found["function"] = "ran"
    except tf.errors.InvalidArgumentError as e:
        found["function"] = a.failure_reason([(type(e).__name__, str(e))])
    # Its ops are what the timed call executes: the function's graph, read from its definition.
    exp = tf.function(lambda v: tf.math.exp(tf.cast(v, tf.complex128)))
    exp(x)
    call = a.prepare(exp, (x,), {})
    with a.timed():
        call()
    found["ops"] = a.executed_ops(call, exp, (x,), {})
print(json.dumps(found))
"""


@pytest.mark.parametrize("profile", ["current", "paper2023"])
def test_a_string_op_fails_placement_on_the_xla_device_only_with_soft_placement_off(venv_for, profile):
    env = venv_for("tf-xla-cpu", profile)
    proc = subprocess.run([env.python, "-c", PLACEMENT], capture_output=True, text=True, timeout=600,
                          env=env.variables())
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["version"].startswith({"current": "2.21", "paper2023": "2.11"}[profile])
    # XLA's quick-compile flags from 2.21 only: 2.11's XLA aborts on the fusion emitters' flag
    quick = " ".join(xla_quick_compile.VERIFIED["tensorflow"].flags)
    assert found["xla_flags"] == {"current": quick, "paper2023": None}[profile]
    assert found["soft"] is True and found["soft_after"] is True  # strict inside timed() only
    assert found["soft_placed_on"].endswith("device:CPU:0")
    assert found["strict"] == "placement: no XLA_CPU kernel for AsString (int32)"
    assert found["function"] == "lower: no XLA kernel for AsString (int32), in a tf.function run whole"
    assert ["Exp", "complex128"] in found["ops"] and ["Cast", "int32"] in found["ops"]


MODEL_CASES = '''
    """Test-only cases: one function, a complex128 and a float32 call, a tight and a loose tolerance."""
    import numpy as np
    import pytest
    import tensorflow as tf

    pytestmark = pytest.mark.function("tf.linalg.matmul")


    @pytest.mark.parametrize("dtype", [tf.complex128, tf.float32], ids=lambda d: d.name)
    def test_loose(bench, device, dtype):
        a = np.arange(1, 17, dtype=dtype.as_numpy_dtype).reshape(4, 4) / 16
        with tf.device(device):
            out = bench(tf.linalg.matmul, tf.constant(a), tf.constant(a))
        np.testing.assert_allclose(out.numpy(), a @ a, rtol=1e-2)


    def test_tight(bench, device):
        a = np.arange(1, 17, dtype=np.float32).reshape(4, 4) / 16
        with tf.device(device):
            out = bench(tf.linalg.matmul, tf.constant(a), tf.constant(a))
        np.testing.assert_allclose(out.numpy(), a @ a, rtol=1e-6)
'''


SETUP_CASE = '''
    """Test-only case: a call with a set-up (bench.with_setup), whose effect the check reads."""
    import pytest
    import tensorflow as tf

    pytestmark = pytest.mark.function("tf.identity")


    def test_with_setup(bench, device):
        made = []

        def make(x):
            made.append(x)
            return tf.identity(x)

        with tf.device(device):
            bench.with_setup(made.clear, make, tf.constant([1.0]))
        assert len(made) == 1  # the forecast's reading of the ops left what the timed call made
'''


def test_the_model_forecasts_complex128_to_fail_and_graph_building_to_run(venv_for, tmp_path):
    curated = tmp_path / "curated"
    (curated / "tensorflow").mkdir(parents=True)
    (curated / "tensorflow" / "test_model_cases.py").write_text(textwrap.dedent(MODEL_CASES))
    (curated / "tensorflow" / "test_setup_case.py").write_text(textwrap.dedent(SETUP_CASE))
    shutil.copy(CURATED / "tensorflow" / "test_graph_as_default.py", curated / "tensorflow")
    for name in ("test_concat.py", "_gradients.py"):  # (its CPU gradient check's helper beside it)
        shutil.copy(CURATED / "tensorflow" / name, curated / "tensorflow")
    out = tmp_path / "model.jsonl"
    code, events = harness(venv_for("tf-xla-cpu"), config(out, "tensorflow", curated=curated, device="xla-cpu",
                                                          quick=True))
    assert code == 0, events
    cases = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
    # The CPU backend ran the complex128 matmul; a TPU has no complex128, and the forecast says which op.
    complex128 = cases["test_loose[complex128]"]
    assert complex128["outcome"] == "passed"
    assert complex128["tpu"]["verdict"] == "fails"
    assert "MatMul (complex128): a TPU has no complex128 type" in complex128["tpu"]["reason"]
    assert ["MatMul", "complex128"] in complex128["tpu"]["ops"]
    assert cases["test_loose[float32]"]["tpu"]["verdict"] == "runs"
    # A tolerance tighter than one bfloat16 pass: a numerics risk, not a failure, naming the op.
    tight = cases["test_tight"]
    assert tight["outcome"] == "passed" and tight["tpu"]["verdict"] == "numerics_risk"
    assert "MatMul (float32: one bfloat16 pass)" in tight["tpu"]["reason"]
    assert cases["test_with_setup"]["outcome"] == "passed"
    assert cases["test_with_setup"]["tpu"] == {"verdict": "runs", "reason": None, "ops": [["Identity", "float32"]]}
    graph = [c for name, c in cases.items() if name.startswith("test_graph_as_default")]
    assert graph and all(c["tpu"]["verdict"] == "runs" for c in graph), [c["tpu"] for c in graph]
    # A backward case's ops are its gradient call's (concat's gradient splits, in the case's dtype), not those of
    # the case that ran before it (they were, in random order: a MatMul complex128 forecast a concat to fail).
    backward = {name: c for name, c in cases.items() if c.get("pass") == "backward"}
    assert backward and all(name.startswith("test_concat_backward") for name in backward), sorted(backward)
    for name, c in backward.items():
        dtype = name.split("[")[1].split("-")[0]
        assert c["tpu"]["ops"] and {d for _, d in c["tpu"]["ops"]} == {dtype}, (name, c["tpu"])
        assert not {op for op, _ in c["tpu"]["ops"]} & {"MatMul", "ConcatV2", "Identity"}, (name, c["tpu"])


PLACEMENT_SETTING = '''
    """Test-only case: TensorFlow's soft placement as the case's setup, its timed call and its check see it."""
    import pytest
    import tensorflow as tf

    pytestmark = pytest.mark.function("tf.config.get_soft_device_placement")


    def test_soft_placement(bench, device, record_fields):
        record_fields["soft_in_setup"] = tf.config.get_soft_device_placement()
        record_fields["soft_in_timed_call"] = bench(tf.config.get_soft_device_placement)
        record_fields["soft_in_check"] = tf.config.get_soft_device_placement()
'''


@pytest.mark.parametrize("mode", ["paper", "steady"])
def test_paper_mode_turns_soft_placement_off_around_the_timed_call_only(venv_for, tmp_path, mode):
    curated = tmp_path / "curated"
    (curated / "tensorflow").mkdir(parents=True)
    (curated / "tensorflow" / "test_placement_setting.py").write_text(textwrap.dedent(PLACEMENT_SETTING))
    out = tmp_path / f"{mode}.jsonl"
    code, events = harness(venv_for("tf-cpu"), config(out, "tensorflow", curated=curated, mode=mode, quick=True))
    assert code == 0, events
    (case,) = cases_of(out)
    strict = mode == "paper"
    assert case["outcome"] == "passed"
    assert (case["soft_in_setup"], case["soft_in_timed_call"], case["soft_in_check"]) == (True, not strict, True)
    header = json.loads(out.read_text().splitlines()[0])
    assert header["framework_facts"] == {"soft_device_placement": True, "timed_soft_device_placement": not strict}


BOUNDARY = '''
    """Test-only case: a string tensor handed to the compiled function."""
    import pytest
    import tensorflow as tf

    pytestmark = pytest.mark.function("tf.strings.length")


    def test_length(bench, device):
        with tf.device(device):
            out = bench(tf.strings.length, tf.constant(["ab", "c"]))
        assert out.numpy().tolist() == [2, 1]
'''


def test_what_cannot_be_compiled_whole_is_not_compilable_and_python_values_stay_python(venv_for, tmp_path):
    curated = tmp_path / "curated"
    (curated / "tensorflow").mkdir(parents=True)
    (curated / "tensorflow" / "test_boundary.py").write_text(textwrap.dedent(BOUNDARY))
    for module in ("test_simple_save.py", "test_tensor_get_shape.py"):
        shutil.copy(CURATED / "tensorflow" / module, curated / "tensorflow")
    out = tmp_path / "compiled.jsonl"
    code, events = harness(venv_for("tf-cpu"), config(out, "tensorflow", curated=curated, compiler="compiled",
                                                      quick=True))
    assert code == 0, events
    by_function: dict[str, list[dict]] = {}
    for c in cases_of(out):
        by_function.setdefault(c["function"], []).append(c)
    # TensorFlow 1's graph and session API cannot be traced whole: not compilable at trace, whatever the device.
    saves = by_function["tf.compat.v1.saved_model.simple_save"]
    assert {(c["outcome"], c["stage"], c["category"], c["category_source"]) for c in saves} == \
        {("failed", "trace", "not_compilable", "compiler")}
    # A string crossing into XLA is no missing kernel: XLA holds no strings on any device.
    (length,) = by_function["tf.strings.length"]
    assert (length["outcome"], length["category"]) == ("failed", "not_compilable")
    assert length["message"].startswith("a string value crosses into the compiled function (_Arg)")
    # get_shape returns a TensorShape, a constant of the trace: the check sees it as the eager call returns it (a
    # string tensor's shape alone cannot be asked: the string is the compiled function's argument).
    shapes = by_function["tf.Tensor.get_shape"]
    numbers = [c for c in shapes if "[string-" not in c["case_id"]]
    assert len(numbers) > 20 and {c["outcome"] for c in numbers} == {"passed"}, {c["message"] for c in numbers}
    assert {c["category"] for c in shapes if c not in numbers} == {"not_compilable"}
