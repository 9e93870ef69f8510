"""A cuda cell on a host that shows the H100 captured in results/reference/h100-2026-11-26 (the device view
tests/devices/h100: its nvidia-smi's answers and /dev/nvidia0; no framework reaches a real GPU): the real PyTorch
1.12.0 from PyPI (its CUDA 10.2 build, whose arch list is read from the wheel) is one `incompatible` cell naming both sides, with no case record; the dry run says so once the environment
is built; the report shows it as its own state. The current profile's torch-cuda is judged by what its installed
wheel says, whatever that is."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, config, harness

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def h100(device_view):
    return device_view("h100")


def cli(*args: str, venvs: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250")
    if venvs is not None:
        env["RUNNER_VENV_DIR"] = str(venvs)
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800, env=env)


def dry_run_row(image: str, venvs: Path | None = None) -> str:
    proc = cli("matrix", "--profile", "paper2023", "--backend", "local", "--dry-run", venvs=venvs)
    assert proc.returncode == 0, proc.stderr
    (row,) = [l for l in proc.stdout.splitlines() if f" {image} " in l and " eager " in l]
    return row


def only_cell(out: Path) -> dict:
    merged = json.loads((out / "merged.json").read_text())
    (cell,) = merged["cells"]
    assert merged["status"] == "finished" and merged["failed_cells"] == []
    return cell


def test_pytorch_1_12_on_an_h100_is_one_incompatible_cell_that_names_both_sides(tmp_path):
    # With no environment built yet, the dry run cannot know and says when it will.
    row = dry_run_row("torch-cuda", venvs=tmp_path / "no-venvs")
    assert " run " in row and "checked when the cell starts" in row
    assert " run " in dry_run_row("torch-cpu", venvs=tmp_path / "no-venvs")  # the CPU cells are not affected

    out = tmp_path / "run"
    proc = cli("bench", "--image", "torch-cuda", "--profile", "paper2023", "--backend", "local", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    cell = only_cell(out)
    assert cell["status"] == "incompatible" and cell["runs"] == []
    assert cell["reason"].startswith("PyTorch 1.12.0") and "NVIDIA H100 80GB HBM3 is sm_90" in cell["reason"]
    assert "sm_37, sm_50, sm_60, sm_70 without PTX" in cell["reason"]  # the wheel's own arch list
    assert not list(out.glob("*.jsonl")), "no case may run on a device the build cannot use"

    # Built now: the dry run reads the verdict from the environment.
    row = dry_run_row("torch-cuda")
    assert " incompatible " in row and "sm_90" in row

    # A resumed run keeps the verdict and runs nothing.
    again = cli("bench", "--image", "torch-cuda", "--profile", "paper2023", "--backend", "local", "--out", str(out),
                "--resume")
    assert again.returncode == 0 and only_cell(out)["status"] == "incompatible" and not list(out.glob("*.jsonl"))

    # The report shows it as its own state, neither a pass nor a failure of any function.
    report = cli("report", str(out))
    assert report.returncode == 0, report.stderr
    md = (out / "report.md").read_text()
    (grid_row,) = [l for l in md.splitlines() if l.startswith("| torch | ")]
    assert "incompatible: PyTorch 1.12.0" in grid_row.split(" | ")[2]
    assert "0 functions failed" in md


def test_the_current_torch_cuda_is_judged_by_what_its_installed_wheel_says(tmp_path):
    out = tmp_path / "run"
    proc = cli("bench", "--image", "torch-cuda", "--profile", "current", "--backend", "local", "--quick",
               "--out", str(out))
    cell = only_cell(out) if proc.returncode == 0 else json.loads((out / "merged.json").read_text())["cells"][0]
    if cell["status"] == "incompatible":
        # A CPU wheel where the index offers one, or a CUDA build without sm_90 code or PTX for it.
        assert "CPU-only build" in cell["reason"] or "is sm_90" in cell["reason"] or "PTX" in cell["reason"]
        assert not list(out.glob("*.jsonl"))
    else:
        # A build that can serve sm_90 is let through; on this machine no GPU answers, which is the device's
        # failure to start, not a function's.
        assert cell["status"] == "failed" and "sees no CUDA device" in cell["reason"], cell


def test_tensorflow_that_sees_no_gpu_says_why_from_its_own_log(venv_for, tmp_path):
    # The tf-cpu venv holds the full tensorflow wheel, a CUDA build: asked for the GPU where it finds none (no
    # driver here; none visible on a GPU VM), it says so in a warning the cell's error must carry (a log level that
    # hid it said nothing).
    out = tmp_path / "tf-cuda.jsonl"
    rc, events = harness(venv_for("tf-cpu"), config(out, "tensorflow", device="cuda", quick=True,
                                                   functions=["tf.math.add"]))
    assert rc == 3 and events[-1]["reason"] == "device_unavailable", events
    message = events[-1]["message"]
    assert "sees no GPU device" in message and "(its log: " in message and "cuda" in message.lower(), message
    assert not out.exists() or not [l for l in out.read_text().splitlines() if '"record": "case"' in l]
