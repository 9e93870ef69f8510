"""The accelerator's state beside each timing: a GPU's SM and memory clocks, temperature, power draw and the reasons
NVML gives for holding its clocks down, read just before and just after a case's measurement (the cold call,
warm-up and samples), into the record's `device_state`.

Why it matters: sustained tensor-core work holds a card at its power cap, and its SM clock falls (an H200 from 1980
MHz to about 1400-1455 under an 8192 float16 matmul, nvidia-smi reporting the software power cap), so a short
steady window after an idle gap measures boost clocks and a long one the power-capped card.

Why before and after, not a thread sampling meanwhile: a thread would wake inside the timed samples and take the
GIL from the call being timed; two readings outside them cost nothing there, and NVML's violation counters (the
time the GPU spent held below its clocks by the power or the thermal policy, cumulative) cover what happened
between them. Seven NVML queries a reading, where the device answers them; one it does not answer is left out.

Through nvidia-ml-py (`import pynvml`) where it imports and the cell's device is a GPU; elsewhere nothing is read,
imported or written (no field, never an error). The GPU read is the cell's: the first of CUDA_VISIBLE_DEVICES (an
index or a UUID), as the frameworks number them, else NVML's first. A TPU's runtime gives no clocks, power or
throttling through a public interface (libtpu's monitoring gives utilisation and memory), so TPU cells record none.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from portability_harness.protocol import Config

# NVML's names for a clock-holding reason, as nvidia-ml-py spells its constants (older releases say Throttle, newer
# ones Event); each reason is named by its constant, so a reading lists names, never bit values.
REASON_PREFIXES = ("nvmlClocksThrottleReason", "nvmlClocksEventReason")
NOT_REASONS = ("All", "None", "Unknown")
# The violation counters read: the policies that hold clocks down under sustained load.
POLICIES = {"power": "NVML_PERF_POLICY_POWER", "thermal": "NVML_PERF_POLICY_THERMAL"}


def reason_names(nvml: Any) -> Dict[int, str]:
    """Each reason's bit -> its name in snake case ("sw_power_cap"), from the module's constants; an alias of a bit
    (UserDefinedClocks for ApplicationsClocksSetting) keeps the first name in sorted order."""
    names: Dict[int, str] = {}
    for attribute in sorted(dir(nvml)):
        prefix = next((p for p in REASON_PREFIXES if attribute.startswith(p)), None)
        name = attribute[len(prefix):] if prefix else ""
        if name and name not in NOT_REASONS:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
            names.setdefault(getattr(nvml, attribute), snake)
    return names


def reasons(mask: Optional[int], names: Dict[int, str]) -> List[str]:
    """The names of the reasons set in `mask`, in bit order; an unnamed bit as its value."""
    if not mask:
        return []
    bits = [1 << i for i in range(mask.bit_length()) if mask >> i & 1]
    return [names.get(bit, hex(bit)) for bit in bits]


class Reader:
    """NVML readings of the cell's GPU."""

    def __init__(self, nvml: Any, handle: Any):
        self.nvml, self.handle = nvml, handle
        self.names = reason_names(nvml)

    @classmethod
    def for_config(cls, cfg: Config) -> Optional["Reader"]:
        """A reader for a cuda cell where nvidia-ml-py imports and NVML starts; None otherwise (nothing imported)."""
        if cfg.device != "cuda":
            return None
        try:
            import pynvml
        except ImportError:
            return None
        try:
            pynvml.nvmlInit()
            return cls(pynvml, _handle(pynvml, os.environ.get("CUDA_VISIBLE_DEVICES", "")))
        except pynvml.NVMLError:
            return None

    def read(self) -> Dict[str, Any]:
        """One reading: clocks (MHz), temperature (C), power (W), the reasons' mask, the violation counters (ns)."""
        n, h = self.nvml, self.handle
        return {"sm_mhz": self._ask(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_SM),
                "mem_mhz": self._ask(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_MEM),
                "temp_c": self._ask(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU),
                "power_w": _scaled(self._ask(n.nvmlDeviceGetPowerUsage, h), 1e-3),
                "reasons": self._ask(getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", None)
                                     or n.nvmlDeviceGetCurrentClocksThrottleReasons, h),
                "violation_ns": {policy: _violation(self._ask(n.nvmlDeviceGetViolationStatus, h, getattr(n, const)))
                                 for policy, const in POLICIES.items()}}

    def _ask(self, query: Any, *args: Any) -> Any:
        try:
            return query(*args)
        except self.nvml.NVMLError:
            return None  # not supported on this GPU (or for this user): left out

    def window(self, before: Dict[str, Any], after: Dict[str, Any]) -> Dict[str, Any]:
        """The record's `device_state` from the readings before and after a measurement: each value as [before,
        after], the reasons set at either end, and the seconds the power or thermal policy held the clocks down in
        between (counted only where both readings have the counter)."""
        state: Dict[str, Any] = {}
        for key in ("sm_mhz", "mem_mhz", "temp_c", "power_w"):
            if before.get(key) is not None and after.get(key) is not None:
                state[key] = [before[key], after[key]]
        named = reasons(before.get("reasons"), self.names) + reasons(after.get("reasons"), self.names)
        if before.get("reasons") is not None or after.get("reasons") is not None:
            state["reasons"] = sorted(set(named))
        held = {p: (after["violation_ns"][p] - before["violation_ns"][p]) / 1e9 for p in POLICIES
                if before["violation_ns"][p] is not None and after["violation_ns"][p] is not None}
        if held:
            state["held_s"] = held
        return state


def _handle(nvml: Any, visible: str) -> Any:
    first = visible.split(",")[0].strip()
    if first.startswith(("GPU-", "MIG-")):
        return nvml.nvmlDeviceGetHandleByUUID(first)
    return nvml.nvmlDeviceGetHandleByIndex(int(first) if first.isdigit() else 0)


def _scaled(value: Optional[float], factor: float) -> Optional[float]:
    return None if value is None else round(value * factor, 3)


def _violation(status: Any) -> Optional[int]:
    return None if status is None else int(status.violationTime)
