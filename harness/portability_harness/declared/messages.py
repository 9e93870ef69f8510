"""What a failure message says about support: the op, the dtypes, the device, the kernels registered.

Frameworks put these facts in their messages in their own formats; this reads the formats, not any
particular message:
- TensorFlow: "[Op:Conv3D]", "No registered 'Sort' OpKernel for 'GPU' devices", the detailed placement
  error ("Op: PyFuncStateless", "Node attrs: T=DT_INT32, ...", "Registered kernels: device='GPU'; T in
  [DT_FLOAT]"), the requested device ("device specification '.../device:TPU:0'"), XLA metadata
  (op_type="RandomStandardNormal") and XLA element types (F64, C128, f64[2]);
- PyTorch: "not implemented for 'Half'", "Could not run 'aten::add' with arguments from the 'XLA'
  backend", torch_xla's "Error while lowering: [] aten::isnan";
- JAX: "MLIR translation rule for primitive 'eig' not found for platform tpu", "dtype=float64".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .dtypes import canonical

_OP_PATTERNS = [  # most specific first: the op a detailed error is about, then the op that was called
    re.compile(r"^\s*Op: (\w+)\s*$", re.M),
    re.compile(r"No registered '(\w+)' OpKernel"),
    re.compile(r"op_type=\"(\w+)\""),
    re.compile(r"\((\w+)\) /job:"),  # TensorFlow colocation members: node name (op type) device
    re.compile(r"Could not run '(?:aten::)?(\w+)' with arguments"),
    re.compile(r"Error while lowering: \[[^\]]*\] (?:aten|xla)::(\w+)"),
    re.compile(r"rule for primitive '(\w+)'"),
    re.compile(r"\[Op:(\w+)\]"),
]
_NODE_ATTRS = re.compile(r"Node attrs: ([^\n]*)")
_DT = re.compile(r"\bDT_([A-Z0-9_]+)\b")
_ATTR_DT = re.compile(r"\b\w+=DT_([A-Z0-9_]+)\b")  # T=DT_INT32 in a NodeDef (kernel lists say "T in [...]")
_DTYPE_PATTERNS = [
    re.compile(r"not implemented for '(\w+)'"),
    re.compile(r"[Ee]lement type (\w+) is not supported"),
    re.compile(r"but got (\w+)\b"),
    re.compile(r"\b(pred|[suf]\d{1,2}|bf16|c64|c128)\[[\d,]*\]"),  # an HLO shape: f64[2,3]
    re.compile(r"\bdtype[=: ]+'?(?:torch\.|tf\.|np\.)?(\w+)'?"),
]
_DEVICE_PATTERNS = [  # the device the failing call asked for
    re.compile(r"device specification '[^']*device:(GPU|TPU|CPU):\d+'"),
    re.compile(r"for '(GPU|TPU|CPU)' devices"),
    re.compile(r"kernel for (GPU|TPU|CPU) devices"),
    re.compile(r"from the '(CUDA|XLA|CPU)' backend"),
    re.compile(r"for platform (cuda|rocm|tpu|cpu)\b"),
]
_DEVICE_KIND = {"GPU": "cuda", "CUDA": "cuda", "TPU": "tpu", "XLA": "tpu", "CPU": "cpu",
                "cuda": "cuda", "rocm": "cuda", "tpu": "tpu", "cpu": "cpu"}
# A failure to find a kernel for the op's attributes on the device (TensorFlow's placement and kernel
# lookup): when the op has kernels on that device, what did not match can only be a type attribute.
_KERNEL_LOOKUP = re.compile(
    r"Could not satisfy (explicit )?device specification|No registered '\w+' OpKernel|no supported kernel for \w+ devices"
    r"|Cannot assign a device for operation|Could not find (a )?(valid )?device for node", re.I)
_KERNELS_BLOCK = re.compile(r"Registered kernels:\s*\n((?:[ \t]+(?:device='\w+'[^\n]*|<no registered kernels>)\n?)*)")
_KERNEL_LINE = re.compile(r"device='(\w+)'(?:;\s*(.*))?")
_CONSTRAINT = re.compile(r"(\w+) in \[([^\]]*)\]")


@dataclass
class Reading:
    ops: List[str] = field(default_factory=list)  # op types named, most specific first
    dtypes: List[str] = field(default_factory=list)  # canonical dtypes of the failing call
    device: Optional[str] = None  # device kind the failing call asked for: cpu, cuda, tpu
    # TensorFlow's own list of the op's kernels: registry device type -> {attr: [dtype]}; None: not given
    kernels: Optional[Dict[str, Dict[str, List[str]]]] = None
    kernel_lookup: bool = False


def read(text: str) -> Reading:
    reading = Reading()
    kernel_block = _KERNELS_BLOCK.search(text)
    if kernel_block:
        reading.kernels = _kernels(kernel_block.group(1))
        text_outside = text[:kernel_block.start()] + text[kernel_block.end():]
    else:
        text_outside = text
    for pattern in _OP_PATTERNS:
        for m in pattern.finditer(text_outside):
            op = m.group(1)
            if not op.startswith("__") and op not in reading.ops:  # __inference_f_123: a function, not an op
                reading.ops.append(op)
    found: List[Optional[str]] = []
    for m in _NODE_ATTRS.finditer(text_outside):
        found += [canonical(d) for d in _DT.findall(m.group(1))]
    found += [canonical(d) for d in _ATTR_DT.findall(text_outside)]
    for pattern in _DTYPE_PATTERNS:
        found += [canonical(m.group(1)) for m in pattern.finditer(text_outside)]
    reading.dtypes = [d for i, d in enumerate(found) if d and d not in found[:i]]
    for pattern in _DEVICE_PATTERNS:
        m = pattern.search(text_outside)
        if m:
            reading.device = _DEVICE_KIND[m.group(1)]
            break
    reading.kernel_lookup = bool(_KERNEL_LOOKUP.search(text_outside))
    return reading


def _kernels(block: str) -> Dict[str, Dict[str, List[str]]]:
    kernels: Dict[str, Dict[str, List[str]]] = {}
    for line in block.splitlines():
        m = _KERNEL_LINE.search(line)
        if not m:
            continue
        constraints = kernels.setdefault(m.group(1), {})
        for attr, values in _CONSTRAINT.findall(m.group(2) or ""):
            names = [canonical(v.strip()) for v in values.split(",")]
            constraints.setdefault(attr, [])
            constraints[attr] += [n for n in names if n and n not in constraints[attr]]
    return kernels


# Registry device types whose kernels can run an op placed on a device kind. DEFAULT kernels serve any
# device without a matching kernel of its own.
REGISTRY_DEVICES = {"cpu": ("CPU", "DEFAULT"), "cuda": ("GPU", "DEFAULT"),
                    "tpu": ("TPU", "XLA_TPU_JIT", "DEFAULT")}


def kernels_on(reading: Reading, device_kind: str) -> Optional[bool]:
    """Whether the message's kernel list has a kernel for the device kind (None: the message has no list)."""
    if reading.kernels is None or device_kind not in REGISTRY_DEVICES:
        return None
    return any(d in reading.kernels for d in REGISTRY_DEVICES[device_kind])
