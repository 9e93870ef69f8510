"""SIGKILL the harness mid-run, resume, and the results file holds each case exactly once."""
from __future__ import annotations

import dataclasses
import json
import signal
import subprocess

from conftest import FAULT_CASES, cases_of, config, harness, harness_command, steady_tickets, wait_for
from portability_harness.records import store


def test_kill_then_resume_records_each_case_once(venv_for, tmp_path):
    venv = venv_for("torch-cpu")
    out = tmp_path / "steady.jsonl"
    cfg = config(out, "torch", FAULT_CASES, cases=[str(FAULT_CASES / "torch" / "test_steady.py")], quick=True)
    proc = subprocess.Popen(harness_command(venv, cfg, tmp_path), cwd=tmp_path,
                            env=dict(venv.variables(), **steady_tickets(tmp_path / "tickets", 4)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: len(cases_of(out)) >= 4, "the records of the 4 cases let run", proc=proc)
    proc.send_signal(signal.SIGKILL)  # the fifth waits for a ticket: the kill lands mid-run
    proc.wait()
    before = cases_of(out)
    assert len(before) == 4, [c["case_id"] for c in before]
    # A kill during a write leaves a partial line: simulate one.
    with open(out, "a") as f:
        f.write('{"record": "case", "function": "torch.mul", "case_')
    assert store.read(str(out)).torn is not None

    rc, events = harness(venv, cfg)
    assert rc == 2  # without --resume an existing file is refused
    assert any(e["event"] == "error" and "--resume" in e["message"] for e in events)

    rc, events = harness(venv, dataclasses.replace(cfg, resume=True))
    assert rc == 0, events
    assert any(e["event"] == "warning" and "torn" in e["message"] for e in events)
    contents = store.read(str(out))
    assert contents.torn is None
    ids = [c["case_id"] for c in contents.cases]
    assert len(ids) == len(set(ids)) == 12
    assert all(c["outcome"] == "passed" for c in contents.cases)
    assert ids[: len(before)] == [c["case_id"] for c in before]  # earlier records kept, in place
    assert sum(r["record"] == "header" for r in contents.records) == 1
    assert contents.footer["counts"]["passed"] == 12
    # every line is a whole JSON record
    for line in out.read_text().splitlines():
        json.loads(line)
