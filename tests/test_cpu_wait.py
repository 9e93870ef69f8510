"""A case's `cpu_wait_s`: how long its worker waited for its CPU (harness cpu_wait.py), which a process on that CPU
raises. The calibration timed before the case is no test of it: beside the same loop it read 0.94-1.0 times its
alone median on one host and 1.49 times on another (docs/method.md), so only the waits are asserted here."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys

import pytest
from conftest import config, harness_command

from portability_harness.records import store

from runner.report import latency_tables, load

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/thread-self/schedstat"), reason="Linux's schedstat only")
BURN = "x = 0\nwhile True:\n    x += 1\n"


def _run(env, tmp_path, name: str, cpu: int) -> list[dict]:
    """torch.log1p's cases, steady, the harness (and so its worker) on the one CPU `cpu`."""
    cfg = config(tmp_path / f"{name}.jsonl", "torch", functions=["torch.log1p"])
    command = ["taskset", "-c", str(cpu), *harness_command(env, cfg, tmp_path)]
    done = subprocess.run(command, cwd=tmp_path, env=env.variables(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return [c for c in store.read(cfg.out).cases if c["outcome"] == "passed"]


def _shares(cases: list[dict]) -> list[float]:
    return [c["cpu_wait_s"] / c["duration_s"] for c in cases if c["duration_s"] > 0.002]


def test_a_process_on_the_workers_cpu_shows_in_its_cases_waits(venv_for, tmp_path):
    env = venv_for("torch-cpu")
    cpu = max(os.sched_getaffinity(0))
    alone = _run(env, tmp_path, "alone", cpu)
    burner = subprocess.Popen(["taskset", "-c", str(cpu), sys.executable, "-c", BURN])
    try:
        beside = _run(env, tmp_path, "beside", cpu)
    finally:
        burner.kill()
        burner.wait()
    assert alone and beside and all("cpu_wait_s" in c for c in alone + beside)
    assert len(_shares(alone)) >= 10 and len(_shares(beside)) >= 10, (alone, beside)
    # Alone, a case waits for its CPU a few percent of its wall at most; beside a CPU-bound loop, about half.
    assert statistics.median(_shares(alone)) < 0.1, _shares(alone)
    assert statistics.median(_shares(beside)) > 0.3, _shares(beside)
    # The report lists the repeat that waited, and only it
    listed = latency_tables.waited(load.load([tmp_path]))
    assert list(listed["file"]) == ["beside.jsonl"], listed
    assert listed["waited for the CPU %"].iloc[0] > 30, listed
