"""The Docker backend end to end against a real engine (`make test-docker` starts one if none answers):
an offline Debian base, the jax-cpu image built from it, a cell run in a container and merged, the same
verdicts as the local backend, and one-line errors for a failed build and a killed container."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import docker
import pytest
from conftest import ROOT, one_line_error

pytestmark = pytest.mark.docker
BASE = "portability-runner/base:bookworm"
FUNCTIONS = ("--functions", "jax.numpy.add", "--functions", "jax.lax.top_k", "--functions", "jax.nn.one_hot")


def runner(*args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, COLUMNS="200"))


@pytest.fixture(scope="module")
def engine() -> docker.DockerClient:
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as e:
        pytest.fail(f"no Docker engine answers ({e}); `make test-docker` starts one")
    return client


@pytest.fixture(scope="module")
def base(engine) -> str:
    proc = subprocess.run([str(ROOT / "scripts" / "build-offline-base.sh"), BASE], capture_output=True, text=True,
                          timeout=1200)
    assert proc.returncode == 0, proc.stderr
    assert engine.images.get(BASE)
    return BASE


def verdicts(run_dir: Path) -> tuple[dict, dict]:
    merged = json.loads((run_dir / "merged.json").read_text())
    (cell,) = merged["cells"]
    assert cell["status"] == "done", cell.get("reason")
    (run,) = cell["runs"]
    return run["header"], {c["case_id"]: c["outcome"] for c in run["cases"]}


def test_a_cell_in_a_container_gives_the_local_backends_verdicts(engine, base, tmp_path, venv_for):
    built = runner("images", "build", "--image", "jax-cpu", "--base", base)
    assert built.returncode == 0, built.stderr
    tag = re.search(r"(portability-runner/jax-cpu:current-[0-9a-f]{12})", built.stdout).group(1)
    assert engine.images.get(tag).attrs["Config"]["User"] == "runner"

    in_docker = runner("bench", "--image", "jax-cpu", "--backend", "docker", "--base", base, "--quick", *FUNCTIONS,
                       "--out", str(tmp_path / "docker"))
    assert in_docker.returncode == 0, in_docker.stderr
    header, docker_cases = verdicts(tmp_path / "docker")
    assert header["environment"].startswith(f"docker {tag} sha256:")
    assert header["user"] == "runner" and header["python"].startswith("3.11")
    assert header["framework_version"] == "0.10.2"
    assert len(docker_cases) >= 9 and set(docker_cases.values()) == {"passed"}
    assert not engine.containers.list(all=True, filters={"label": "portability-runner.cell"})  # removed

    venv_for("jax-cpu")
    local = runner("bench", "--image", "jax-cpu", "--backend", "local", "--quick", *FUNCTIONS,
                   "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    _, local_cases = verdicts(tmp_path / "local")
    assert local_cases == docker_cases


def test_a_base_that_cannot_be_pulled_is_one_line(engine):
    line = one_line_error(runner("images", "build", "--image", "jax-cpu", "--base", "no-such-registry.invalid/base:1"))
    assert "no-such-registry.invalid/base:1" in line and "build-offline-base.sh" in line


def test_a_pin_pip_cannot_install_is_one_line(engine, base, tmp_path):
    text = (ROOT / "matrix.toml").read_text().replace('jax = "0.10.2"', 'jax = "0.0.999"', 1)
    (tmp_path / "matrix.toml").write_text(text)
    line = one_line_error(runner("images", "build", "--image", "jax-cpu", "--base", base,
                                 "--matrix", str(tmp_path / "matrix.toml")))
    assert "jax-cpu (current)" in line and "jax==0.0.999" in line


def test_the_cell_timeout_kills_the_container_and_keeps_what_it_wrote(engine, base, tmp_path):
    text = (ROOT / "matrix.toml").read_text().replace("cell_timeout = 21600", "cell_timeout = 40", 1)
    (tmp_path / "matrix.toml").write_text(text)
    out = tmp_path / "run"
    line = one_line_error(runner("bench", "--image", "jax-cpu", "--backend", "docker", "--base", base,
                                 "--matrix", str(tmp_path / "matrix.toml"), "--out", str(out)))
    assert "killed after the cell timeout of 40 s" in line
    assert not engine.containers.list(all=True, filters={"label": "portability-runner.cell"})
    state = json.loads((out / "merged.json").read_text())
    assert state["cells"][0]["status"] == "failed"
    results = out / "jax-cpu-current.jsonl"
    assert results.exists() and json.loads(results.read_text().splitlines()[0])["record"] == "header"


def test_a_sweep_builds_an_image_per_release_and_reports_what_changed(engine, base, tmp_path):
    # jax.lax.infeed exists in JAX 0.6.0 and is gone from 0.9.0; both releases resolve to Python 3.11, the
    # offline base's. Each release gets its own image (tagged with its profile), its cells and its declared
    # support run in it.
    out = tmp_path / "sweep"
    proc = runner("sweep", "--framework", "jax", "--releases", "0.6.0,0.9.0", "--compiler", "eager", "--quick",
                  "--functions", "jax.lax.infeed", "--functions", "jax.numpy.add", "--backend", "docker",
                  "--base", base, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for version in ("0.6.0", "0.9.0"):
        tags = [t for i in engine.images.list(filters={"label": f"portability-runner.profile=jax-{version}"})
                for t in i.tags]
        assert any(t.startswith(f"portability-runner/jax-cpu:jax-{version}-") for t in tags), tags
        header = json.loads((out / f"jax-cpu-jax-{version}.jsonl").read_text().splitlines()[0])
        assert header["framework_version"] == version and header["environment"].startswith("docker")
    assert sorted(p.name for p in (out / "declared").glob("*.json.gz")) == ["jax-0.6.0.json.gz",
                                                                          "jax-0.9.0.json.gz"]
    report = runner("report", str(out), timeout=600)
    assert report.returncode == 0, report.stderr[-2000:]
    section = (out / "report.md").read_text().split("## Over releases", 1)[1].split("\n## ", 1)[0]
    assert "| cpu eager | jax.lax.infeed | pass | missing | 0.6.0 | since 0.9.0 |" in section
