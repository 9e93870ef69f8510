"""The census on a real Ray cluster started on this machine (`make test-ray`): a head and two CPU worker nodes
on 127.0.0.1 (cluster/local.py), every process ended by the fixture.

- a small census (--ops filter) through --engine ray is a cell like any other: it runs on a node offering
  cell:cpu, its records come home as written, and it gives the same case ids and outcomes as the same census
  run locally;
- the driver killed (SIGKILL) mid-census, then --resume: every case recorded once, the first records kept.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CURATED, ROOT, cases_of, small_matrix, wait_for
from portability_harness.records import store

sys.path.insert(0, str(ROOT / "cluster"))
from local import LocalCluster  # noqa: E402

pytestmark = pytest.mark.ray
OPS = ("--ops", "add", "--ops", "div", "--ops", "bernoulli", "--ops", "nn.functional.relu")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster() as c:
        for _ in range(2):
            c.add_worker({"cell:cpu": 1})
        c.wait_for("cell:cpu", 2)
        yield c


@pytest.fixture(scope="module")
def checkout(tmp_path_factory, venv_for) -> Path:
    """A checkout for the driver: the project's images, harness and cases, and a CPU-only matrix."""
    venv_for("torch-cpu")
    root = tmp_path_factory.mktemp("project")
    for name in ("images", "harness"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    (root / "curated").symlink_to(CURATED)
    small_matrix(root, 'frameworks = ["torch"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 1')
    return root


def runner(checkout: Path, env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "runner.cli", *args], cwd=checkout, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(env, COLUMNS="250", PYTHONPATH=str(ROOT)))


def finished(proc: subprocess.Popen, timeout: float = 900) -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def outcomes(path: Path) -> dict[str, str]:
    return {c["case_id"]: c["outcome"] for c in cases_of(path)}


def test_a_small_census_on_the_cluster_matches_the_local_one(cluster, checkout, tmp_path):
    args = ["census", "--framework", "torch", "--quick", *OPS]
    on_ray = finished(runner(checkout, cluster.env, *args, "--engine", "ray", "--address", cluster.address,
                             "--out", str(tmp_path / "ray")))
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert "Traceback" not in on_ray.stderr and "census of torch" in on_ray.stdout
    local = finished(runner(checkout, cluster.env, *args, "--backend", "local", "--out", str(tmp_path / "local")))
    assert local.returncode == 0, local.stderr[-3000:]
    name = "torch-cpu-current-census.jsonl"
    assert outcomes(tmp_path / "ray" / name) == outcomes(tmp_path / "local" / name) and outcomes(tmp_path / "ray" / name)
    contents = store.read(str(tmp_path / "ray" / name))
    assert contents.header["task"] == "census" and contents.header["engine"]["name"] == "ray"
    assert contents.footer and contents.footer["engine"]["name"] == "ray" and not contents.problems()
    assert all(c["samples_run"] is not None and "declared" in c for c in contents.cases)


def test_a_killed_driver_resumes_the_census_with_each_case_once(cluster, checkout, tmp_path):
    run = tmp_path / "run"
    results = run / "torch-cpu-current-census.jsonl"
    args = ["census", "--framework", "torch", "--quick", *OPS, "--engine", "ray", "--address", cluster.address,
            "--out", str(run)]
    proc = runner(checkout, cluster.env, *args)
    wait_for(lambda: len(cases_of(results)) >= 15, "15 census records", 600, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = [c["case_id"] for c in cases_of(results) if c["outcome"] != "interrupted"]
    # The node's task may still be writing when the driver dies; the resumed driver takes the folder when free.
    again = finished(runner(checkout, cluster.env, *args, "--resume"))
    assert again.returncode == 0, again.stderr[-3000:]
    contents = store.read(str(results))
    ids = [c["case_id"] for c in contents.cases]
    assert len(ids) == len(set(ids)) and contents.footer is not None and not contents.problems()
    assert ids[:len(before)] == before
    local = finished(runner(checkout, cluster.env, "census", "--framework", "torch", "--quick", *OPS, "--backend",
                            "local", "--out", str(tmp_path / "local")))
    assert local.returncode == 0, local.stderr[-3000:]
    assert set(ids) == set(outcomes(tmp_path / "local" / "torch-cpu-current-census.jsonl"))
