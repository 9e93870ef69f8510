"""A case that segfaults, aborts, exits, raises MemoryError or hangs is recorded with its category,
the worker is replaced, and every normal case before and after it still passes."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import FAULT_CASES, cases_of, config, harness
from portability_harness.protocol import log_path
from portability_harness.records import store

EXPECTED = {
    "test_segfault": "crash",
    "test_abort": "crash",
    "test_os_exit": "crash",
    "test_memory_error": "memory",
    "test_hang": "timeout",
}


def fault_run(env, out, framework: str, module: str, **fields) -> tuple[list[dict], dict[str, dict]]:
    """Run one module of tests/fault_cases/<framework>/ in a real cell; its events and its cases by test name."""
    rc, events = harness(env, config(out, framework, FAULT_CASES, quick=True,
                                     cases=[str(FAULT_CASES / framework / module)], **fields))
    assert rc == 0, events
    return events, {c["case_id"].split("::")[1]: c for c in cases_of(out)}


def test_faults_are_recorded_and_the_run_goes_on(venv_for, tmp_path):
    out = tmp_path / "faults.jsonl"
    events, cases = fault_run(venv_for("torch-cpu"), out, "torch", "test_faults.py", timeout_s=3)
    assert len(cases) == 11  # each case exactly once
    for name, category in EXPECTED.items():
        assert cases[name]["outcome"] == "failed", cases[name]
        assert cases[name]["category"] == category, cases[name]
    normal = [c for n, c in cases.items() if n.startswith("test_normal")]
    assert len(normal) == 6
    assert all(c["outcome"] == "passed" and c["warm_median_s"] > 0 for c in normal), normal
    # segfault, abort, os._exit and the hang each cost one worker; MemoryError is an ordinary exception
    assert sum(e["event"] == "restart" for e in events) == 4
    assert "SIGSEGV" in cases["test_segfault"]["message"]
    assert "SIGABRT" in cases["test_abort"]["message"]
    assert "status 7" in cases["test_os_exit"]["message"]
    # What a case wrote before it killed its worker is in the log (the worker does not capture cases' output).
    log = Path(log_path(str(out))).read_text()
    assert "test_segfault: about to read address 0" in log
    # Before the hung worker was killed, its stacks went to the log: the main thread's ends in the hanging case.
    assert re.search(r'File ".*test_faults\.py", line \d+ in test_hang', log), log[-3000:]


def test_after_a_sticky_device_error_the_next_case_runs_in_a_new_worker(venv_for, tmp_path):
    out = tmp_path / "sticky.jsonl"
    events, cases = fault_run(venv_for("torch-cpu"), out, "torch", "test_sticky.py")
    assert [cases[n]["outcome"] for n in ("test_normal_before", "test_sticky_error", "test_normal_after")] == \
        ["passed", "failed", "passed"]
    assert "illegal memory access" in cases["test_sticky_error"]["message"]  # the case keeps its own error
    assert cases["test_normal_before"]["pid"] == cases["test_sticky_error"]["pid"] != cases["test_normal_after"]["pid"]
    (restart,) = [e for e in events if e["event"] == "restart"]
    assert "sticky device error" in restart["reason"]
    # The header says which arithmetic was in force (strict by default: no TF32) and what the build supports.
    header = store.read(str(out)).header
    assert header["numerics"] == {"numerics": "strict", "matmul_allow_tf32": False, "cudnn_allow_tf32": False}
    assert header["build"]["label"].startswith("PyTorch ") and header["build"]["cuda_build"] is False


def test_a_failed_call_lets_go_of_what_it_made_before_its_case_ends(venv_for, tmp_path):
    out = tmp_path / "release.jsonl"
    events, cases = fault_run(venv_for("torch-cpu"), out, "torch", "test_release.py")
    case = cases["test_a_call_fails_holding_its_output"]
    assert case["outcome"] == "failed" and "the call failed after making its output" in case["message"], case
    assert case["released"] is True, case  # held by the failure's frames, it would live on into the next case
    assert not any(e["event"] == "restart" for e in events), events


def test_a_case_that_meets_an_error_an_earlier_case_left_runs_again_first_in_a_new_worker(venv_for, tmp_path):
    out = tmp_path / "inherited.jsonl"
    events, cases = fault_run(venv_for("torch-cpu"), out, "torch", "test_inherited.py")
    # Not in the order run: the first worker met the inherited error after test_normal_1 and left it unrecorded.
    order = sorted(cases, key=lambda name: cases[name]["began_at"])
    assert order == ["test_normal_1", "test_inherited_error", "test_normal_2", "test_normal_3"], order
    assert {c["outcome"] for c in cases.values()} == {"passed"}, cases  # each once, its own outcome
    assert cases["test_normal_1"]["pid"] != cases["test_inherited_error"]["pid"] == cases["test_normal_2"]["pid"]
    (restart,) = [e for e in events if e["event"] == "restart"]
    assert "an earlier case left" in restart["reason"], restart
    assert len(store.read(str(out)).cases) == 4


def test_reading_declared_support_in_a_worker_leaves_jax_as_it_was(venv_for, tmp_path):
    out = tmp_path / "state.jsonl"
    _, cases = fault_run(venv_for("jax-cpu"), out, "jax", "test_state.py")
    assert cases["test_a_support_failure"]["category"] == "not_implemented"
    assert cases["test_x64_is_still_off_after_the_read"]["outcome"] == "passed", cases["test_x64_is_still_off_after_the_read"]
    assert store.read(str(out)).header["numerics"]["default_matmul_precision"] == "highest"
