"""A cell in an environment the user already has (`--backend python:PATH`): a fresh venv with only jax, numpy and
pytest from the registry runs the jax-cpu cell with no network, the header names what really ran (JAX's version
read there, the package list and its fingerprint, the variables passed), and the venv's packages are the same
after the run; an interpreter that cannot serve the cell is one line and no results folder."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, one_line_error, runner_cli

pytestmark = pytest.mark.slow

LIST = "from importlib import metadata; print(sorted((d.metadata['Name'], d.version) for d in metadata.distributions()))"


@pytest.fixture(scope="module")
def jax_env(tmp_path_factory) -> Path:
    """A venv with jax, numpy and pytest and nothing of ours, made by uv from the registry."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    venv = tmp_path_factory.mktemp("existing") / "venv"
    subprocess.run([uv, "venv", "-q", "-p", f"{sys.version_info[0]}.{sys.version_info[1]}", str(venv)], check=True,
                   timeout=600)
    subprocess.run([uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "jax", "numpy", "pytest"],
                   check=True, timeout=1200)
    return venv / "bin" / "python"


def offline(*args: str) -> subprocess.CompletedProcess:
    """The runner with no network at all (a new network namespace), where this machine allows one."""
    command = [sys.executable, "-m", "runner.cli", *args]
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        command = ["unshare", "-n", *command]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250"))


def test_a_users_own_environment_runs_the_cell_offline_and_stays_as_it_was(jax_env, tmp_path):
    before = subprocess.run([str(jax_env), "-c", LIST], capture_output=True, text=True, check=True).stdout
    version = subprocess.run([str(jax_env), "-c", "import jax; print(jax.__version__)"], capture_output=True,
                             text=True, check=True).stdout.strip()
    out = tmp_path / "run"
    proc = offline("bench", "--image", "jax-cpu", "--backend", f"python:{jax_env}", "--quick", "--functions",
                   "jax.numpy.add", "--env", "MY_SETTING", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    (cell,) = json.loads((out / "merged.json").read_text())["cells"]
    assert cell["status"] == "done" and cell["profile"] == "existing" and cell["backend"] == f"python:{jax_env}"
    lines = [json.loads(l) for l in (out / "jax-cpu-existing.jsonl").read_text().splitlines()]
    header, cases = lines[0], [l for l in lines if l["record"] == "case"]
    assert cases and all(c["outcome"] == "passed" for c in cases)
    assert header["framework_version"] == version and header["profile"] == "existing"
    assert f"jax=={version}" in header["packages"] and "pytest" in " ".join(header["packages"])
    assert not any(p.startswith("portability-") for p in header["packages"])  # the harness and runner are not
    assert header["packages_fingerprint"] in header["environment"]  # the host and the worker name it alike
    assert header["passed_env"]["JAX_PLATFORMS"] == "cpu" and "PATH" in header["passed_env"]
    after = subprocess.run([str(jax_env), "-c", LIST], capture_output=True, text=True, check=True).stdout
    assert after == before, "the run installed or removed something in the user's environment"


def test_an_environment_without_the_images_framework_is_one_line_and_writes_nothing(jax_env, tmp_path):
    out = tmp_path / "run"
    line = one_line_error(runner_cli("bench", "--image", "torch-cpu", "--backend", f"python:{jax_env}", "--out",
                                     str(out)), "has no torch", "it has jax")
    assert line and not out.exists()


@pytest.mark.parametrize("python, words", [
    ("/no/such/python", ("no such file",)),
    (str(ROOT), ("not an executable file",)),
    (str(ROOT / "README.md"), ("not an executable file",)),
])
def test_an_interpreter_that_cannot_serve_is_one_line(tmp_path, python, words):
    out = tmp_path / "run"
    one_line_error(runner_cli("bench", "--image", "jax-cpu", "--backend", f"python:{python}", "--out", str(out)),
                   *words)
    assert not out.exists()


def test_a_python_older_than_the_harness_is_one_line(tmp_path):
    # pyenv's own builds (its shims answer only for the versions it has selected), else one on PATH.
    found = [str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.[67].*/bin/python3"))]
    found += [p for p in (shutil.which("python3.7"), shutil.which("python3.6")) if p and ".pyenv/shims" not in p]
    old = found[0] if found else None
    if old is None:
        pytest.skip("no Python older than 3.8 on this machine")
    one_line_error(runner_cli("bench", "--image", "jax-cpu", "--backend", f"python:{old}", "--out", str(tmp_path / "r")),
                   "needs 3.8 or newer")


def test_make_device_check_measures_what_the_interpreter_has_and_writes_a_report(jax_env, tmp_path):
    out = tmp_path / "check"
    proc = subprocess.run(["make", "-s", "device-check", f"PYTHON={jax_env}", f"RESULTS={out}",
                           "FUNCTIONS=jax.numpy.add", "CENSUS_OPS=add", "BUDGET_S=0"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "cells: jax-cpu;" in proc.stdout  # this machine: JAX on its CPU, nothing else
    summary = (out / "device-check.txt").read_text()
    assert "plan: 1 lane with no budget" in summary
    assert "jax-cpu steady: " in summary and "jax-cpu compiled: " in summary and "jax-cpu declared: " in summary
    for path in (out / "jax-cpu-existing.jsonl", out / "jax-cpu-existing-compiled.jsonl"):
        lines = [json.loads(l) for l in path.read_text().splitlines()]
        assert lines[0]["profile"] == "existing" and lines[0]["engine"]["name"] == "device-check"
        assert [l["outcome"] for l in lines if l["record"] == "case"].count("passed") >= 1
    assert list((out / "declared").glob("jax-*.json.gz"))
    # The census needs JAX's test database, which needs absl-py: this environment lacks it, and the check says so.
    assert "jax-cpu census: failed:" in summary and "absl" in summary
    assert "jax.numpy.add" in (out / "report.md").read_text()


def test_device_check_lists_the_steps_its_budget_cannot_hold_and_runs_none_of_them(jax_env, tmp_path):
    """A machine lent by the minute: a step expected to outlast the budget is planned out and listed as not started,
    with nothing written for it; an unknown step is a one-line error."""
    out = tmp_path / "check"
    check = [sys.executable, str(ROOT / "scripts" / "device_check.py"), "--python", str(jax_env), "--out", str(out),
             "--no-report"]
    proc = subprocess.run([*check, "--steps", "steady,compiled", "--budget-s", "5", "--expect", "steady=10",
                           "--expect", "compiled=20"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "device-check.txt").read_text().splitlines()[1:] == [
        "plan: 1 lane within 5 s (expected walls: given)", "  lane 1: nothing",
        "  does not fit: jax-cpu steady (10 s expected)", "  does not fit: jax-cpu compiled (20 s expected)",
        "jax-cpu steady: not started, did not fit in the budget (10 s expected)",
        "jax-cpu compiled: not started, did not fit in the budget (20 s expected)"]
    assert not list(out.glob("*.jsonl"))
    proc = subprocess.run([*check, "--steps", "steady,fast"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "unknown fast" in proc.stderr and "Traceback" not in proc.stderr


def test_an_environment_named_in_matrix_toml_runs_beside_the_pinned_cells(jax_env, tmp_path):
    text = (ROOT / "matrix.toml").read_text() + f'\n[[environment]]\nname = "mine"\npython = "{jax_env}"\n'
    (tmp_path / "matrix.toml").write_text(text)
    proc = runner_cli("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    rows = {tuple(c.strip() for c in l.split("│")[1:3]): l for l in proc.stdout.splitlines() if l.count("│") > 4}
    assert " run " in rows[("jax-cpu", "current")]  # the pinned cell is still there
    mine = rows[("jax-cpu", "mine")]
    assert " run " in mine and f"python:{jax_env}" in mine and "jax 0." in mine and "packages " in mine
    assert "has no torch" in rows[("torch-cpu", "mine")]  # a framework it lacks: not run, with the reason


def test_compare_names_the_packages_that_differ_between_two_environments(jax_env, tmp_path):
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    other = tmp_path / "other"  # the same environment plus one package
    subprocess.run([uv, "venv", "-q", "-p", f"{sys.version_info[0]}.{sys.version_info[1]}", str(other)], check=True)
    subprocess.run([uv, "pip", "install", "-q", "--python", str(other / "bin" / "python"), "jax", "numpy", "pytest",
                    "six"], check=True, timeout=1200)
    runs = []
    for python in (jax_env, other / "bin" / "python"):
        out = tmp_path / f"run{len(runs)}"
        proc = runner_cli("bench", "--image", "jax-cpu", "--backend", f"python:{python}", "--functions",
                          "jax.numpy.add", "--out", str(out))
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(out)
    proc = runner_cli("compare", *map(str, runs))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Packages of the environments that differ" in proc.stdout
    (row,) = [l for l in proc.stdout.splitlines() if "│ six " in l]
    assert row.split("│")[-3].strip() == "-" and row.split("│")[-2].strip() != "-"  # in b only
    assert "packages" in proc.stdout.split("Setups:", 1)[1].split("Packages of", 1)[0]  # the setup's "changed"
