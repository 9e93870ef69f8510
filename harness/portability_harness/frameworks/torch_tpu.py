"""PyTorch/XLA in the TPU model (tpu_model.py): the case whose input layout cannot exist on an XLA device, the ops a
call puts in the lazy graph, what a TPU lacks among them, the output the TPU's default arithmetic may give, and
torch_xla 2023's float64 and complex128 rules emulated on the CPU.

An XLA tensor has no strides and no storage: it is always contiguous, a view is a copy, and its storage has no data
pointer. A case that builds a strided input (and asserts it is not contiguous), checks strides or channels_last
contiguity, or checks that two tensors share memory through their data pointers, fails on any XLA device for that
reason alone: `not_applicable` reads it from the failure (pytest's explanation of the failing assertion names the
layout query; PyTorch's own error names the storage), except where the sampled function is itself such a query
(`torch.Tensor.data_ptr` answers 0 on XLA: that is the function failing).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

# A tensor's layout and storage, which an XLA tensor does not have.
LAYOUT_QUERIES = ("is_contiguous", "stride", "storage_offset", "data_ptr", "untyped_storage", "storage", "is_set_to")
_QUERIED = re.compile(r"<built-in method (%s) of Tensor object" % "|".join(LAYOUT_QUERIES))
_NO_STORAGE = "Attempted to access the data pointer on an invalid python storage"

# Op names in torch_xla's lazy IR (aten::<op>) that a TPU computes at reduced precision by default in float32: matmuls
# and convolutions (torch_xla's default matmul precision is one bfloat16 pass), and transcendentals (the TPU's own
# approximations, also inside the fused activations and softmax).
MATMUL_OPS = tuple("aten::" + op for op in (
    "mm", "bmm", "matmul", "addmm", "addbmm", "baddbmm", "addmv", "mv", "dot", "vdot", "einsum", "linear",
    "convolution_overrideable", "convolution_backward_overrideable", "_cdist_forward"))
TRANSCENDENTAL_OPS = tuple("aten::" + op for op in (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sigmoid", "logit", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "pow", "rsqrt", "erf", "erfc", "erfinv",
    "lgamma", "digamma", "polygamma", "softmax", "_softmax", "log_softmax", "_log_softmax", "gelu", "silu", "elu",
    "celu", "selu", "mish", "softplus", "log_sigmoid_forward", "logsumexp", "hardsigmoid"))

# An IR line: `%3 = f32[4,4]{1,0} aten::mm(%1, %2), xla_shape=...`; a tuple result lists several shapes.
_IR_LINE = re.compile(r"^\s*%(\d+) = (\(.*?\)|\S+) ([\w:]+)(?:\(([^)]*)\))?")
_IR_DTYPE = re.compile(r"\b(pred|[sucf]\d+|bf16)\[")
_DTYPE_NAMES = {"pred": "bool", "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
                "c64": "complex64", "c128": "complex128", "s8": "int8", "s16": "int16", "s32": "int32",
                "s64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}
_NOT_OPS = ("xla::device_data", "prim::Constant")  # the graph's data, not what it computes


def not_applicable(chain: List[Tuple[str, str]], function: str) -> Optional[str]:
    """Why a failure is the case's layout, which an XLA tensor cannot have, rather than `function` failing; None
    where it is not, or where the function is itself a layout query."""
    if function.rsplit(".", 1)[-1] in LAYOUT_QUERIES:
        return None
    for _, message in chain:
        if _NO_STORAGE in message:
            return "the case reads a tensor's storage, which an XLA tensor does not have (no data pointer)"
        queried = _QUERIED.search(message)
        if queried:
            return (f"the case's check needs a strided layout or a storage (Tensor.{queried.group(1)}), which an XLA "
                    f"tensor does not have: it is always contiguous, a view of it is a copy")
    return None


def executed_ops(call: Callable[[], Any], tensors: Callable[[Any], Iterator[Any]]) -> List[Tuple[str, str]]:
    """The [op, dtype] pairs of the lazy graph one more call of `call` builds for its output (its XLA tensors, found
    by `tensors`), read before the graph runs: each op with its result's and operands' dtypes. Ops torch_xla
    ran on the CPU instead (its fallbacks) are not in the graph: the case's `fallback` names them."""
    import torch_xla

    try:
        outputs = [t for t in tensors(call()) if t.device.type == "xla"]
        text = torch_xla._XLAC._get_xla_tensors_text(outputs) if outputs else ""
    except Exception:  # the call raised this time, or its output is not a plain XLA tensor: nothing is known
        return []
    return parse_ir(text)


def parse_ir(text: str) -> List[Tuple[str, str]]:
    dtypes: Dict[str, List[str]] = {}
    found = set()
    for line in text.splitlines():
        match = _IR_LINE.match(line)
        if not match:
            continue
        number, shape, op, operands = match.groups()
        dtypes[number] = [_DTYPE_NAMES.get(d, d) for d in _IR_DTYPE.findall(shape)]
        if op in _NOT_OPS:
            continue
        for ref in re.findall(r"%(\d+)", operands or ""):
            found.update((op, d) for d in dtypes.get(ref, []))
        found.update((op, d) for d in dtypes[number])
    return sorted(found)


def tpu_gaps(ops: List[Tuple[str, str]]) -> List[str]:
    """The ops in complex128, which XLA's TPU backend has no element type for (current torch_xla keeps complex128 on
    the device; under the 2023 rules the ops are already listed as the complex64 a TPU then held)."""
    return [f"{op} (complex128): no complex128 on a TPU (XLA's TPU backend has no C128 element type)"
            for op in sorted({op for op, dtype in ops if dtype == "complex128"})]


# torch_xla of 2023 on a TPU: float64 held as float32, complex128 as complex64.
HELD_2023 = {"float64": "float32", "complex128": "complex64"}


def perturb(out: Any, relative: float, dtypes: Tuple[str, ...]) -> Any:
    """`out` with each element of its tensors of `dtypes` (those a TPU holds as float32 or complex64) multiplied by
    1 + relative and 1 - relative in turn; None where it holds no such tensor."""
    import torch
    from torch.utils import _pytree

    moved = []

    def move(leaf: Any) -> Any:
        if not (isinstance(leaf, torch.Tensor) and leaf.layout == torch.strided
                and str(leaf.dtype).replace("torch.", "") in dtypes):
            return leaf
        signs = torch.where(torch.arange(leaf.numel(), device=leaf.device) % 2 == 0, 1.0 + relative, 1.0 - relative)
        moved.append(leaf)
        return leaf * signs.reshape(leaf.shape).to(leaf.dtype)

    result = _pytree.tree_map(move, out)
    return result if moved else None


# --- torch_xla 2023 on a TPU: float64 held as float32, complex128 as complex64 ----------------------------------------

def held_as_2023(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Callable[[], Any]:
    """The call of fn as torch_xla of 2023 ran it on a TPU, emulated: before each call, the float64 and complex128
    XLA tensors it is handed (arguments, the tensor or module a bound method belongs to, a module's parameters and
    buffers) are rounded to float32 and complex64 precision in place, their dtype kept (a set-up between calls may
    have written them again); after it, its output is rounded the same way. In between, the function computes in
    float64 on the CPU where a TPU then computed in float32: the emulation shows the error of holding the values,
    not all of the arithmetic's."""
    def call() -> Any:
        for value in (fn, getattr(fn, "__self__", None), args, kwargs):
            _round(value)
        out = fn(*args, **kwargs)
        _round(out)
        return out

    return call


def _round(value: Any) -> None:
    import torch
    from torch.utils import _pytree

    if isinstance(value, torch.nn.Module):
        leaves = [*value.parameters(), *value.buffers()]
    else:
        leaves = _pytree.tree_leaves(value)
    narrower = {torch.float64: torch.float32, torch.complex128: torch.complex64}
    for t in leaves:
        if isinstance(t, torch.Tensor) and t.device.type == "xla" and t.dtype in narrower and t.layout == torch.strided:
            with torch.no_grad():
                t.data.copy_(t.data.to(narrower[t.dtype]).to(t.dtype))
