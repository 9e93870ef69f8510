"""JAX in the TPU model (device kind xla-cpu, eager: frameworks/jax_tpu.py), with the real JAX on this CPU: a primitive
JAX cannot lower for a TPU makes the case a forecast failure naming it though the CPU ran it; a plain elementwise
case runs; a tight tolerance on a float32 matmul is a numerics risk (a TPU's default matmul is one bfloat16 pass)
where the same case in float64 is not; complex128 is a dtype a TPU lacks; a call that reads a value into Python
cannot be traced and still has its primitives listed."""
from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import cases_of, config, harness

from portability_harness.frameworks import xla_quick_compile

pytestmark = pytest.mark.slow

CASES = {
    "test_eig.py": '''
        import jax.numpy as jnp
        import numpy as np
        import pytest

        pytestmark = pytest.mark.function("jax.numpy.linalg.eig")


        def test_eig(bench, device):
            a = np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)
            w, _ = bench(jnp.linalg.eig, a)
            np.testing.assert_allclose(np.sort(np.asarray(w).real), [2.0, 3.0], rtol=1e-5)
    ''',
    "test_add.py": '''
        import jax.numpy as jnp
        import numpy as np
        import pytest

        pytestmark = pytest.mark.function("jax.numpy.add")


        def test_add(bench, device):
            x = np.arange(8, dtype=np.float32)
            np.testing.assert_array_equal(np.asarray(bench(jnp.add, x, x)), 2 * x)
    ''',
    "test_matmul.py": '''
        import jax
        import jax.numpy as jnp
        import numpy as np
        import pytest

        pytestmark = pytest.mark.function("jax.numpy.matmul")


        @pytest.mark.parametrize("dtype", ["float32", "float64"])
        def test_matmul_tight(bench, device, dtype):
            jax.config.update("jax_enable_x64", dtype == "float64")
            try:
                a = np.random.default_rng(0).standard_normal((16, 16)).astype(dtype)
                out = bench(jnp.matmul, a, a)
                assert out.dtype == np.dtype(dtype)
                np.testing.assert_allclose(np.asarray(out), a.astype(np.float64) @ a, rtol=1e-4, atol=1e-4)
            finally:
                jax.config.update("jax_enable_x64", False)
    ''',
    "test_exp.py": '''
        import jax
        import jax.numpy as jnp
        import numpy as np
        import pytest

        pytestmark = pytest.mark.function("jax.numpy.exp")


        def test_exp_complex128(bench, device):
            jax.config.update("jax_enable_x64", True)
            try:
                z = np.array([1j, 0.5 + 0.5j], np.complex128)
                np.testing.assert_allclose(np.asarray(bench(jnp.exp, z)), np.exp(z), rtol=1e-12)
            finally:
                jax.config.update("jax_enable_x64", False)


        def test_nextafter_float64(bench, device):
            # not exp's, but the other dtype rule: a 64-bit bitcast, which a TPU's x64 emulation cannot rewrite
            jax.config.update("jax_enable_x64", True)
            try:
                one = np.ones(2, np.float64)
                assert (np.asarray(bench(jnp.nextafter, one, 2 * one)) > 1).all()
            finally:
                jax.config.update("jax_enable_x64", False)


        def test_exp_in_a_loop(bench, device):
            # traced, the loop is one `while` primitive: exp is in its body's jaxpr
            step = lambda c: (c[0] + 1, jnp.exp(c[1]) / 4)
            x = np.linspace(0.0, 1.0, 4, dtype=np.float32)
            out = bench(lambda v: jax.lax.while_loop(lambda c: c[0] < 2, step, (0, v))[1], x)
            np.testing.assert_allclose(np.asarray(out), np.exp(np.exp(x) / 4) / 4, rtol=1e-5)


        def test_exp_read_into_python(bench, device):
            # float() needs the value: the call cannot be traced, and runs once more with its primitives recorded
            x = np.linspace(0.0, 1.0, 4, dtype=np.float32)
            assert abs(bench(lambda v: float(jnp.sum(jnp.exp(v))), x) - float(np.exp(x).sum())) < 1e-5
    ''',
}


@pytest.fixture(scope="module")
def model_run(venv_for, tmp_path_factory) -> Path:
    """The records of one run of the four modules in the model cell."""
    curated = tmp_path_factory.mktemp("tpu-jax") / "curated"
    (curated / "jax").mkdir(parents=True)
    for name, text in CASES.items():
        (curated / "jax" / name).write_text(textwrap.dedent(text))
    out = curated.parent / "jax-xla-cpu.jsonl"
    code, events = harness(venv_for("jax-xla-cpu"), config(out, "jax", curated=curated, device="xla-cpu",
                                                           quick=True))
    assert code == 0, events
    return out


@pytest.fixture(scope="module")
def forecast(model_run) -> dict:
    """Each case's `tpu` by its test name."""
    return {c["case_id"].split("::")[1]: c for c in cases_of(model_run)}


def test_the_model_cell_compiles_with_xlas_quick_compile_flags(model_run, forecast):
    # This JAX (0.10) is of a release the flags were verified on; the header names what the worker ran with.
    header = json.loads(model_run.read_text().splitlines()[0])
    assert header["framework_facts"]["xla_flags"] == " ".join(xla_quick_compile.VERIFIED["jax"].flags), header
    assert forecast["test_add"]["outcome"] == "passed"


def test_eig_runs_on_the_cpu_and_is_forecast_to_fail_naming_the_primitive(forecast):
    case = forecast["test_eig"]
    assert case["outcome"] == "passed"
    assert case["tpu"]["verdict"] == "fails"
    assert "eig (" in case["tpu"]["reason"] and "no TPU lowering" in case["tpu"]["reason"], case["tpu"]
    assert ["eig", "float32"] in case["tpu"]["ops"]


def test_an_elementwise_case_runs_with_its_primitive_listed(forecast):
    case = forecast["test_add"]
    assert case["tpu"] == {"verdict": "runs", "reason": None, "ops": [["add", "float32"]]}


def test_a_tight_tolerance_on_a_float32_matmul_is_a_numerics_risk_and_in_float64_it_is_not(forecast):
    f32, f64 = forecast["test_matmul_tight[float32]"], forecast["test_matmul_tight[float64]"]
    assert f32["outcome"] == f64["outcome"] == "passed"
    assert f32["tpu"]["verdict"] == "numerics_risk", f32["tpu"]
    assert "dot_general (float32: one bfloat16 pass)" in f32["tpu"]["reason"]
    assert "Not equal to tolerance" in f32["tpu"]["reason"]  # what the case's own check said
    assert f64["tpu"]["verdict"] == "runs" and ["dot_general", "float64"] in f64["tpu"]["ops"], f64["tpu"]


def test_complex128_is_a_dtype_a_tpu_lacks(forecast):
    case = forecast["test_exp_complex128"]
    assert case["outcome"] == "passed" and case["tpu"]["verdict"] == "fails"
    assert "exp (complex128): no complex128 on a TPU" in case["tpu"]["reason"], case["tpu"]


def test_float64_is_emulated_on_a_tpu_but_not_a_64_bit_bitcast(forecast):
    case = forecast["test_nextafter_float64"]
    assert case["tpu"]["verdict"] == "fails" and "nextafter (float64)" in case["tpu"]["reason"], case["tpu"]
    assert "64-bit bitcast" in case["tpu"]["reason"]


def test_the_primitives_inside_a_loop_are_listed(forecast):
    ops = {tuple(op) for op in forecast["test_exp_in_a_loop"]["tpu"]["ops"]}
    assert {("while", "float32"), ("exp", "float32")} <= ops, ops


def test_a_call_that_cannot_be_traced_has_its_primitives_recorded_as_they_run(forecast):
    case = forecast["test_exp_read_into_python"]
    assert case["outcome"] == "passed"
    assert {("exp", "float32"), ("reduce_sum", "float32")} <= {tuple(op) for op in case["tpu"]["ops"]}, case["tpu"]


def test_the_op_classes_name_primitives_of_the_installed_jax(venv_for):
    """A misspelt primitive in the matmul or transcendental classes would never match: each is one JAX lowers."""
    env = venv_for("jax-xla-cpu")
    code = ("from portability_harness.frameworks import jax_tpu\n"
            "from portability_harness.declared.jax import lowered_platforms\n"
            "known = lowered_platforms()\n"
            "print([n for n in jax_tpu.MATMUL_OPS + jax_tpu.TRANSCENDENTAL_OPS if n not in known])\n")
    proc = subprocess.run([env.python, "-c", code], env=env.variables(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"
