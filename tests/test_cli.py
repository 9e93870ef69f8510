"""Bad input gets one line naming the problem and the fix, a non-zero exit, and no traceback."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CURATED, ROOT, one_line_error

RUNNER = [sys.executable, "-m", "runner.cli"]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*RUNNER, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200"))


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A checkout whose matrix.toml a test may break, sharing the real curated cases and images."""
    (tmp_path / "curated").symlink_to(CURATED)
    (tmp_path / "images").symlink_to(ROOT / "images")
    shutil.copy(ROOT / "matrix.toml", tmp_path / "matrix.toml")
    return tmp_path


def test_unknown_image():
    one_line_error(run("bench", "--image", "jax-gpu9"), "unknown image", "jax-cpu")


def test_unknown_framework():
    one_line_error(run("list", "--framework", "mxnet"), "unknown framework", "torch")


def test_unknown_profile():
    one_line_error(run("bench", "--image", "jax-cpu", "--profile", "paper1999", "--backend", "local"), "unknown profile", "current")


def test_functions_pattern_that_matches_nothing():
    one_line_error(run("bench", "--image", "jax-cpu", "--functions", "jax.nothing.*", "--backend", "local"),
                          "matches no curated jax function", "runner list")


def test_profile_whose_python_is_not_installed(project_copy):
    text = (project_copy / "matrix.toml").read_text().replace('python = "3.11"', 'python = "3.99"', 1)
    (project_copy / "matrix.toml").write_text(text)
    one_line_error(run("bench", "--image", "jax-cpu", "--backend", "local", cwd=project_copy), "Python 3.99", "install")


def test_malformed_matrix(project_copy):
    (project_copy / "matrix.toml").write_text("[profiles.current\npython = 3\n")
    one_line_error(run("list", cwd=project_copy), "matrix.toml", "TOML")


def test_results_already_written_are_never_overwritten(project_copy):
    out = project_copy / "results" / "r1"
    out.mkdir(parents=True)
    existing = out / "jax-cpu-current.jsonl"
    existing.write_text('{"record": "header"}\n')
    one_line_error(run("bench", "--image", "jax-cpu", "--out", str(out), "--backend", "local", cwd=project_copy), "--resume")
    assert existing.read_text() == '{"record": "header"}\n'


def test_list_shows_every_curated_function():
    proc = run("list", "--framework", "torch")
    assert proc.returncode == 0
    from portability_harness.catalog import curated

    for f in curated(str(CURATED), "torch"):
        assert f.name in proc.stdout


@pytest.mark.parametrize("command", [["bench", "--image", "jax-cpu", "--backend", "docker", "--out", "{out}"],
                                     ["images", "build", "--image", "jax-cpu"]])
def test_docker_backend_without_an_engine(tmp_path, command):
    out = tmp_path / "r"
    proc = subprocess.run([*RUNNER, *(a.format(out=out) for a in command)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock"))
    one_line_error(proc, "no Docker engine answers", "--backend local")
    assert not list(tmp_path.glob("r/*.jsonl"))


def test_unknown_backend():
    one_line_error(run("bench", "--image", "jax-cpu", "--backend", "kubernetes"), "unknown --backend", "docker")


def test_dry_run_lists_every_cell_with_its_reason(no_devices):
    proc = run("matrix", "--dry-run", "--backend", "local")
    assert proc.returncode == 0, proc.stderr
    from runner import matrix
    from runner.project import Project

    for name in Project(ROOT, matrix.load(ROOT / "matrix.toml")).cell_images():
        assert name in proc.stdout
    assert "no NVIDIA GPU on this host" in proc.stdout and "no TPU on this host" in proc.stdout


def test_on_a_gpu_host_the_dry_run_plans_the_cuda_cells(device_view):
    device_view("h200")  # what the H200 VM's nvidia-smi printed, and its /dev/nvidia0
    proc = run("matrix", "--dry-run", "--backend", "local", "--compiler", "eager")
    assert proc.returncode == 0, proc.stderr
    rows = [l for l in proc.stdout.splitlines() if "-cuda " in l]
    assert rows and not any("no NVIDIA GPU" in l for l in rows), proc.stdout
    assert "no TPU on this host" in proc.stdout


def test_unknown_compiler():
    one_line_error(run("matrix", "--compiler", "bogus", "--dry-run"), "unknown --compiler 'bogus'", "all")
    one_line_error(run("bench", "--image", "jax-cpu", "--compiler", "all"), "unknown --compiler 'all'", "compiled")


def test_a_count_that_cannot_be_run():
    # 0 repeats had fallen back to matrix.toml's 3 (falsy), and a timeout of 0 would have killed every case at once
    one_line_error(run("matrix", "--repeats", "0", "--dry-run"), "--repeats 0", "give 1 or more")
    one_line_error(run("bench", "--image", "jax-cpu", "--repeats", "-1"), "--repeats -1", "give 1 or more")
    one_line_error(run("bench", "--image", "jax-cpu", "--timeout", "0"), "--timeout 0", "above 0")


def test_a_dry_run_says_which_venvs_are_built_first(no_devices, tmp_path):
    """On a host without the cells' venvs (an empty venv cache), each local cell that will run says its venv is
    built first, which its expected wall leaves out."""
    proc = subprocess.run([*RUNNER, "matrix", "--dry-run", "--backend", "local", "--compiler", "eager"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="400", RUNNER_CACHE_DIR=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    runs = [line for line in proc.stdout.splitlines() if "│ run" in line]
    assert runs and all("its venv is built first" in line for line in runs), proc.stdout
    assert not list(tmp_path.glob("venvs/*"))  # a dry run builds nothing
