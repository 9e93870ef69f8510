"""Failure categories (design.md, Outcomes) from an exception chain, plus per-case annotations.

The classifier reads every exception in the chain (causes and contexts, not only the last line),
because frameworks often wrap the informative error: TensorFlow's InvalidArgumentError around a
missing-kernel message, torch_xla's RuntimeError around an XLA UNIMPLEMENTED status.
Rules are ordered: the first that matches wins.

A support failure (the rules say `not_implemented`) is then checked against what the framework
declares (portability_harness.declared): given a declared-support table, the device kind and, when
known, the public function and the case's dtypes, a failure of an op that the device declares for other
dtypes is `type`, and one of an op the device does not declare at all is `not_implemented`. The op and
dtype are read from the message where the framework prints them, else taken from the function and the
case. TensorFlow's detailed placement errors carry the op's registered kernels themselves; they decide
without a table.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from portability_harness import declared, host_cpu
from portability_harness.declared import messages
from portability_harness.declared.dtypes import canonical as canonical_dtype

# (type name, message) of each exception in the chain, outermost first.
Chain = Sequence[Tuple[str, str]]

_DTYPE_NAMES = (
    r"half|bfloat16|float16|float64|double|complex\w*|c64|c128|f64|bf16|f16|bool|int8|int16|int64|uint\w*"
    r"|long|short|byte|char|string|dt_\w+|ComplexFloat|ComplexDouble|BFloat16"
)

_RULES: List[Tuple[str, re.Pattern]] = [
    ("memory", re.compile(
        r"\b(MemoryError|OutOfMemoryError|ResourceExhaustedError|_ArrayMemoryError)\b"
        r"|out of memory|\bOOM\b|RESOURCE_EXHAUSTED|Cannot allocate memory|Unable to allocate"
        r"|Ran out of memory|failed to allocate", re.I)),
    ("timeout", re.compile(r"\bTimeout\b|DEADLINE_EXCEEDED|timed out", re.I)),
    ("crash", re.compile(r"Fatal Python error|Segmentation fault|core dumped|worker \S+ crashed|node down"
                         r"|worker died|Aborted", re.I)),
    ("type", re.compile(
        r"not implemented for '\w+'"  # PyTorch names the dtype its kernel lacks
        r"|(unsupported|not supported|invalid|unimplemented|no kernel|not available)[^.\n]{0,80}\b(dtype|data ?type|element type)"
        r"|\b(dtype|data ?type|element type)\b[^.\n]{0,80}(is not supported|unsupported|not supported|not implemented)"
        r"|\b(" + _DTYPE_NAMES + r")\b[^.\n]{0,60}(is not supported|are not supported|unsupported|not implemented)"
        r"|Unsupported (type|dtype)|Value passed to parameter '\w+' has DataType \w+ not in list of allowed values"
        r"|type \w+ is not supported|The values for attribute 'dtype' do not match|No registered '\w+' OpKernel for '\w+' devices compatible with node[^\n]*T=DT_"
        r"|not contain X64 element types",  # XLA on a TPU: a 64-bit type it cannot rewrite away
        re.I)),
    ("not_implemented", re.compile(
        r"\b(NotImplementedError|UnimplementedError)\b|UNIMPLEMENTED|not implemented|no kernel"
        r"|No registered '\w+' OpKernel|Could not satisfy (explicit )?device specification"
        r"|Could not find (device|a kernel|kernel)|Could not run 'aten::|is not supported|not supported on"
        r"|has no (GPU|TPU|CUDA|XLA) (kernel|implementation)|doesn't exist for this backend"
        r"|Error while lowering|XLA builder error|only implemented on CPU|only supported on CPU|"
        r"Cannot assign a device for operation|is not compiled with CUDA|Torch not compiled with", re.I)),
    # A tolerance or exactness check on values. Not any AssertionError: a plain assert on a shape, a dtype, a
    # layout (strides, contiguity, a view's storage) or a library's own internal assert (torch_xla's, an inductor
    # stride guard) is a wrong result of another kind, `other`, as the study labelled "RuntimeError not raised".
    ("precision", re.compile(
        r"\bGradcheckError\b|not close|Not equal to tolerance|Arrays are not (almost )?equal"
        r"|(Scalars|Tensor-likes) are not (close|equal)|not less than|differs from the CPU"
        r"|Mismatched elements|mismatch", re.I)),
]

# Errors a process shows only after an earlier failure left it so, not the failing case's own: torch_xla's, for a
# tensor whose graph failed to run and that something still holds (its later syncs, and ops on that tensor, fail so).
# The plugin lets a failed call's frames go (plugin.pytest_runtest_call), and syncs after the numerics probe, whose
# unrun tensors a failing graph of the next case had taken in (tpu_model.probe: 2 of 1,837 torch-xla-cpu cases, each
# after a conv2d case's probe). A case that meets it after other cases in its worker is still run again, first, in a
# new one (worker_process.RERUN), should something else leave it.
INHERITED = re.compile(r"Check failed: (data\(\)->)?tensor_data")

# Errors after which a device context is unusable for the rest of the process (CUDA's sticky errors, an XLA runtime
# that reports its device gone): the next case would fail for this one's sake, so the worker is replaced first.
STICKY = re.compile(
    r"illegal memory access|device-side assert|unspecified launch failure|misaligned address"
    r"|illegal instruction was encountered|uncorrectable ECC error|launch timed out and was terminated"
    r"|CUDA_ERROR_(ILLEGAL_ADDRESS|LAUNCH_FAILED|ASSERT|ECC_UNCORRECTABLE)|device is in an unusable state"
    r"|TPU (has )?halted|DATA_LOSS: .*device"
    r"|" + INHERITED.pattern, re.I)


class CaseError(Exception):
    """A curated case misuses the harness (bench called twice, no function marker): our bug."""


# Errors that almost always mean our own case or its test dependencies are wrong, not the framework.
_CASE_ERROR_TYPES = {"CaseError", "NameError", "UnboundLocalError", "SyntaxError", "IndentationError", "FixtureLookupError",
                     "ModuleNotFoundError", "ImportError"}
# Errors that mean the same when they are raised by a line of the case itself.
_CASE_ERROR_IF_RAISED_IN_CASE = {"TypeError", "AttributeError", "KeyError", "IndexError"}
_CASE_ERROR_MESSAGE = re.compile(
    r"fixture '\w+' not found|bench may be called once"
    r"|The test (does not take|requires) parameters", re.I)


def classify(chain: Chain, raised_in_case: bool = False, framework_modules: Sequence[str] = (), *,
             table: Optional[Dict[str, Any]] = None, device: Optional[str] = None, function: Optional[str] = None,
             dtypes: Sequence[Any] = ()) -> str:
    """The category of a failure. `raised_in_case`: the innermost traceback frame is in a curated module.

    For support failures, optionally: `table`, the declared-support table of the framework version that
    ran (declared.load); `device`, the cell's device kind (cpu, cuda, tpu); `function`, the sampled public
    name (tf.cast, torch.add); `dtypes`, the case's dtypes (names or dtype objects), e.g. from its
    parameters. Without them, or where the table does not know the op, the message rules decide."""
    category = _by_rules(chain, raised_in_case, framework_modules)
    if category == "not_implemented":
        text = "\n".join(f"{t}: {m}" for t, m in chain)
        return _by_declarations(text, table, device, function, dtypes) or category
    return category


def _by_rules(chain: Chain, raised_in_case: bool, framework_modules: Sequence[str]) -> str:
    if not chain:
        return "other"
    innermost_type, innermost_msg = chain[-1]
    for type_name, message in chain:
        if type_name in ("ModuleNotFoundError", "ImportError"):
            missing = re.search(r"No module named '([\w.]+)'", message)
            if missing and missing.group(1).split(".")[0] in framework_modules:
                return "not_implemented"  # a framework's own submodule is absent: not our bug
        if type_name in _CASE_ERROR_TYPES or _CASE_ERROR_MESSAGE.search(message):
            return "case_error"
    if innermost_type in _CASE_ERROR_IF_RAISED_IN_CASE and raised_in_case:
        return "case_error"
    text = "\n".join(f"{t}: {m}" for t, m in chain)
    for category, pattern in _RULES:
        if pattern.search(text):
            return category
    return "other"


def _by_declarations(text: str, table: Optional[Dict[str, Any]], device: Optional[str], function: Optional[str],
                     dtypes: Sequence[Any]) -> Optional[str]:
    """`type` or `not_implemented` from what the message and the table say the device declares; None when
    they cannot tell."""
    reading = messages.read(text)
    kind = device or reading.device
    if kind is None:
        return None
    has_kernel = messages.kernels_on(reading, kind)
    if has_kernel is not None:
        # the framework listed the op's kernels: some on this device means only a type attribute failed
        return "type" if has_kernel else "not_implemented"
    if not table:
        return None
    wanted = reading.dtypes or [d for d in (canonical_dtype(x) for x in dtypes) if d]
    candidates = [op for op in reading.ops if declared.ops_for(table, op)]
    if not candidates and function and declared.ops_for(table, function):
        candidates = [function]
    for op in candidates:
        verdicts = {declared.declared(table, op, kind, d) for d in wanted} if wanted else {declared.declared(table, op, kind)}
        if verdicts == {"op_not_declared"}:
            return "not_implemented"
        if "dtype_not_declared" in verdicts:
            return "type"
        if "declared" in verdicts:
            # the op is there (for this dtype or some): a failed kernel lookup can only be a type mismatch
            return "type" if reading.kernel_lookup else None
    return None


def exception_chain(exc: BaseException) -> List[Tuple[str, str]]:
    """(type name, message) for exc and every cause or context below it, outermost first."""
    chain: List[Tuple[str, str]] = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append((type(exc).__name__, str(exc)))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return chain


@dataclass
class Annotation:
    case: str  # a case id, where * matches any run of characters (brackets are literal, as in case ids)
    category: str
    reason: str
    devices: Optional[List[str]] = None  # None: every device
    # Framework versions it holds for, as prefixes ("1.12" matches 1.12.0+cu102); None: every version.
    versions: Optional[List[str]] = None
    # Instruction-set extensions (host_cpu.FEATURES) whose absence is the reason: it holds only on a host CPU with
    # none of them, so the same failure on a CPU that has one stays unexplained (a kernel that should have run
    # did not). None: every CPU; so does a host whose extensions are unknown (no /proc/cpuinfo).
    cpu_without: Optional[List[str]] = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.cpu_without or ()) - host_cpu.FEATURES)
        if unknown:  # a misspelt name would make the entry hold everywhere, silently
            raise ValueError(f"annotation {self.case!r}: cpu_without names {', '.join(unknown)}, which the host "
                             f"CPU's identity does not record; use names of {', '.join(sorted(host_cpu.FEATURES))}")

    def applies(self, case_id: str, device: str, version: str = "",
                cpu_features: Optional[Sequence[str]] = None) -> bool:
        pattern = "".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", self.case))
        return (re.fullmatch(pattern, case_id) is not None and (self.devices is None or device in self.devices)
                and (self.versions is None or any(_same_release(version, v) for v in self.versions))
                and (self.cpu_without is None or cpu_features is None
                     or not set(self.cpu_without) & set(cpu_features)))


def _same_release(version: str, prefix: str) -> bool:
    """'1.12' matches 1.12 and 1.12.0+cu102, not 1.120."""
    return version == prefix or version.startswith(prefix + ".") or version.startswith(prefix + "+")


def load_annotations(path: Optional[str]) -> List[Annotation]:
    """curated/annotations.json: a list of {case, category, reason, devices?, versions?, cpu_without?}. A missing
    file is none."""
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    return [Annotation(**entry) for entry in data]


def annotated(annotations: Sequence[Annotation], case_id: str, device: str, version: str = "",
              cpu_features: Optional[Sequence[str]] = None) -> Optional[Annotation]:
    """The first annotation that holds for the case; cpu_features: the host CPU's (its identity's `features`)."""
    return next((a for a in annotations if a.applies(case_id, device, version, cpu_features)), None)


def describe(chain: Chain) -> str:
    """The message stored in the record: the innermost exception, which is the informative one."""
    if not chain:
        return ""
    type_name, message = chain[-1]
    if message.startswith("in user code:"):
        # TensorFlow's tracing errors open with the user's frames and name the error on their last line.
        last = [l.strip() for l in message.splitlines() if l.strip()][-1]
        return last if last.startswith(f"{type_name}:") else f"{type_name}: {last}"
    if message.startswith("\n"):
        message = _summary(message)
    return f"{type_name}: {message}"


# The lines of numpy.testing's messages that repeat the arrays in full, or list single mismatched elements.
_DUMP = re.compile(r"^\s*(ACTUAL|DESIRED|x|y):|^\s*\[|^Mismatch at ind")


def _summary(message: str) -> str:
    """numpy.testing's assertion messages open with a blank line (a record keeps one line: schema.first_line, which
    kept "AssertionError:" alone) and end with both arrays; their summary lines, joined: the tolerance, how many
    elements differ and by how much."""
    lines = [l.strip() for l in message.splitlines() if l.strip() and not _DUMP.match(l)]
    return "; ".join(lines) if lines else message.strip()
