"""Which device kinds this host has: the CPU always; NVIDIA GPUs; Cloud TPUs.

Each check reads what the host itself shows (nvidia-smi, device nodes, PCI vendor ids) without
importing a framework, so the host driver stays light and a missing device is a reason, not an error.

RUNNER_DEVICE_VIEW=FOLDER makes FOLDER the host's devices as the runner reads them: FOLDER/dev and
FOLDER/sys/bus/pci/devices stand for /dev and /sys/bus/pci/devices, and FOLDER/bin/nvidia-smi (if there is
one) for the nvidia-smi on PATH. An empty folder is a host with no GPU and no TPU; tests/devices/h200 is the
H200 captured in results/reference/h200-2026-11-26. The test suite sets a view for every test whose outcome
depends on the host's devices, so that it passes on a GPU or TPU VM as it does here.
"""
from __future__ import annotations

import os
import re
import shutil
import urllib.request
import subprocess
from functools import lru_cache
from pathlib import Path

GOOGLE_PCI_VENDOR = "0x1ae0"  # TPU chips on a TPU VM are PCI devices of Google's vendor id
# ...of class "processing accelerator" (0x12) or "unassigned" (0xff); Google's virtual NIC (0x02) is not one.
_TPU_PCI_CLASSES = ("0x12", "0xff")
PCI = "/sys/bus/pci/devices"
VIEW = "RUNNER_DEVICE_VIEW"


def host_path(path: str) -> Path:
    """Where the host's `path` (/dev, /sys/bus/pci/devices) is read: under the device view if one is set."""
    view = os.environ.get(VIEW)
    return Path(view, path.lstrip("/")) if view else Path(path)


def nvidia_smi() -> str | None:
    """The nvidia-smi that answers for this host: the device view's bin/nvidia-smi, else the one on PATH."""
    view = os.environ.get(VIEW)
    return shutil.which("nvidia-smi", path=str(Path(view, "bin"))) if view else shutil.which("nvidia-smi")


def nvidia_gpus() -> list[str]:
    return [g["name"] for g in gpu_facts()] or [p.name for p in sorted(host_path("/dev").glob("nvidia[0-9]*"))]


GPU_QUERY = ("name", "compute_cap", "driver_version", "memory.total")


def gpu_facts() -> tuple[dict, ...]:
    """Each NVIDIA GPU as nvidia-smi states it: name, compute capability, driver, memory, and the newest CUDA the
    driver supports (the banner's "CUDA Version", which --query-gpu does not offer). () without nvidia-smi."""
    return _gpu_facts(nvidia_smi())


@lru_cache(maxsize=None)  # asked once per nvidia-smi: a view set or PATH changed is asked anew
def _gpu_facts(smi: str | None) -> tuple[dict, ...]:
    if not smi:
        return ()
    try:
        rows = subprocess.run([smi, f"--query-gpu={','.join(GPU_QUERY)}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout
        banner = subprocess.run([smi], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return parse_gpu_facts(rows, banner)


def parse_gpu_facts(rows: str, banner: str) -> tuple[dict, ...]:
    cuda = re.search(r"CUDA Version:\s*([0-9.]+)", banner)
    gpus = []
    for line in rows.splitlines():
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(GPU_QUERY):
            continue
        name, cap, driver, memory = values
        mib = re.match(r"(\d+)\s*MiB", memory)
        gpus.append({"name": name, "compute_cap": cap, "driver_version": driver,
                     "memory_mib": int(mib.group(1)) if mib else None, "cuda_version": cuda.group(1) if cuda else None})
    return tuple(gpus)


def facts(device: str) -> dict:
    """What the host reads of a cell's device for its header and compatibility verdict: the first GPU of a cuda
    cell (the one its worker uses), the TPU's type, nothing for the CPU."""
    if device == "cuda":
        gpus = gpu_facts()
        return dict(gpus[0]) if gpus else {}
    if device == "tpu":
        return tpu_facts()
    return {}


METADATA = "http://metadata.google.internal/computeMetadata/v1/instance/attributes/accelerator-type"


def tpu_facts() -> dict:
    """The TPU's type ("v4-8", "v5litepod-8") as the host knows it: TPU_ACCELERATOR_TYPE, which TPU VMs set, else
    the VM's metadata server, else only the chips' PCI ids. Read once on the host, so that every framework's cell
    on this TPU names it the same way (inside a container the frameworks see neither)."""
    chips = tpu_chips()
    if not chips:
        return {}
    found = {"chips": len(chips)}
    kind = os.environ.get("TPU_ACCELERATOR_TYPE")
    if kind:
        return {**found, "accelerator_type": kind, "source": "TPU_ACCELERATOR_TYPE"}
    try:
        request = urllib.request.Request(METADATA, headers={"Metadata-Flavor": "Google"})
        with urllib.request.urlopen(request, timeout=2) as answer:
            return {**found, "accelerator_type": answer.read().decode().strip(), "source": "metadata"}
    except OSError:
        ids = sorted({_read(host_path(PCI) / c / "device") for c in chips} - {""})
        return {**found, "pci_device_ids": ids, "source": "pci"} if ids else found


def tpu_chips() -> list[str]:
    chips = [p.parent.name for p in host_path(PCI).glob("*/vendor")
             if _read(p) == GOOGLE_PCI_VENDOR and _read(p.parent / "class")[:4] in _TPU_PCI_CLASSES]
    return chips or [p.name for p in sorted(host_path("/dev").glob("accel[0-9]*"))]


def tpu_nodes() -> list[Path]:
    """A TPU's device nodes: /dev/accel* on v4 and older, /dev/vfio/* on v5e and newer."""
    dev = host_path("/dev")
    return sorted(dev.glob("accel[0-9]*")) + sorted((dev / "vfio").glob("[0-9]*"))


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def absent_reason(device: str) -> str | None:
    """None when this host has the device kind, else why not (for the matrix's 'not run' list)."""
    if device in ("cpu", "xla-cpu"):
        return None
    if device == "cuda":
        return None if nvidia_gpus() else "no NVIDIA GPU on this host (nvidia-smi lists none, no /dev/nvidia*)"
    if device == "tpu":
        return None if tpu_chips() else "no TPU on this host (no Google TPU PCI device, no /dev/accel*)"
    return f"unknown device kind {device!r}"
