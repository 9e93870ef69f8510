"""Lanes (`runner matrix --lanes N`, runner/lanes.py): verdict cells (the TPU model's xla-cpu cells, a census) run
beside the timing cells on CPUs of their own; each header says which lane ran it, on which CPUs and what ran
beside it as it started, and the report flags the repeats measured while another lane ran."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, runner_cli

from runner import lanes, matrix
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project


def test_lane_0_keeps_the_first_cpus_and_the_others_share_at_most_half():
    assert lanes.split([0, 1], 1) == [[0, 1]]
    # Two CPUs: the verdict lane takes the host's CPU, which the timing worker leaves (cpus = "all-but-one")
    assert lanes.split([0, 1], 2) == [[0, 1], [0]]
    assert lanes.split([0, 1, 2], 2) == [[0, 1], [2]]
    assert lanes.split(list(range(16)), 2) == [list(range(8)), list(range(8, 16))]
    assert lanes.split(list(range(16)), 3) == [list(range(8)), [8, 9, 10, 11], [12, 13, 14, 15]]
    with pytest.raises(UserError, match="--lanes 3 needs 3 CPUs"):
        lanes.split([0, 1], 3)
    assert [lanes.default_lanes(n) for n in (1, 2, 3, 4, 16)] == [1, 2, 2, 2, 2]


def test_only_verdict_cells_leave_lane_0():
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    main, side = lanes.assign(cells, 2)
    assert side and all(c.device == "xla-cpu" for c in side)
    assert all(c.device != "xla-cpu" for c in main)
    assert lanes.assign(cells, 1) == [cells]


@pytest.mark.slow
def test_a_verdict_cell_runs_beside_the_timing_cell_on_cpus_of_its_own(venv_for, tmp_path):
    from runner.report import latency_tables, load

    venv_for("jax-cpu")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    text = re.sub(r"(?ms)^\[matrix\].*?(?=^\[profiles)", '[matrix]\nframeworks = ["jax"]\ndevices = ["cpu"]\n'
                  'profiles = ["current"]\nrepeats = 2\ninclude = ["jax-xla-cpu"]\n\n',
                  (ROOT / "matrix.toml").read_text())
    (tmp_path / "matrix.toml").write_text(text)
    out = tmp_path / "run"
    proc = runner_cli("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--quick",
                      "--lanes", "2", "--functions", "jax.numpy.add", "--functions", "jax.numpy.cos",
                      "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "lane 1, jax-xla-cpu (current): started" in proc.stdout, proc.stdout[-2000:]
    headers = {p.name: json.loads(p.read_text().splitlines()[0]) for p in out.glob("*.jsonl")}
    assert set(headers) == {"jax-cpu-current-r1.jsonl", "jax-cpu-current-r2.jsonl", "jax-xla-cpu-current.jsonl"}
    timing = [headers["jax-cpu-current-r1.jsonl"], headers["jax-cpu-current-r2.jsonl"]]
    verdict = headers["jax-xla-cpu-current.jsonl"]
    assert all(h["engine"]["lane"] == 0 for h in timing) and verdict["engine"]["lane"] == 1
    # Each worker ran on its lane's CPUs, and no other lane has the timing worker's (on two CPUs the verdict lane
    # has the host's, which the timing worker leaves to its supervisor and the runner).
    main, side = timing[0]["engine"]["cpus"], verdict["engine"]["cpus"]
    assert all(set(h["cpus"]) <= set(main) and not set(h["cpus"]) & set(side) for h in timing), (timing, side)
    assert set(verdict["cpus"]) <= set(side)
    # Both lanes started at once: each first repeat's header names the other lane's cell.
    assert timing[0]["engine"]["beside"] == ["jax-xla-cpu/current"]
    assert verdict["engine"]["beside"] == ["jax-cpu/current"]
    merged = json.loads((out / "merged.json").read_text())
    assert {c["image"]: c["status"] for c in merged["cells"]} == {"jax-cpu": "done", "jax-xla-cpu": "done"}
    # The report flags the timing repeats measured while the verdict cell ran.
    flagged = latency_tables.beside(load.load([out]))
    assert "jax-xla-cpu" in set(flagged["beside"]) and 1 in set(flagged["repeat"])


def test_the_supervisor_keeps_off_its_workers_cpus():
    """The harness's process (the supervisor) moves onto the CPUs its worker leaves, every thread of it, so that
    the kernel does not wake it on the CPU whose call is being timed (all of them: a process's second thread kept
    the CPUs it started on)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    code = ("import json, os, threading, time\n"
            "from portability_harness.__main__ import keep_off\n"
            "t = threading.Thread(target=time.sleep, args=(2,)); t.start()\n"
            f"keep_off([{cpus[-1]}])\n"
            "print(json.dumps([sorted(os.sched_getaffinity(int(tid))) for tid in os.listdir('/proc/self/task')]))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "harness", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    threads = json.loads(proc.stdout)
    assert len(threads) == 2 and all(t == cpus[:-1] for t in threads), threads
    # cpus = "all": nothing is left to move to, and the process stays where it was
    code = code.replace(f"keep_off([{cpus[-1]}])", f"keep_off({cpus})")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "harness", capture_output=True, text=True,
                          timeout=60)
    assert all(t == cpus for t in json.loads(proc.stdout)), proc.stdout
