"""A cell's next repeat starts up on standby while the current one runs (runner/backends/process.py, the supervisor's
stand_by): its worker imports the framework and collects its cases on the CPU the running worker leaves free, and
the repeat's wall begins when it is told to go. Told to go, it is a repeat like any other; discarded, it writes
nothing. And a worker whose session has ended exits without the interpreter's teardown, its log complete."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import config, processes_naming, runner_cli, small_matrix, wait_for

pytestmark = pytest.mark.slow


def _read(path: Path) -> tuple[dict, list[dict], dict]:
    from portability_harness.records import store

    contents = store.read(str(path))
    return contents.header, contents.cases, contents.footer


def test_the_next_repeat_starts_up_on_standby_and_is_then_a_repeat_like_the_first(venv_for, tmp_path):
    venv_for("torch-cpu")
    out = tmp_path / "run"
    proc = runner_cli("bench", "--image", "torch-cpu", "--backend", "local", "--functions", "torch.sum",
                      "--functions", "torch.zeros", "--repeats", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, second, third = (_read(out / f"torch-cpu-current-r{r}.jsonl") for r in (1, 2, 3))
    # The first repeat's worker started with it; the others' before their repeat began, told to go at its start.
    assert "standby" not in first[2]["workers"][0]
    # Every header names the CPU its cases ran on, by its identity too (a spare's or a standby's alike)
    from portability_harness import host_cpu

    assert host_cpu.identity() and all(h["host_cpu"] == host_cpu.identity() for h in (first[0], second[0], third[0]))
    assert first[2]["workers"][0]["spawned"] >= first[2]["supervisor_started_at"]
    for header, cases, footer in (second, third):
        (worker,) = footer["workers"]
        assert worker["standby"] is True
        assert worker["spawned"] < footer["supervisor_started_at"] <= worker["running"], footer
        # It waited on the CPUs the running worker left free, then moved to the worker's: the header says where
        # its cases ran, the same CPUs as the first repeat's.
        assert header["cpus"] == first[0]["cpus"]
        assert footer["spares_taken"] == 0  # a standby is not a spare that replaced a lost worker
        assert sorted(c["case_id"] for c in cases) == sorted(c["case_id"] for c in first[1])
        assert footer["counts"] == first[2]["counts"]
    # Each repeat started after the one before had ended: nothing of two repeats was measured side by side.
    assert first[2]["supervisor_ended_at"] <= second[2]["supervisor_started_at"]
    assert second[2]["supervisor_ended_at"] <= third[2]["supervisor_started_at"]
    # The worker exits at once after its session, and its log still ends with pytest's summary.
    log = (out / "torch-cpu-current-r2.log").read_text()
    assert f"{first[2]['counts']['passed']} passed" in log.strip().splitlines()[-1], log[-500:]


def test_a_standby_not_needed_ends_with_its_worker_and_writes_nothing(venv_for, tmp_path):
    from portability_harness.protocol import log_path
    from runner.backends.process import Harness

    env = venv_for("torch-cpu")
    out = tmp_path / "torch-cpu-current-r2.jsonl"
    standby = env.standby(config(out, "torch", functions=["torch.sum"], repeat=2))
    assert isinstance(standby, Harness)
    config_path = standby.proc.args[3]
    # Its supervisor (the config's path its argument) and the worker it started (the path in its environment).
    wait_for(lambda: len(processes_naming(config_path)) >= 2, "the standby's supervisor and worker", 120, standby.proc)
    assert len(processes_naming(config_path)) == 2
    standby.discard()
    assert standby.proc.returncode == 0
    assert processes_naming(config_path) == []
    assert not out.exists() and not Path(log_path(str(out))).exists()


def test_the_first_repeat_of_the_next_cell_starts_up_ahead_too(venv_for, tmp_path):
    from runner.backends.local import compile_bytecode

    # Ready as the scheduler means it (LocalBackend.ready): built and byte-compiled. A cell whose venv is not ready
    # starts up in its own time, and the run's prefetch byte-compiling torch's venv can take longer than the JAX
    # cell's two quick repeats on a busy machine.
    for image in ("jax-cpu", "torch-cpu"):
        compile_bytecode(venv_for(image).venv)
    small_matrix(tmp_path, 'frameworks = ["jax", "torch"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 2')
    out = tmp_path / "run"
    proc = runner_cli("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--quick",
                      "--functions", "jax.numpy.add", "--functions", "torch.sum", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    repeats = sorted((_read(path) for path in out.glob("*.jsonl")), key=lambda r: r[2]["supervisor_started_at"])
    assert [(h["framework"], h["repeat"]) for h, _, _ in repeats] in (
        [("jax", 1), ("jax", 2), ("torch", 1), ("torch", 2)], [("torch", 1), ("torch", 2), ("jax", 1), ("jax", 2)])
    # Only the run's first repeat started up in its own time; each began once the one before had ended.
    ahead = ["standby" in f["workers"][0] for _, _, f in repeats]
    assert ahead == [False, True, True, True], f"started ahead: {ahead}\n{proc.stdout[-2000:]}"
    for (_, _, before), (header, cases, after) in zip(repeats, repeats[1:]):
        assert before["supervisor_ended_at"] <= after["supervisor_started_at"]
        assert cases and all(c["outcome"] == "passed" for c in cases), cases


def test_a_standby_stopped_by_a_signal_ends_with_its_worker_and_writes_nothing(venv_for, tmp_path):
    # The host killed outright: its standby gets SIGTERM (the death signal it was started with).
    import signal

    from portability_harness.protocol import log_path

    out = tmp_path / "torch-cpu-current-r2.jsonl"
    standby = venv_for("torch-cpu").standby(config(out, "torch", functions=["torch.sum"], repeat=2))
    config_path = standby.proc.args[3]
    wait_for(lambda: len(processes_naming(config_path)) >= 2, "the standby's supervisor and worker", 120, standby.proc)
    standby.proc.send_signal(signal.SIGTERM)
    assert standby.proc.wait(60) == 128 + signal.SIGTERM
    standby.discard()
    assert processes_naming(config_path) == []
    assert not out.exists() and not Path(log_path(str(out))).exists()
