"""PyTorch/XLA in the TPU model (torch-xla-cpu, eager: frameworks/torch_tpu.py), with torch_xla 2.9 on this CPU: a case
whose input is a strided view cannot exist on an XLA device and is `not_applicable`, while a real failure beside it
stays a failure, and data_ptr's own answer (0) stays data_ptr failing; complex128 is an element type a TPU lacks; a
tight tolerance on a float32 matmul is a numerics risk. Under the 2023 dtype rules (torch_xla then held float64 as
float32 and complex128 as complex64 on a TPU), a float64 case checked at float64's tolerance fails where it passes
under the current ones, a float64 matmul carries float32's risk, and complex128 is no longer missing."""
from __future__ import annotations

import json
import shutil
import subprocess
import textwrap

import pytest
from conftest import CURATED, cases_of, config, harness, harness_command

from portability_harness.frameworks import xla_quick_compile

pytestmark = [pytest.mark.xla, pytest.mark.slow]

CASES = {
    "test_layout.py": '''
        import pytest
        import torch

        pytestmark = pytest.mark.function("torch.neg")


        def test_neg_of_a_strided_view(bench, device):
            x = torch.arange(12.0).reshape(3, 4).to(device).t()
            assert not x.is_contiguous()  # on an XLA device, a transposed view is a contiguous copy
            assert torch.equal(bench(torch.neg, x).cpu(), -torch.arange(12.0).reshape(3, 4).t())


        def test_neg_wrong_on_purpose(bench, device):
            x = torch.arange(4.0).to(device)
            assert torch.equal(bench(torch.neg, x).cpu(), torch.arange(4.0))  # a real failure
    ''',
    "test_data_ptr.py": '''
        import pytest
        import torch

        pytestmark = pytest.mark.function("torch.Tensor.data_ptr")


        def test_data_ptr_of_a_clone(bench, device):
            base = torch.ones(4, device=device)
            copy = base.clone()
            assert bench(copy.data_ptr) != base.data_ptr()
    ''',
    "test_dtypes.py": '''
        import pytest
        import torch

        pytestmark = pytest.mark.function("torch.matmul")


        def _inputs(dtype, device):
            a = torch.linspace(-1.0, 1.0, 64, dtype=torch.float64).reshape(8, 8).exp()
            return a, a.to(device=device, dtype=dtype)


        def test_exp_float64_at_its_own_tolerance(bench, device):
            host, x = _inputs(torch.float64, device)
            torch.testing.assert_close(bench(torch.exp, x).cpu(), host.exp(), rtol=1e-12, atol=0)


        @pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
        def test_matmul_tight(bench, device, dtype):
            host, x = _inputs(dtype, device)
            out = bench(torch.matmul, x, x)
            assert out.dtype == dtype
            torch.testing.assert_close(out.cpu().double(), host @ host, rtol=1e-5, atol=1e-5)


        def test_complex128(bench, device):
            z = torch.tensor([1j, 0.5 + 0.5j], dtype=torch.complex128)
            out = bench(torch.exp, z.to(device))
            # read back in parts: torch_xla 2.9 on the CPU drops the imaginary part of a complex128 tensor it returns
            torch.testing.assert_close(torch.complex(out.real.cpu(), out.imag.cpu()), z.exp(), rtol=1e-6, atol=1e-6)
    ''',
}


@pytest.fixture(scope="module")
def runs(venv_for, tmp_path_factory) -> dict:
    """Each case's record by its test name, from one run of the modules per dtype rule ("current", "2023")."""
    root = tmp_path_factory.mktemp("tpu-torch")
    curated = root / "curated"
    (curated / "torch").mkdir(parents=True)
    for name, text in CASES.items():
        (curated / "torch" / name).write_text(textwrap.dedent(text))
    found = {}
    for rules in ("current", "2023"):
        out = root / f"torch-xla-cpu-{rules}.jsonl"
        code, events = harness(venv_for("torch-xla-cpu"), config(out, "torch", curated=curated, device="xla-cpu",
                                                                  quick=True, tpu_dtypes=rules), timeout=1700)
        assert code == 0, events
        found[rules] = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
        found[f"{rules} header"] = json.loads(out.read_text().splitlines()[0])
    return found


def test_the_model_cell_compiles_at_xlas_defaults(runs):
    # torch_xla 2.9 gets no quick-compile flags (frameworks/xla_quick_compile.py); it sets fast-math off itself.
    flags = runs["current header"]["framework_facts"]["xla_flags"].split()
    assert flags == ["--xla_cpu_enable_fast_math=false"], flags


def test_a_strided_input_is_not_applicable_and_a_real_failure_beside_it_is_not(runs):
    strided, wrong = runs["current"]["test_neg_of_a_strided_view"], runs["current"]["test_neg_wrong_on_purpose"]
    assert strided["outcome"] == "not_applicable" and strided["tpu"]["verdict"] == "not_applicable"
    assert "is_contiguous" in strided["message"] and "XLA tensor" in strided["message"], strided["message"]
    assert wrong["outcome"] == "failed" and wrong["tpu"]["verdict"] == "fails"


def test_data_ptr_answering_0_is_data_ptr_failing_not_a_layout_the_case_needs(runs):
    case = runs["current"]["test_data_ptr_of_a_clone"]
    assert case["outcome"] == "failed" and case["tpu"]["verdict"] == "fails", case


def test_a_float32_matmul_at_a_tight_tolerance_is_a_numerics_risk_and_float64_is_not(runs):
    f32, f64 = runs["current"]["test_matmul_tight[float32]"], runs["current"]["test_matmul_tight[float64]"]
    assert f32["outcome"] == f64["outcome"] == "passed"
    assert f32["tpu"]["verdict"] == "numerics_risk" and "aten::mm (float32: one bfloat16 pass)" in f32["tpu"]["reason"]
    assert f64["tpu"]["verdict"] == "runs" and ["aten::mm", "float64"] in f64["tpu"]["ops"], f64["tpu"]


def test_complex128_is_missing_on_a_tpu_now_and_was_held_as_complex64_in_2023(runs):
    now, then = runs["current"]["test_complex128"], runs["2023"]["test_complex128"]
    assert now["outcome"] == "passed" and now["tpu"]["verdict"] == "fails" and "aten::exp (complex128): no complex128" in now["tpu"]["reason"]
    assert then["outcome"] == "passed" and then["tpu"]["verdict"] == "runs"
    assert ["aten::exp", "complex64"] in then["tpu"]["ops"], then["tpu"]


def test_under_2023_rules_a_float64_case_at_float64_tolerance_fails_where_it_passes_now(runs):
    now, then = runs["current"]["test_exp_float64_at_its_own_tolerance"], runs["2023"]["test_exp_float64_at_its_own_tolerance"]
    assert now["outcome"] == "passed" and now["tpu"]["verdict"] == "runs"
    assert then["outcome"] == "failed" and then["tpu"]["verdict"] == "fails"
    assert "not close" in then["message"], then["message"]
    # a float64 matmul was a float32 one on a TPU then: float32's risk, though the CPU computed in float64
    matmul = runs["2023"]["test_matmul_tight[float64]"]
    assert matmul["tpu"]["verdict"] == "numerics_risk" and "aten::mm (float32" in matmul["tpu"]["reason"], matmul


def test_the_quick_compile_flags_change_no_gelu_verdict(venv_for, tmp_path):
    # XLA's legacy emitters rounded GELU's far tails to 0 on torch_xla 2.9, where XLA's default gives -3.6e-6 and
    # test_gelu_special_values fails its check: whatever flags torch_xla is given keep every case's verdict.
    curated = tmp_path / "curated"
    (curated / "torch").mkdir(parents=True)
    for name in ("test_gelu.py", "_gradients.py", "_support.py", "_transformer_reference.py"):
        shutil.copy(CURATED / "torch" / name, curated / "torch")
    env = venv_for("torch-xla-cpu")
    found = {}
    for way, extra in (("quick", {}), ("default", {xla_quick_compile.OFF: "0"})):
        out = tmp_path / f"{way}.jsonl"
        cfg = config(out, "torch", curated=curated, device="xla-cpu", quick=True)
        proc = subprocess.run(harness_command(env, cfg, tmp_path), cwd=tmp_path, env=dict(env.variables(), **extra),
                              capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, proc.stderr[-3000:]
        found[way] = {c["case_id"]: (c["outcome"], c["category"], c["tpu"]["verdict"]) for c in cases_of(out)}
    assert found["quick"] == found["default"]
    assert found["default"]["torch/test_gelu.py::test_gelu_special_values"][2] == "fails"  # its check, at XLA's own
