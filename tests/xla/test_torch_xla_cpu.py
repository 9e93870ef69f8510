"""torch_xla 2.9 on the CPU (PJRT_DEVICE=CPU): the XLA path PyTorch takes to a TPU, measured here. An op torch_xla
has no lowering for runs on the CPU through its aten fallback; the case is `fallback` with that op's name, never a
pass. Needs the torch-xla-cpu venv (torch 2.9.0 and torch_xla 2.9.0, about 4 GB), so `make test-xla` runs it and
`make test` does not."""
from __future__ import annotations

import pytest
from conftest import cases_of, config, harness

pytestmark = [pytest.mark.xla, pytest.mark.slow]


@pytest.mark.parametrize("compiler", ["eager", "compiled"])
def test_an_op_xla_cannot_lower_runs_on_the_cpu_and_is_a_fallback_with_its_name(venv_for, tmp_path, compiler):
    # ormqr (a Householder product) has no XLA lowering in torch_xla: it runs through aten on the CPU.
    out = tmp_path / f"xla-{compiler}.jsonl"
    code, events = harness(venv_for("torch-xla-cpu"), config(out, "torch", device="xla-cpu", quick=True,
                                                             compiler=compiler,
                                                             functions=["torch.ormqr", "torch.argsort"]))
    assert code == 0, events
    cases = cases_of(out)
    ormqr = [c for c in cases if c["function"] == "torch.ormqr" and c["outcome"] != "skipped"]
    assert ormqr and any(c["outcome"] == "fallback" and "aten::ormqr" in c["fallback"]["ops"] for c in ormqr), ormqr
    assert all(c["outcome"] != "passed" or not c["fallback"] for c in cases)  # a fallback is never a pass
    argsort = [c for c in cases if c["function"] == "torch.argsort"]
    assert argsort and not any((c["fallback"] or {}).get("ops") and c["outcome"] == "passed" for c in argsort)


FAILED_LOWERING = '''
    import os

    import pytest
    import torch

    pytestmark = pytest.mark.function("torch.linalg.matrix_rank")


    def test_complex(bench, device, record_fields):
        record_fields["pid"] = os.getpid()
        a = torch.randn(3, 3, dtype=torch.complex64, generator=torch.Generator().manual_seed(0)).to(device)
        assert int(bench(torch.linalg.matrix_rank, a).cpu()) == 3


    @pytest.mark.parametrize("n", range(6))
    def test_real_after(bench, device, record_fields, n):
        record_fields["pid"] = os.getpid()
        a = torch.eye(3 + n).to(device)
        assert int(bench(torch.linalg.matrix_rank, a).cpu()) == 3 + n
'''


@pytest.mark.timeout(1800)
def test_a_graph_torch_xla_cannot_lower_fails_its_own_case_alone(venv_for, tmp_path):
    # linalg.matrix_rank on complex inputs: torch_xla 2.9 (CPU) cannot lower the graph's svd. While that graph's output
    # lived, every later sync of the process failed with "Check failed: tensor_data": the sync after the case's call
    # recorded that instead of the lowering error, and the worker was replaced (19 times a torch-xla-cpu repeat).
    # The harness lets a failed call's frames go: the case keeps torch_xla's own error, and the same worker runs the
    # cases after it, which pass.
    import textwrap

    curated = tmp_path / "curated"
    (curated / "torch").mkdir(parents=True)
    (curated / "torch" / "test_failed_lowering.py").write_text(textwrap.dedent(FAILED_LOWERING))
    out = tmp_path / "lowering.jsonl"
    code, events = harness(venv_for("torch-xla-cpu"), config(out, "torch", device="xla-cpu", quick=True,
                                                             curated=curated), timeout=1700)
    assert code == 0, events
    cases = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
    complex_case = cases["test_complex"]
    assert complex_case["outcome"] == "failed", complex_case
    assert "Error while lowering" in complex_case["message"] and "aten::svd" in complex_case["message"], complex_case
    assert not any(e["event"] == "restart" for e in events), events
    later = [c for name, c in cases.items() if name.startswith("test_real_after")]
    assert len(later) == 6 and {c["outcome"] for c in later} == {"passed"}, later
    assert {c["pid"] for c in later} == {complex_case["pid"]}


PROBE_THEN_LOWERING = '''
    import copy
    import os

    import pytest
    import torch

    pytestmark = pytest.mark.function("torch.nn.Linear")


    def test_risk_first(bench, device, record_fields):
        # A float32 matmul checked at assert_close's defaults: the TPU model's probe moves its output by a bfloat16
        # pass and the check refuses it (numerics risk); the moved output's autograd graph holds unrun tensors.
        record_fields["pid"] = os.getpid()
        torch.manual_seed(0)
        linear, x = torch.nn.Linear(64, 64), torch.randn(8, 64)
        expected = linear(x).detach()
        out = bench(copy.deepcopy(linear).to(device), x.to(device))
        torch.testing.assert_close(out.detach().cpu(), expected)


    def test_complex(bench, device, record_fields):
        record_fields["pid"] = os.getpid()
        a = torch.randn(3, 3, dtype=torch.complex64, generator=torch.Generator().manual_seed(0)).to(device)
        assert int(bench(torch.linalg.matrix_rank, a).cpu()) == 3
'''


@pytest.mark.timeout(1800)
def test_what_the_numerics_probe_leaves_unrun_is_run_before_the_next_case(venv_for, tmp_path):
    # The numerics probe ran a case again with its output moved and left what its check did not read unrun. The next
    # case's first sync took it in: timed with that case, and where that case's graph failed to lower (complex svd),
    # left without data, so the sync after the call failed with "Check failed: tensor_data" and the case was run again
    # in a new worker (twice a torch-xla-cpu repeat, each after a conv2d case's probe). The harness syncs after the
    # probe: the case keeps torch_xla's own error in the same worker.
    import textwrap

    from portability_harness.run_order import spread

    curated = tmp_path / "curated"
    (curated / "torch").mkdir(parents=True)
    (curated / "torch" / "test_probe_leftover.py").write_text(textwrap.dedent(PROBE_THEN_LOWERING))
    # The run order the worker takes: the probe's case first.
    order = spread(["test_complex", "test_risk_first"], lambda name: f"torch/test_probe_leftover.py::{name}")
    assert order == ["test_risk_first", "test_complex"]
    out = tmp_path / "probe.jsonl"
    code, events = harness(venv_for("torch-xla-cpu"), config(out, "torch", device="xla-cpu", quick=True,
                                                             curated=curated), timeout=1700)
    assert code == 0, events
    cases = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
    risk, complex_case = cases["test_risk_first"], cases["test_complex"]
    assert risk["outcome"] == "passed" and risk["tpu"]["verdict"] == "numerics_risk", risk
    assert "Error while lowering" in complex_case["message"] and "aten::svd" in complex_case["message"], complex_case
    assert not any(e["event"] == "restart" for e in events), events
    assert complex_case["pid"] == risk["pid"]


def test_with_torch_xla_installed_pytorch_declares_its_tpu_ops(tmp_path):
    """`runner declared` in the torch-xla-cpu environment reads which ops torch_xla lowers: ormqr, which the test
    above sees run on the CPU through the fallback, is not declared on tpu; sum is; a Python-level OpInfo (the
    masked reductions) is unknowable there. Where torch_xla is absent (torch-cpu), tpu stays not known."""
    import os
    import subprocess
    import sys

    from conftest import ROOT
    from portability_harness import declared

    proc = subprocess.run([sys.executable, "-m", "runner.cli", "declared", "--framework", "torch", "--image",
                           "torch-xla-cpu", "--backend", "local", "--out", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1800, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = tmp_path.glob("torch-*.json.gz")
    table = declared.load(str(path))
    assert table["devices"]["tpu"]["known"] and "torch_xla" in table["devices"]["tpu"]["note"]
    assert declared.declared(table, "ormqr", "tpu", "float32") == "op_not_declared"
    assert declared.declared(table, "sum", "tpu", "float32") == "declared"
    assert declared.declared(table, "masked.amax", "tpu", "float32") == "unknown"
    assert 300 < table["coverage"]["tpu"]["ops"] < table["coverage"]["cpu"]["ops"]


def test_a_declared_only_sweep_reads_each_torch_release_with_the_torch_xla_of_its_line(tmp_path):
    """`runner sweep --device xla-cpu --no-cases`: torch 2.9.0's table is read where torch_xla 2.9.0 is installed
    (tpu known); torch 2.13.0 has no torch_xla of its line (in PyPI's answers of 2026-11-27 that tests/conftest.py
    reads), so its table comes from the CPU image (tpu not known) and sweep.json says why. A run into the same
    folder keeps both tables (nothing left to tell)."""
    import json
    import os
    import subprocess
    import sys

    from conftest import ROOT
    from portability_harness import declared

    command = [sys.executable, "-m", "runner.cli", "sweep", "--framework", "torch", "--device", "xla-cpu",
               "--releases", "2.9.0,2.13.0", "--no-cases", "--out", str(tmp_path)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tables = {v: declared.load(str(tmp_path / "declared" / f"torch-{v}.json.gz")) for v in ("2.9.0", "2.13.0")}
    assert tables["2.9.0"]["devices"]["tpu"]["known"] and tables["2.9.0"]["coverage"]["tpu"]["ops"] > 300
    assert not tables["2.13.0"]["devices"]["tpu"]["known"] and tables["2.13.0"]["coverage"]["cpu"]["ops"] > 600
    record = {r["version"]: r for r in json.loads((tmp_path / "sweep.json").read_text())["releases"]}
    assert record["2.9.0"]["packages"]["torch_xla"] == "2.9.0"
    assert "no torch_xla release of the 2.13 line" in record["2.13.0"]["unavailable"]["torch-xla-cpu"]
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "declared").glob("*.json.gz")}
    again = subprocess.run([*command, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 0 and "declared support of" not in again.stdout, again.stdout[-2000:]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_the_census_draws_each_sample_for_the_xla_device_as_torch_xla_tests_do(tmp_path):
    """The PyTorch census asks the OpInfo for the XLA device's own samples: tensor_split's index tensor stays on the
    CPU (the op requires it there) and as_strided's partial view keeps its storage offset, so both run; samples
    drawn on the CPU and moved to the device failed both, as errors of the op. linalg.lstsq's sample generator
    itself fails on XLA (a bmm it calls): its samples are drawn on the CPU and moved, and the record says why."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    proc = subprocess.run([sys.executable, "-m", "runner.cli", "census", "--framework", "torch", "--image",
                           "torch-xla-cpu", "--backend", "local", "--quick", "--dtypes", "float32",
                           "--ops", "tensor_split", "--ops", "as_strided", "--ops", "linalg.lstsq",
                           "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    cases = {c["case_id"]: c for path in tmp_path.glob("*.jsonl") for c in cases_of(path)}
    for case_id in ("census/torch/tensor_split/float32", "census/torch/as_strided:partial_views/float32"):
        assert cases[case_id]["outcome"] == "passed" and cases[case_id]["samples_run"] > 0, cases[case_id]
        assert "samples_moved_from_cpu" not in cases[case_id]
    lstsq = cases["census/torch/linalg.lstsq/float32"]
    assert lstsq["outcome"] in ("passed", "fallback", "failed") and lstsq["samples_run"] > 0, lstsq
    assert "sample generator failed" in lstsq["samples_moved_from_cpu"], lstsq
