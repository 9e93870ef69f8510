"""Environments built ahead (runner.prefetch): the later cells' environments are built, each once, in the run's
order, on the CPU the workers leave to the host; a failure there is left to the cell; and a venv's packages are
byte-compiled once (runner.backends.local.compile_bytecode)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from conftest import ROOT, small_matrix

from runner import backends, matrix
from runner.backends.local import compile_bytecode
from runner.plan import Options, plan
from runner.prefetch import Prefetch
from runner.project import Project
from runner.rundir import RunDir


class Recording(backends.base.Backend):
    """A backend that records what it is asked to build ahead, on which CPUs, and fails on one image."""
    name = "local"

    def __init__(self):
        self.built: list[tuple[str, str, frozenset]] = []

    def prepare(self, cell, log, install_log=None):  # pragma: no cover - the prefetch never prepares
        raise AssertionError("prefetch must not prepare")

    def prefetch(self, cell, log, install_log=None):
        self.built.append((cell.image.name, cell.compiler, frozenset(os.sched_getaffinity(0))))
        if cell.image.name == "tf-cpu":
            raise RuntimeError("the index is down")
        log("built")


def test_the_later_cells_are_built_once_each_in_order_on_the_hosts_cpu(tmp_path, monkeypatch, no_devices):
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    assert [c.image.name for c in cells][:2] == ["torch-cpu", "torch-cpu"]  # eager and compiled share a venv
    recording = Recording()
    monkeypatch.setattr(backends, "get", lambda name, project, extra_env=(): recording)
    said: list[str] = []
    with Prefetch(project, cells, RunDir(tmp_path / "run"), said.append) as ahead:
        ahead.thread.join(timeout=60)
    assert [(image, compiler) for image, compiler, _ in recording.built] == [
        ("torch-cpu", "eager"), ("tf-cpu", "eager"), ("jax-cpu", "eager"),  # tf-cpu's failure did not stop it
        ("torch-xla-cpu", "eager")]  # matrix.toml's include, after the frameworks x devices
    available = sorted(os.sched_getaffinity(0))
    expected = frozenset(available[:1]) if len(available) > 1 else frozenset(available)
    assert {cpus for _, _, cpus in recording.built} == {expected}
    assert said == ["ahead, torch-cpu (current): built", "ahead, jax-cpu (current): built",
                    "ahead, torch-xla-cpu (current): built"]
    assert os.sched_getaffinity(0) == set(available)  # only the prefetch thread moved


def test_a_stopped_prefetch_starts_no_further_build(tmp_path, monkeypatch):
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager",))) if c.runnable]
    recording = Recording()
    monkeypatch.setattr(backends, "get", lambda name, project, extra_env=(): recording)
    ahead = Prefetch(project, cells, RunDir(tmp_path / "run"), lambda m: None)
    ahead.stopped.set()
    with ahead:
        ahead.thread.join(timeout=60)
    assert recording.built == []


def test_a_venvs_packages_are_byte_compiled_once(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "some_package.py").write_text("VALUE = 1\n")
    said: list[str] = []
    compile_bytecode(venv, said.append)
    assert list((site / "__pycache__").glob("some_package.*.pyc"))
    assert said == [f"compiling the bytecode of {venv.name}"]
    compile_bytecode(venv, said.append)
    assert len(said) == 1  # marked done: not again


def test_a_lane_on_the_builds_cpu_is_told_to_wait_until_they_end(tmp_path, monkeypatch, no_devices):
    """A side lane on the CPU the builds run on waits for them (Scheduler.wait_for_builds): builds_on names that CPU
    while a build runs, no other, and nothing once they end or where every environment is built already."""
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager",))) if c.runnable]
    release = threading.Event()

    class Slow(Recording):
        built_already: set = set()

        def ready(self, cell):
            return cell.image.name in self.built_already

        def prefetch(self, cell, log, install_log=None):
            release.wait(60)

    monkeypatch.setattr(backends, "get", lambda name, project, extra_env=(): Slow())
    ahead = Prefetch(project, cells, RunDir(tmp_path / "run"), lambda m: None)
    with ahead:
        if ahead.cpu is not None:
            others = [c for c in os.sched_getaffinity(0) if c != ahead.cpu]
            assert ahead.builds_on([ahead.cpu]) and ahead.builds_on(None) and not ahead.builds_on(others)
        else:  # one CPU: everything shares it
            assert ahead.builds_on([0])
        assert not ahead.done.wait(0.5)
        release.set()
        assert ahead.done.wait(60)
        assert not ahead.builds_on(None)
    Slow.built_already = {c.image.name for c in cells}
    built = Prefetch(project, cells, RunDir(tmp_path / "run2"), lambda m: None)
    assert not built.builds_on(None)  # nothing to build: no lane waits, even before the thread has looked


@pytest.mark.slow
def test_a_side_lane_starts_once_the_environment_built_on_its_cpu_is_built(venv_for, tmp_path):
    """A machine's first run, in two lanes: torch-cpu times in lane 0, and lane 1 holds tf-xla-cpu, then
    jax-xla-cpu, whose venv (JAX's) is not built yet. The run builds it ahead on the host's CPU, which is lane 1's,
    and lane 1 starts tf-xla-cpu only once that build (its byte-compiling included) has ended. torch-cpu runs five
    repeats so that lane 0 is the longer: with one, keeping tf-xla-cpu in lane 0 after it ends the run sooner
    (lanes.balance), and jax-xla-cpu, alone in lane 1, is built by its own preparation, not ahead."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    venvs = tmp_path / "venvs"
    venvs.mkdir()
    for image in ("torch-cpu", "tf-cpu"):  # built already, as on a machine that ran these before
        built = venv_for(image).venv
        (venvs / built.name).symlink_to(built)
    small_matrix(tmp_path, 'frameworks = ["torch"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 5\n'
                 'include = ["tf-xla-cpu", "jax-xla-cpu"]')
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "matrix", "--matrix", str(tmp_path / "matrix.toml"),
                           "--backend", "local", "--compiler", "eager", "--lanes", "2", "--functions", "torch.round",
                           "--functions", "tf.image.adjust_brightness", "--functions", "jax.numpy.add",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, RUNNER_VENV_DIR=str(venvs), COLUMNS="200"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = proc.stdout + proc.stderr
    lines = {p.name: p.read_text().splitlines() for p in out.glob("*.jsonl")}
    torch_files = {f"torch-cpu-current-r{r}.jsonl" for r in range(1, 6)}
    assert set(lines) == torch_files | {"tf-xla-cpu-current.jsonl", "jax-xla-cpu-current.jsonl"}
    assert [json.loads(lines[f"{name}-current.jsonl"][0])["engine"]["lane"] for name in ("tf-xla-cpu", "jax-xla-cpu")] \
        == [1, 1]  # the arrangement the test is about
    assert "lane 1 waits for the environments being built on its CPU" in said, said[-3000:]
    (jax,) = [p for p in venvs.iterdir() if p.name.startswith("jax-cpu-") and not p.is_symlink()]
    built_at = (jax / ".runner-bytecode").stat().st_mtime
    footers = {name: json.loads(text[-1]) for name, text in lines.items()}
    assert footers["tf-xla-cpu-current.jsonl"]["supervisor_started_at"] >= built_at
    # ...while lane 0 did not wait for it: its first repeat began before the build ended
    assert footers["torch-cpu-current-r1.jsonl"]["supervisor_started_at"] < built_at
