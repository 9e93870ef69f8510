"""A case that segfaults, aborts, exits, raises MemoryError or hangs is recorded with its category,
the worker is replaced, and every normal case before and after it still passes."""
from __future__ import annotations

from conftest import FAULT_CASES, cases_of, config, harness

EXPECTED = {
    "test_segfault": "crash",
    "test_abort": "crash",
    "test_os_exit": "crash",
    "test_memory_error": "memory",
    "test_hang": "timeout",
}


def test_faults_are_recorded_and_the_run_goes_on(venv_for, tmp_path):
    out = tmp_path / "faults.jsonl"
    rc, events = harness(venv_for("torch-cpu"), config(out, "torch", FAULT_CASES, quick=True, timeout_s=3,
                                                       cases=[str(FAULT_CASES / "torch" / "test_faults.py")]))
    assert rc == 0, events
    cases = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
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
