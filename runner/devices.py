"""Which device kinds this host has: the CPU always; NVIDIA GPUs; Cloud TPUs.

Each check reads what the host itself shows (nvidia-smi, device nodes, PCI vendor ids) without
importing a framework, so the host driver stays light and a missing device is a reason, not an error.
"""
from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

GOOGLE_PCI_VENDOR = "0x1ae0"  # TPU chips on a TPU VM are PCI devices of Google's vendor id
# ...of class "processing accelerator" (0x12) or "unassigned" (0xff); Google's virtual NIC (0x02) is not one.
_TPU_PCI_CLASSES = ("0x12", "0xff")


def nvidia_gpus() -> list[str]:
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
            gpus = [l.split(":", 1)[1].split("(UUID")[0].strip() for l in out.stdout.splitlines() if l.startswith("GPU ")]
            if gpus:
                return gpus
        except (OSError, subprocess.SubprocessError):
            pass
    return [p.name for p in sorted(Path("/dev").glob("nvidia[0-9]*"))]


def tpu_chips() -> list[str]:
    chips = [p.parent.name for p in Path("/sys/bus/pci/devices").glob("*/vendor")
             if _read(p) == GOOGLE_PCI_VENDOR and _read(p.parent / "class")[:4] in _TPU_PCI_CLASSES]
    return chips or [p.name for p in sorted(Path("/dev").glob("accel[0-9]*"))]


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


@lru_cache(maxsize=None)
def absent_reason(device: str) -> str | None:
    """None when this host has the device kind, else why not (for the matrix's 'not run' list)."""
    if device in ("cpu", "xla-cpu"):
        return None
    if device == "cuda":
        return None if nvidia_gpus() else "no NVIDIA GPU on this host (nvidia-smi lists none, no /dev/nvidia*)"
    if device == "tpu":
        return None if tpu_chips() else "no TPU on this host (no Google TPU PCI device, no /dev/accel*)"
    return f"unknown device kind {device!r}"
