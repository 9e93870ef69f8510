"""`runner matrix` for real on this machine (local backend, JAX on the CPU): cells that cannot run are
listed with the reason, a failed cell does not stop the matrix, repeats and merge, and --resume after a kill."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from conftest import small_matrix, start_runner, wait_for

from portability_harness.records import store

# The matrix has cuda cells: on a host with no GPU they are listed, not run, wherever the suite runs.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_devices")]
FUNCTIONS = ("--functions", "jax.numpy.add", "--functions", "tf.cast")
# The kill-and-resume test's functions: its two repeats of JAX quick, a few dozen cases each (the kill lands as the
# second begins).
SOME = ("--functions", "jax.numpy.a*")


def matrix_file(tmp_path: Path, extra: str = "") -> Path:
    """The project's profiles, with a small [matrix]: JAX and TensorFlow on cpu and cuda, 2 repeats."""
    return small_matrix(tmp_path, 'frameworks = ["jax", "tensorflow"]\ndevices = ["cpu", "cuda"]\n'
                        'profiles = ["current"]\nrepeats = 2', extra)


def test_matrix_runs_what_it_can_and_records_the_rest(venv_for, tmp_path):
    venv_for("jax-cpu")
    # A cell that fails to build (its Python does not exist) must not stop the matrix.
    path = matrix_file(tmp_path, '\n[[override]]\nimage = "tf-cpu"\npython = "3.99"\n')
    out = tmp_path / "run"
    proc = start_runner("matrix", "--matrix", str(path), "--backend", "local", "--quick", *FUNCTIONS, "--out", str(out))
    stdout, stderr = proc.communicate(timeout=900)
    # Finished, but not complete: the last line and the exit status say so.
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith("finished with 1 failed cell of 2: tf-cpu/current"), stderr
    merged = json.loads((out / "merged.json").read_text())
    assert merged["status"] == "finished" and merged["failed_cells"] == ["tf-cpu/current"]
    cells = {f"{c['image']}/{c['profile']}": c for c in merged["cells"]}
    assert set(cells) == {"jax-cpu/current", "jax-cuda/current", "tf-cpu/current", "tf-cuda/current"}
    assert cells["jax-cuda/current"]["status"] == "not_run" and "no NVIDIA GPU" in cells["jax-cuda/current"]["reason"]
    assert cells["tf-cpu/current"]["status"] == "failed" and "Python 3.99" in cells["tf-cpu/current"]["reason"]
    jax = cells["jax-cpu/current"]
    assert jax["status"] == "done" and jax["backend"] == "local"
    assert [r["header"]["repeat"] for r in jax["runs"]] == [1, 2]
    for run in jax["runs"]:
        assert run["footer"] and not run["torn"]
        assert run["cases"] and all(c["outcome"] == "passed" for c in run["cases"])
        assert all("warm_samples_s" not in c and c["warm_median_s"] > 0 for c in run["cases"])
        assert run["header"]["environment"].startswith("venv jax-cpu-current-")
    summary = (out / "summary.md").read_text()
    assert summary.startswith(f"# Run {merged['run_id']} (finished, 1 failed cell of 2: tf-cpu/current)")
    for row in ("| jax-cpu current | local | done (quick) | 2 |", "| tf-cpu current | local | failed |",
                "| jax-cuda current | local | not run |"):
        assert row in summary, summary
    assert "no NVIDIA GPU" in summary and "Python 3.99" in summary
    # Each cell that ran has its expected wall beside the one it took (runner.estimate), said before it started and
    # counted down while it ran; summary.md sums them up.
    assert jax["expected_s"] > 0 and jax["wall_s"] > 0 and cells["jax-cuda/current"]["expected_s"] is None
    assert "expected in all: about" in stdout and "left (expected)" in stdout, stdout[-3000:]
    # The second repeat counts down at the pace the first set: one quick function is far from the default per
    # function it is expected from where this host has no quick run of its own (a fresh clone, as in CI)
    printed = " ".join(stdout.split())
    if "from this host" not in printed:  # a quick run is not expected from the reference runs (not quick)
        assert "left (expected, at this run's pace so far: x" in printed, stdout[-3000:]
    assert "Wall of the cells this run ran:" in summary and "within 25 % of the expected" in summary


def test_a_killed_matrix_run_resumes_where_it_stopped(venv_for, tmp_path):
    venv_for("jax-cpu")
    path, out = matrix_file(tmp_path), tmp_path / "run"
    first = out / "jax-cpu-current-r1.jsonl"
    proc = start_runner("matrix", "--matrix", str(path), "--backend", "local", "--quick", *SOME, "--out", str(out))
    wait_for(lambda: store.read(str(first)).footer is not None, "the first repeat's footer", 600, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole matrix run, harness and worker included
    proc.wait()
    finished_before = first.read_bytes()
    state = json.loads((out / "matrix.json").read_text())
    assert {c["key"]: c["status"] for c in state["cells"]}["jax-cpu/current"] == "running"

    again = start_runner("matrix", "--matrix", str(path), "--backend", "local", "--quick", *SOME, "--out", str(out),
                         "--resume")
    _, stderr = again.communicate(timeout=900)
    assert again.returncode == 0, stderr
    assert first.read_bytes() == finished_before  # a finished repeat is not run again
    second = store.read(str(out / "jax-cpu-current-r2.jsonl"))
    ids = [c["case_id"] for c in second.cases]
    assert second.footer and len(ids) == len(set(ids)) == len(store.read(str(first)).cases)
    merged = json.loads((out / "merged.json").read_text())
    jax = next(c for c in merged["cells"] if c["image"] == "jax-cpu")
    assert jax["status"] == "done" and len(jax["runs"]) == 2


def test_resume_is_needed_to_write_into_a_finished_run(venv_for, tmp_path):
    path, out = matrix_file(tmp_path), tmp_path / "run"
    out.mkdir()
    (out / "matrix.json").write_text('{"run_id": "run", "cells": []}')
    proc = start_runner("matrix", "--matrix", str(path), "--backend", "local", "--out", str(out))
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "--resume" in stderr and "Traceback" not in stderr
    assert (out / "matrix.json").read_text() == '{"run_id": "run", "cells": []}'
