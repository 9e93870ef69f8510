"""The host's CPU: its name (a CPU cell's device_model) and what tells two CPUs apart (the header's `host_cpu`).

A name is not a CPU: two 2-core machines both called "Intel(R) Xeon(R) Processor" timed the same loop at 247 and
168 us, one of them with AVX512-FP16 and AMX, on which TensorFlow runs half-precision convolutions through oneDNN
rather than Eigen (docs/benchmarks.md). So every header also records the CPU's identity as /proc/cpuinfo gives it:
vendor, family, model and stepping (on Arm: implementer, architecture, part and variant/revision), and which of the
instruction-set extensions frameworks pick their kernels by it has. The runner's estimate takes a reference's
walls as this host's speed only on the same identity (runner/host_speed.py)."""
from __future__ import annotations

import platform
from typing import Any, Dict, Optional

CPUINFO = "/proc/cpuinfo"
# Extensions that change which kernels a framework's CPU build runs (oneDNN's and XNNPACK's dispatch, Eigen's
# packets), x86 and Arm, by /proc/cpuinfo's flag names; a CPU is recorded with those of them it has.
FEATURES = frozenset((
    "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
    "avx_vnni", "avx_ne_convert", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
    "asimd", "asimdhp", "asimddp", "fphp", "sve", "sve2", "bf16", "i8mm", "sme",
))
# (the field of the identity, the /proc/cpuinfo keys it is read from: x86's, then Arm's)
_FIELDS = (("vendor", ("vendor_id", "CPU implementer")), ("family", ("cpu family", "CPU architecture")),
           ("model", ("model", "CPU part")), ("stepping", ("stepping", "CPU variant")),
           ("revision", ("CPU revision",)))


def _first_processor(text: str) -> Dict[str, str]:
    """The key-value lines of the first processor's block (every block of one machine's CPUs says the same of
    these)."""
    fields: Dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    return fields


def parse(text: str) -> Optional[Dict[str, Any]]:
    """The identity in /proc/cpuinfo's `text`; None where it names no vendor or family (not a Linux cpuinfo)."""
    fields = _first_processor(text)
    identity: Dict[str, Any] = {}
    for name, keys in _FIELDS:
        value = next((fields[k] for k in keys if k in fields), None)
        if value is not None:
            identity[name] = value
    if "vendor" not in identity or "family" not in identity:
        return None
    flags = (fields.get("flags") or fields.get("Features") or "").split()
    identity["features"] = sorted(FEATURES.intersection(flags))
    return identity


def _cpuinfo() -> Optional[str]:
    try:
        with open(CPUINFO) as f:
            return f.read()
    except OSError:
        return None


def identity() -> Optional[Dict[str, Any]]:
    """This host's CPU identity (parse), None where there is no /proc/cpuinfo to read it from."""
    text = _cpuinfo()
    return parse(text) if text is not None else None


def model() -> str:
    """The CPU's name as /proc/cpuinfo gives it, else the platform's."""
    name = _first_processor(_cpuinfo() or "").get("model name")
    return name or platform.processor() or platform.machine()
