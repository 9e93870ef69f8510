"""The matrix on a real Ray cluster started on this machine (`make test-ray`): a head and worker nodes on
127.0.0.1, each a `ray start` process with its own logical cell resource, token authentication set
explicitly for every process, every process ended by the fixture.

- a small matrix (JAX and PyTorch on the CPU, a few functions, quick) through --engine ray gives the same
  case ids and outcomes as the same matrix run locally;
- a tpu cell goes to the node that offers cell:tpu (a JAX stand-in there, which finds no TPU), a cuda cell
  that no node offers is listed as not run with the reason, and no node ever runs two cells at once;
- a worker node lost mid-cell: a replacement node takes the rest of the cell, every case is recorded once,
  the lost node's records are kept;
- a killed driver resumes.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from conftest import CURATED, ROOT, cases_of, one_line_error, small_matrix, wait_for
from portability_harness.records import store

sys.path.insert(0, str(ROOT / "cluster"))
from local import LocalCluster  # noqa: E402

pytestmark = pytest.mark.ray
FUNCTIONS = ("--functions", "jax.numpy.add", "--functions", "jax.lax.top_k", "--functions", "torch.argsort",
             "--functions", "torch.nn.Linear")
# A cell long enough to lose its node or its driver in the middle: about 500 quick cases, 2 minutes on 2 cores
# (all of jax.numpy.*, 888 cases, took 3.5 of them in each of the two tests that use it).
SOME_OF_JAX = "jax.numpy.[a-m]*"


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster() as c:
        for resources in ({"cell:cpu": 1}, {"cell:cpu": 1}, {"cell:tpu": 1}):
            c.add_worker(resources)
        c.wait_for("cell:cpu", 2)
        c.wait_for("cell:tpu", 1)
        yield c


@pytest.fixture(scope="module")
def checkout(tmp_path_factory, venv_for) -> Path:
    """A checkout for the driver: the project's images, harness and cases; JAX and PyTorch on cpu, tpu and
    cuda; the jax-tpu image replaced by a stand-in with the CPU packages (a TPU needs libtpu)."""
    venv_for("jax-cpu"), venv_for("torch-cpu")
    root = tmp_path_factory.mktemp("project")
    for name in ("images", "harness"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    (root / "curated").symlink_to(CURATED)
    small_matrix(root, 'frameworks = ["jax", "torch"]\ndevices = ["cpu", "tpu", "cuda"]\nprofiles = ["current"]\n'
                 'repeats = 1', '\n[[exclude]]\nimage = "torch-tpu"\n'
                 'reason = "torch_xla is several GB; the jax-tpu stand-in is enough"\n')
    (root / "images" / "jax-tpu" / "image.toml").write_text(
        'framework = "jax"\ndevice = "tpu"\npackages = ["jax", "jaxlib", "numpy", "scipy", "pytest"]\n\n'
        '[environment]\nJAX_PLATFORMS = "tpu"\n')
    return root


def runner(checkout: Path, env: dict, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "runner.cli", *args], cwd=checkout, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(env, COLUMNS="250", PYTHONPATH=str(ROOT)), **kw)


def finished(proc: subprocess.Popen, timeout: float = 900) -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def only_the_tpu_stand_in_failed(proc: subprocess.CompletedProcess) -> None:
    """The tpu stand-in finds no TPU on its node: the run finishes, says so in its last line, exits non-zero."""
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("finished with 1 failed cell of 3: jax-tpu/current")


def outcomes(run: Path) -> dict[str, dict[str, str]]:
    return {p.name: {c["case_id"]: c["outcome"] for c in cases_of(p)} for p in sorted(run.glob("*.jsonl"))}


def spans(run: Path) -> list[tuple[str, datetime, datetime, str]]:
    """(node, start, end, file) of every results file, from its header and footer."""
    found = []
    for path in run.glob("*.jsonl"):
        c = store.read(str(path))
        if c.header and c.footer:
            found.append((c.header["engine"]["node_id"], datetime.fromisoformat(c.header["started_at"]),
                          datetime.fromisoformat(c.footer["finished_at"]), path.name))
    return found


def test_a_matrix_on_the_cluster_matches_the_local_run_and_goes_where_its_device_is(cluster, checkout, tmp_path):
    ray_run, local_run = tmp_path / "ray", tmp_path / "local"
    proc = finished(runner(checkout, cluster.env, "matrix", "--engine", "ray", "--address", cluster.address,
                           "--quick", *FUNCTIONS, "--out", str(ray_run)))
    only_the_tpu_stand_in_failed(proc)
    local = finished(runner(checkout, cluster.env, "matrix", "--backend", "local", "--quick", *FUNCTIONS,
                            "--out", str(local_run)))
    assert local.returncode == 0, local.stderr[-3000:]
    # The CPU cells: the same case ids and outcomes wherever they ran.
    assert outcomes(ray_run) == outcomes(local_run) and outcomes(ray_run)
    run = json.loads((ray_run / "merged.json").read_text())
    assert run["status"] == "finished" and run["failed_cells"] == ["jax-tpu/current"]
    merged = {c["image"]: c for c in run["cells"]}
    assert merged["jax-cpu"]["status"] == merged["torch-cpu"]["status"] == "done", merged
    # Routing: the tpu cell went to the node offering cell:tpu (a stand-in: it finds no TPU there).
    tpu = merged["jax-tpu"]
    assert tpu["status"] == "failed" and "cannot use tpu" in tpu["reason"]
    assert merged["jax-cuda"]["status"] == "not_run"
    assert "no node of the Ray cluster offers cell:cuda" in merged["jax-cuda"]["reason"]
    for name in ("jax-cpu-current.jsonl", "torch-cpu-current.jsonl"):
        header = store.read(str(ray_run / name)).header
        assert header["engine"]["name"] == "ray" and header["engine"]["ray_version"]
    cpu_nodes = {n for n, *_ in spans(ray_run)}
    assert len(cpu_nodes) >= 1


def test_no_node_runs_two_cells_at_once(cluster, checkout, tmp_path):
    """Three CPU cells on two CPU nodes: one node runs two of them, one after the other."""
    run = tmp_path / "run"
    proc = finished(runner(checkout, cluster.env, "matrix", "--engine", "ray", "--address", cluster.address,
                           "--quick", "--repeats", "2", *FUNCTIONS, "--out", str(run)))
    only_the_tpu_stand_in_failed(proc)
    found = spans(run)
    assert len(found) == 4  # jax and torch, two repeats each
    by_node: dict[str, list] = {}
    for node, start, end, name in found:
        by_node.setdefault(node, []).append((start, end, name))
    assert max(len(v) for v in by_node.values()) >= 2
    for node, runs in by_node.items():
        runs.sort()
        for (s1, e1, n1), (s2, e2, n2) in zip(runs, runs[1:]):
            assert e1 <= s2, f"{n1} and {n2} overlapped on node {node}"


def test_a_lost_node_hands_the_rest_of_its_cell_to_another(cluster, checkout, tmp_path):
    run = tmp_path / "run"
    results = run / "jax-cpu-current.jsonl"
    # Only the stand-in node and one CPU node are left to run cells; lose that one mid-cell.
    spare = [n for n in cluster.nodes if n.resources == {"cell:cpu": 1}]
    cluster.lose(spare[0])
    proc = runner(checkout, cluster.env, "bench", "--image", "jax-cpu", "--engine", "ray", "--address",
                  cluster.address, "--quick", "--functions", SOME_OF_JAX, "--out", str(run))
    wait_for(lambda: len(cases_of(results)) >= 200, "200 records of the cell", 600, proc)
    busy = next(n for n in cluster.nodes if n.resources == {"cell:cpu": 1})
    cluster.lose(busy)  # the machine running the cell dies
    before = cases_of(results)
    cluster.add_worker({"cell:cpu": 1}, name="replacement")
    done = finished(proc)
    assert done.returncode == 0, done.stderr[-3000:]
    contents = store.read(str(results))
    ids = [c["case_id"] for c in contents.cases]
    assert len(ids) == len(set(ids)) and not contents.problems()  # every case exactly once
    assert len(ids) > len(before) and contents.footer is not None
    assert [c["case_id"] for c in before] == ids[:len(before)]  # what the lost node sent is kept, in place
    assert contents.footer["engine"]["node_id"] != contents.header["engine"]["node_id"]  # finished elsewhere
    assert all(c["outcome"] in ("passed", "missing_api") for c in contents.cases)


def test_a_cell_in_an_existing_environment_runs_on_a_worker_node(cluster, checkout, venv_for, tmp_path):
    python = venv_for("jax-cpu").python  # an interpreter every node of this machine can reach
    run = tmp_path / "run"
    proc = finished(runner(checkout, cluster.env, "bench", "--image", "jax-cpu", "--engine", "ray", "--address",
                           cluster.address, "--backend", f"python:{python}", "--quick", "--functions", "jax.numpy.add",
                           "--out", str(run)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    header = store.read(str(run / "jax-cpu-existing.jsonl")).header
    assert header["engine"]["name"] == "ray" and header["engine"]["node_id"]
    assert header["profile"] == "existing" and header["environment"].startswith(f"existing {python}")
    assert header["passed_env"]["JAX_PLATFORMS"] == "cpu"


def test_a_killed_driver_resumes(cluster, checkout, tmp_path):
    run = tmp_path / "run"
    args = ["matrix", "--engine", "ray", "--address", cluster.address, "--quick", "--functions", SOME_OF_JAX,
            "--functions", "torch.*", "--out", str(run)]
    proc = runner(checkout, cluster.env, *args)
    wait_for(lambda: sum(len(cases_of(p)) for p in run.glob("*.jsonl")) >= 100, "100 records of the run", 600, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    only_the_tpu_stand_in_failed(finished(runner(checkout, cluster.env, *args, "--resume")))
    for path in run.glob("*-cpu-*.jsonl"):
        contents = store.read(str(path))
        ids = [c["case_id"] for c in contents.cases]
        assert contents.footer and len(ids) == len(set(ids)) and not contents.problems(), path
    assert json.loads((run / "merged.json").read_text())["status"] == "finished"


def test_without_a_cluster_or_ray_it_is_one_line_and_nothing_is_written(checkout, tmp_path):
    out = tmp_path / "run"
    for address, words in (("127.0.0.1:1", "no Ray cluster answers"), ("no-port", "is not HOST:PORT")):
        one_line_error(finished(runner(checkout, dict(os.environ), "matrix", "--engine", "ray", "--address", address,
                                       "--out", str(out))), words)
    # A Python where `import ray` fails, as on a host without the extra installed.
    fake = tmp_path / "noray"
    (fake / "ray").mkdir(parents=True)
    (fake / "ray" / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "matrix", "--engine", "ray", "--address",
                           "127.0.0.1:6379", "--out", str(out)], cwd=checkout, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=f"{fake}:{ROOT}"))
    one_line_error(proc, "needs Ray", "pip install -e '.[ray]'")
    assert not out.exists()
