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


def test_after_torch_xla_loses_its_tensor_data_the_next_cases_run_in_a_new_worker(venv_for, tmp_path):
    # linalg.matrix_rank on complex inputs leaves torch_xla 2.9 (CPU) failing every later op with "Check failed:
    # tensor_data" until the process ends: that case keeps its error, the worker is replaced, the rest pass.
    out = tmp_path / "sticky.jsonl"
    code, events = harness(venv_for("torch-xla-cpu"), config(out, "torch", device="xla-cpu", quick=True,
                                                             functions=["torch.linalg.matrix_rank", "torch.argsort"]),
                           timeout=1800)  # torch_xla compiles a graph per case: minutes on a busy 2-core machine
    assert code == 0, events
    cases = cases_of(out)
    lost = [c for c in cases if "tensor_data" in (c["message"] or "")]
    assert lost and all(c["function"] == "torch.linalg.matrix_rank" and "complex" in c["case_id"] for c in lost)
    assert any(e["event"] == "restart" for e in events)
    assert {c["outcome"] for c in cases if c["function"] == "torch.argsort"} == {"passed"}
