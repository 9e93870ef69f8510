"""Can this framework build run on this GPU at all? A cell-level verdict, decided before any case runs, so that a
set-up that cannot work is one `incompatible` cell with a reason naming both sides, never N failed functions.

`build` is what the framework build says of itself (frameworks.*.build(): CUDA runtime, the compiled arch list);
`gpu` is what the host read of the device (runner.devices.gpu_facts: compute capability, the driver's newest CUDA).
Only what both sides state is compared; an unknown fact never makes a cell incompatible.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")


def _version(text: Any) -> Optional[Tuple[int, int]]:
    m = re.match(r"^(\d+)(?:\.(\d+))?", str(text or ""))
    return (int(m.group(1)), int(m.group(2) or 0)) if m else None


def capability(text: Any) -> Optional[Tuple[int, int]]:
    """"9.0" -> (9, 0); "sm_90" / "compute_86" -> (9, 0) / (8, 6)."""
    m = _ARCH.match(str(text or ""))
    if m:
        digits = m.group(2)
        return int(digits[:-1]), int(digits[-1])
    return _version(text)


def runs_on(arch: str, cc: Tuple[int, int]) -> bool:
    """Whether code compiled for `arch` runs on a device of compute capability `cc`: machine code (sm_XY) on the
    same major at an equal or newer minor, an arch-specific target (sm_90a) only on its own capability, PTX
    (compute_XY) on any newer device through the driver's JIT."""
    m = _ARCH.match(arch)
    if not m:
        return False
    target = capability(arch)
    if m.group(1) == "compute":
        return cc >= target
    if m.group(3):  # sm_90a, sm_100a: features of that one chip
        return cc == target
    return cc[0] == target[0] and cc[1] >= target[1]


def describe_arches(arches: List[str]) -> str:
    sass = [a for a in arches if a.startswith("sm_")]
    ptx = [a for a in arches if a.startswith("compute_")]
    return ", ".join(sass) + (f" with PTX {', '.join(ptx)}" if ptx else " without PTX")


def cuda_reason(label: str, build: Dict[str, Any], gpu: Dict[str, Any]) -> Optional[str]:
    """Why `label` (e.g. "PyTorch 1.12.0") cannot run on `gpu`, or None when nothing known forbids it."""
    name = gpu.get("name") or "this GPU"
    if build.get("cuda_build") is False:
        return f"{label} is a CPU-only build (no CUDA); {name} needs a CUDA build"
    runtime, driver = _version(build.get("cuda")), _version(gpu.get("cuda_version"))
    if runtime and driver and (runtime[0] > driver[0] or runtime[0] < 11 and runtime > driver):
        # CUDA 11 and later run a newer minor runtime on an older driver of the same major; 10.x does not.
        driver_name = " ".join(filter(None, ("the driver", gpu.get("driver_version"))))
        return f"{label} is built for CUDA {build['cuda']}; {driver_name} supports CUDA {gpu['cuda_version']} at most"
    cc, arches = capability(gpu.get("compute_cap")), [a for a in build.get("arches") or [] if _ARCH.match(a)]
    if not (cc and arches):
        return None
    usable = [a for a in arches if runs_on(a, cc)]
    if not usable:
        return f"{label} is built for {describe_arches(arches)}; {name} is sm_{cc[0]}{cc[1]}"
    if all(a.startswith("compute_") for a in usable) and runtime and driver and runtime > driver:
        # Minor-version compatibility does not extend to the JIT: a driver cannot compile PTX newer than itself.
        return (f"{label} reaches sm_{cc[0]}{cc[1]} only through PTX ({', '.join(usable)}) made by CUDA "
                f"{build['cuda']}, which the driver's JIT (CUDA {gpu['cuda_version']}) cannot compile")
    return None


def compiler_reason(framework: str, version: Any) -> Optional[str]:
    """Why this framework release has no compiler for the `compiled` axis, or None: torch.compile came with
    PyTorch 2.0 (jax.jit and tf.function(jit_compile=True) exist in every release the matrix pins)."""
    release = _version(version)
    if framework == "torch" and release and release[0] < 2:
        return f"torch.compile arrived in PyTorch 2.0; this is PyTorch {version}"
    return None
