"""The compatibility verdict on real artefacts of real builds and devices: the arch list PyTorch 1.12.0 from PyPI
reports (tests/devices/torch-1.12.0-build.json, read by `python -m portability_harness.build_facts` from the real
wheel), TensorFlow 2.21.0's tf.sysconfig.get_build_info() (tests/devices/tensorflow-2.21.0-build-info.json), and
what nvidia-smi printed on an H100 and an H200 (tests/devices/h100 and h200, captured with the runs in
results/reference/, answered by their bin/nvidia-smi as the host would run it)."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import DEVICES, ROOT
from portability_harness import compat

from runner import devices

TORCH_112 = json.loads((DEVICES / "torch-1.12.0-build.json").read_text())
_TF = json.loads((DEVICES / "tensorflow-2.21.0-build-info.json").read_text())
TF_221 = {"label": "TensorFlow 2.21.0", "cuda_build": _TF["is_cuda_build"], "cuda": _TF["cuda_version"],
          "arches": _TF["cuda_compute_capabilities"]}


def gpu(cap: str, cuda: str = "12.2", name: str = "the GPU") -> dict:
    """A GPU as a test states it, for the arithmetic of arches and CUDA versions (the captured ones are below)."""
    return {"name": name, "compute_cap": cap, "driver_version": "535.183.06", "cuda_version": cuda}


@pytest.fixture(scope="module")
def h100() -> dict:
    """The first GPU as runner.devices reads it from the H100's captured nvidia-smi, through a real subprocess."""
    smi = str(DEVICES / "h100" / "bin" / "nvidia-smi")
    rows = subprocess.run([smi, f"--query-gpu={','.join(devices.GPU_QUERY)}", "--format=csv,noheader"],
                          capture_output=True, text=True, check=True).stdout
    banner = subprocess.run([smi], capture_output=True, text=True, check=True).stdout
    (first,) = devices.parse_gpu_facts(rows, banner)
    return first


def test_the_host_reads_the_gpu_its_driver_and_the_newest_cuda_the_driver_supports(h100):
    assert h100 == {"name": "NVIDIA H100 80GB HBM3", "compute_cap": "9.0", "driver_version": "580.159.04",
                    "memory_mib": 81559, "cuda_version": "13.0"}


@pytest.mark.parametrize("view, run", [("h100", "h100-2026-11-26"), ("h200", "h200-2026-11-26")])
def test_the_device_views_hold_what_the_machines_printed(view, run):
    # Cut unchanged from the runs' own records (the H200's kept nvidia-smi's answers in files of their own): a
    # hand edit of a view shows up here.
    record = ROOT / "results" / "reference" / run
    printed = "".join(p.read_text() for p in (record / "facts.txt", record / "nvidia-smi.txt",
                                              record / "nvidia-smi-query.csv") if p.exists())
    captured = "".join((DEVICES / view / name).read_text() for name in ("nvidia-smi.txt", "nvidia-smi-query-gpu.csv"))
    assert captured in printed
    assert "captured" in (DEVICES / view / "README.md").read_text()


def test_the_host_reads_its_gpus_through_nvidia_smi_on_path(monkeypatch):
    monkeypatch.delenv(devices.VIEW, raising=False)  # no view: the host's own PATH, here with the H100's first
    monkeypatch.setenv("PATH", f"{DEVICES / 'h100' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    assert devices.nvidia_gpus() == ["NVIDIA H100 80GB HBM3"]
    assert devices.facts("cuda")["compute_cap"] == "9.0" and devices.facts("cpu") == {}
    assert devices.absent_reason("cuda") is None


def test_a_device_view_is_the_hosts_devices_as_the_runner_reads_them(device_view):
    device_view("h200")
    assert devices.nvidia_gpus() == ["NVIDIA H200"] and devices.facts("cuda")["memory_mib"] == 143771
    assert devices.absent_reason("cuda") is None and "no TPU" in devices.absent_reason("tpu")
    empty = device_view()
    assert devices.nvidia_gpus() == [] and "no NVIDIA GPU" in devices.absent_reason("cuda")
    (empty / "dev" / "vfio").mkdir(parents=True)
    (empty / "dev" / "nvidia0").write_text("")  # a device node and no nvidia-smi, as in a container
    assert devices.nvidia_gpus() == ["nvidia0"] and devices.absent_reason("cuda") is None
    # A TPU VM's nodes: /dev/accel* (v4 and older) or /dev/vfio/N (v5e and newer).
    (empty / "dev" / "accel0").write_text("")
    (empty / "dev" / "vfio" / "0").write_text("")
    assert devices.tpu_nodes() == [empty / "dev" / "accel0", empty / "dev" / "vfio" / "0"]
    assert devices.tpu_chips() == ["accel0"] and devices.absent_reason("tpu") is None


def test_pytorch_1_12_from_pypi_cannot_run_on_an_h100_and_the_reason_names_both_sides(h100):
    reason = compat.cuda_reason(TORCH_112["label"], TORCH_112, h100)
    assert reason == ("PyTorch 1.12.0+cu102 is built for sm_37, sm_50, sm_60, sm_70 without PTX; "
                      "NVIDIA H100 80GB HBM3 is sm_90")


@pytest.mark.parametrize("cap,runs", [("3.7", True), ("6.1", True), ("7.0", True), ("7.5", True), ("8.0", False),
                                      ("8.6", False), ("9.0", False)])
def test_machine_code_runs_on_its_own_major_at_an_equal_or_newer_minor(cap, runs):
    # The study's T4 (7.5) runs PyTorch 1.12's sm_70 code; an A100 (8.0) does not.
    assert (compat.cuda_reason("PyTorch 1.12.0", TORCH_112, gpu(cap, cuda="11.4")) is None) is runs


def test_tensorflow_2_21_reaches_an_h100_only_through_ptx_which_an_older_driver_cannot_compile(h100):
    # The captured H100's driver (newest CUDA 13.0) compiles TensorFlow's compute_90 PTX; one of CUDA 12.2 cannot.
    assert compat.cuda_reason("TensorFlow 2.21.0", TF_221, h100) is None
    reason = compat.cuda_reason("TensorFlow 2.21.0", TF_221, dict(h100, cuda_version="12.2"))
    assert "compute_90" in reason and "CUDA 12.5.1" in reason and "CUDA 12.2" in reason
    # On an A100 its sm_80 machine code needs no JIT, and CUDA 12's minor-version compatibility lets 12.5 run on 12.2.
    assert compat.cuda_reason("TensorFlow 2.21.0", TF_221, gpu("8.0", cuda="12.2")) is None


def test_a_runtime_of_a_newer_cuda_major_than_the_driver_supports_is_incompatible():
    reason = compat.cuda_reason("TensorFlow 2.21.0", TF_221, gpu("8.0", cuda="11.4"))
    assert reason == "TensorFlow 2.21.0 is built for CUDA 12.5.1; the driver 535.183.06 supports CUDA 11.4 at most"
    # CUDA 10 had no minor-version compatibility: 10.2 needs a driver of 10.2 or newer.
    assert compat.cuda_reason("PyTorch 1.12.0", TORCH_112, gpu("7.0", cuda="10.1")) is not None


def test_a_cpu_only_build_is_incompatible_and_unknown_facts_never_are():
    assert "CPU-only" in compat.cuda_reason("TensorFlow 2.21.0", {"cuda_build": False}, gpu("9.0"))
    assert compat.cuda_reason("JAX", {"cuda_build": None, "arches": []}, gpu("9.0")) is None
    assert compat.cuda_reason("PyTorch 1.12.0", TORCH_112, {}) is None


def test_arch_specific_code_runs_only_on_its_own_chip_and_ptx_on_any_newer_one():
    assert compat.runs_on("sm_90a", (9, 0)) and not compat.runs_on("sm_90a", (10, 0))
    assert compat.runs_on("compute_37", (9, 0)) and not compat.runs_on("compute_90", (8, 9))
    assert compat.describe_arches(["sm_80", "compute_80"]) == "sm_80 with PTX compute_80"


def test_one_tpu_is_one_setup_whichever_framework_looked_at_it():
    from portability_harness.worker import device_model

    host = {"chips": 4, "accelerator_type": "v4-8", "source": "TPU_ACCELERATOR_TYPE"}
    # JAX names the chip ("TPU v4"), torch_xla and TensorFlow inside a container see no type ("TPU ").
    assert {device_model("tpu", seen, host) for seen in ("TPU v4", "TPU ", "TPU")} == {"TPU v4-8"}
    assert device_model("tpu", "TPU v4", {}) == "TPU v4"  # nothing read on the host: the framework's name stays
    assert device_model("cuda", "NVIDIA H100 80GB HBM3", {"accelerator_type": "v4-8"}) == "NVIDIA H100 80GB HBM3"


def test_a_host_without_tpu_chips_reads_no_tpu_facts(monkeypatch, no_devices):
    monkeypatch.setenv("TPU_ACCELERATOR_TYPE", "v4-8")  # a variable alone is not a TPU
    assert devices.tpu_chips() == [] and devices.facts("tpu") == {}


def test_torch_xla_reaches_a_tpu_through_xrt_before_2_0_and_pjrt_after():
    from portability_harness.frameworks.torch_adapter import xla_runtime

    assert xla_runtime("1.12") == {"XRT_TPU_CONFIG": "localservice;0;localhost:51011"}  # the study's torch_xla
    assert xla_runtime("2.9.0") == {"PJRT_DEVICE": "TPU"} and xla_runtime(None) == {"PJRT_DEVICE": "TPU"}


# Captured on an H200 VM on 2026-11-26 (the run in results/reference/h200-2026-11-26): the banner nvidia-smi
# printed, and its --query-gpu answer for name,compute_cap,driver_version,memory.total,pci.bus_id.
H200 = DEVICES / "h200"


def test_the_host_reads_a_real_h200_from_what_its_nvidia_smi_printed():
    rows = (H200 / "nvidia-smi-query-gpu.csv").read_text()
    # The capture asked for the bus id too: the host's own query is its first four columns.
    ours = "\n".join(", ".join(line.split(", ")[:len(devices.GPU_QUERY)]) for line in rows.splitlines())
    (first,) = devices.parse_gpu_facts(ours, (H200 / "nvidia-smi.txt").read_text())
    assert first == {"name": "NVIDIA H200", "compute_cap": "9.0", "driver_version": "580.159.04",
                     "memory_mib": 143771, "cuda_version": "13.0"}
    # A row of other columns is not taken for a GPU.
    assert devices.parse_gpu_facts(rows, "") == ()


def test_the_builds_that_ran_on_the_h200_are_compatible_and_pytorch_1_12_is_not():
    (gpu,) = devices.parse_gpu_facts(
        "NVIDIA H200, 9.0, 580.159.04, 143771 MiB", (H200 / "nvidia-smi.txt").read_text())
    torch_211 = json.loads((DEVICES / "torch-2.11.0+cu130-build.json").read_text())
    assert "sm_90" in torch_211["arches"] and compat.cuda_reason(torch_211["label"], torch_211, gpu) is None
    assert compat.cuda_reason(TORCH_112["label"], TORCH_112, gpu) == (
        "PyTorch 1.12.0+cu102 is built for sm_37, sm_50, sm_60, sm_70 without PTX; NVIDIA H200 is sm_90")
    # The same wheel on a driver whose newest CUDA is 12.2 cannot load its CUDA 13 runtime.
    assert "13" in compat.cuda_reason(torch_211["label"], torch_211, dict(gpu, cuda_version="12.2"))
