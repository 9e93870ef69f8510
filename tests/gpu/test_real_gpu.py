"""The real-GPU set: on a host whose own nvidia-smi lists a GPU, the runner reads it there, its compatibility verdict
agrees with what the machine's own torch does on it, and a torch and a JAX cell run quick on it as `make
device-check` runs them (the interpreter's own frameworks and pytest, nothing installed, no network). Elsewhere each
test skips, saying why.

`make test` on a GPU VM runs it with the rest (the cells in the first of this Python and the python3 on PATH that has
the framework); `make test-gpu [PYTHON=...]` runs it alone in the machine's own Python (3.8 or newer), which needs
nothing but pytest beside its frameworks: nothing here imports tests/conftest.py or the runner's host packages."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from portability_harness import build_facts, compat

from runner import devices

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
# Functions whose quick cases all passed on the H100 and the H200 (results/reference/): a failure here is the
# runner's or the machine's, not a framework's known one.
CELLS = {"torch": "torch.nn.Linear", "jax": "jax.numpy.add"}


def host_env() -> dict[str, str]:
    """This process's environment without a device view: the host's own devices, whatever the suite was told."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "harness")]))
    env.pop(devices.VIEW, None)
    return env


@pytest.fixture(scope="module")
def gpu() -> dict:
    """The host's first GPU as its own nvidia-smi states it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(devices.VIEW, raising=False)
        found = devices.gpu_facts()
    if not found:
        pytest.skip("no NVIDIA GPU here: no nvidia-smi on PATH, or it lists none")
    return found[0]


def interpreter(framework: str) -> str:
    """The Python whose own `framework` runs the cells: this one, else the python3 on PATH (make test's venv has no
    framework; a GPU VM's own Python does)."""
    for python in dict.fromkeys(p for p in (sys.executable, shutil.which("python3")) if p):
        if subprocess.run([python, "-c", f"import {framework}"], capture_output=True, timeout=600).returncode == 0:
            return python
    pytest.skip(f"neither {sys.executable} nor the python3 on PATH imports {framework}")


def test_the_host_reads_its_gpu_from_nvidia_smi(gpu, monkeypatch):
    assert gpu["name"] and re.fullmatch(r"\d+\.\d+", gpu["compute_cap"]), gpu
    assert re.fullmatch(r"\d+\.\d+", gpu["cuda_version"] or "") and gpu["memory_mib"], gpu
    monkeypatch.delenv(devices.VIEW, raising=False)
    assert gpu["name"] in devices.nvidia_gpus() and devices.absent_reason("cuda") is None


def test_the_verdict_on_the_machines_torch_is_what_torch_does_on_the_gpu(gpu):
    python = interpreter("torch")
    build = build_facts.probe("torch", "cuda", python, host_env())
    assert build, f"{python} could not tell its torch build"
    if build.get("cuda_build") is False:
        pytest.skip(f"{python}'s torch is a CPU-only build")
    reason = compat.cuda_reason(build["label"], build, gpu)
    ran = subprocess.run([python, "-c", "import torch; x = torch.ones(2, device='cuda'); print((x + x).sum().item())"],
                         capture_output=True, text=True, timeout=600)
    runs = ran.returncode == 0 and ran.stdout.strip() == "4.0"
    said = ran.stderr[-1500:] or "ran"
    assert (reason is None) == runs, f"verdict: {reason or 'compatible'}; torch on the GPU: {said}"


@pytest.mark.parametrize("framework", sorted(CELLS))
def test_a_cell_runs_quick_on_the_gpu_as_device_check_runs_it(gpu, framework, tmp_path):
    python, out = interpreter(framework), tmp_path / "check"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "device_check.py"), "--python", python,
                           "--frameworks", framework, "--devices", "cuda", "--steps", "quick",
                           "--functions", CELLS[framework], "--out", str(out), "--no-report"],
                          capture_output=True, text=True, timeout=1200, env=host_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    if not (out / "device-check.txt").exists():
        pytest.skip(f"{framework} in {python} sees no GPU (a CPU-only build?): {proc.stdout.strip()[-500:]}")
    image = f"{framework}-cuda"
    # device-check.txt: the interpreter, the plan, then one outcome line per step run; one step was asked for.
    (line,) = [l for l in (out / "device-check.txt").read_text().splitlines() if l.startswith(f"{image} quick:")]
    assert re.fullmatch(rf"{image} quick: [1-9]\d* cases, 0 failed \(lane 1, .*\)", line), proc.stdout[-3000:]
    records = [json.loads(l) for l in (out / "quick" / f"{image}-existing.jsonl").read_text().splitlines()]
    header, cases = records[0], [r for r in records if r["record"] == "case"]
    assert header["device"] == "cuda" and header["device_model"] == gpu["name"], header.get("device_model")
    assert header["device_facts"] == gpu and all(c["outcome"] == "passed" for c in cases), cases
