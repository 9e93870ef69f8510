"""TensorFlow's side of the TPU model (tpu_model.py): the ops one call executes and their dtypes, which of them a
TPU lacks, why a call failed on the XLA device, and the numerics probe's moved output.

A TPU user's eager TensorFlow places each op on the TPU device, where XLA compiles that op alone, and a tf.function
called there runs whole through XLA (TensorFlow compiles every function placed on an XLA device). The model cell
does the same on XLA's CPU device (XLA_CPU). What the CPU backend cannot show comes from the TPU's own rules:
- its types (TensorFlow's kTpuAllTypes, tpu_defs.h): no complex128, no string, no 16-bit quantized types; float64 is
  emulated and runs, except in the random-number ops, whose TPU kernels have no float64;
- the TPU support this TensorFlow declares (portability_harness.declared), asked as a support failure asks it.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from portability_harness import declared
from portability_harness.declared import messages
from portability_harness.declared.tensorflow import compile_once, op_def_of, primary_attr

# kTpuAllTypes, in canonical names; resource and variant are handles, which a TPU holds like any device.
TPU_TYPES = frozenset({
    "bool", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "qint8", "quint8", "qint32",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz",
    "resource", "variant"})
_RANDOM = re.compile(r"Random(?!Shuffle)|TruncatedNormal|Multinomial|StatefulUniform|StatefulStandardNormal")
# Ops that only call a function: their function's ops are what runs.
_CALLS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})
UNTYPED = "untyped"  # an op with no type attribute

# The ops a TPU computes at reduced precision in float32 by default (tpu_model.risk_error), lower case.
MATMUL_OPS = tuple(op.lower() for op in (
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "SparseMatMul", "Einsum", "Conv", "Conv2D", "Conv3D",
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2",
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
    "XlaDot", "XlaDotV2", "XlaConv", "XlaConvV2"))
TRANSCENDENTAL_OPS = tuple(op.lower() for op in (
    "Exp", "Expm1", "Log", "Log1p", "Tanh", "Sigmoid", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Atan2", "Sinh",
    "Cosh", "Asinh", "Acosh", "Atanh", "Pow", "Rsqrt", "Erf", "Erfc", "Erfinv", "Ndtri", "Lgamma", "Digamma",
    "Igamma", "Igammac", "Betainc", "Polygamma", "Zeta", "BesselI0e", "BesselI1e", "Softmax", "LogSoftmax", "Softplus",
    "Elu", "Selu"))

# TensorFlow saying the XLA device has no kernel for an op: eager placement (the op in "[Op:AsString]"), a graph's
# placement (the op in "Op: VariableV2", its attributes in "Node attrs"), a kernel lookup; or the compilation of a
# function run whole.
_PLACEMENT = re.compile(r"device specification '[^']*XLA_CPU[^']*'|for '?XLA_CPU'? devices")
_UNCOMPILED = re.compile(r"compile graph ([^\s\[]+)\[[^\]]*\] on XLA_\w+_JIT: (\w+) \(No registered '\w+' OpKernel"
                         r"[^\n]*(?:\n[^\n]*Requested Attributes: ([^\n]*))?")
# A value XLA cannot hold crossing into or out of a function compiled whole: its argument or return value node.
BOUNDARY = {"_Arg": "into", "_Retval": "out of"}


def dtype_name(enum: Any) -> Optional[str]:
    import tensorflow as tf

    try:
        return tf.dtypes.as_dtype(enum).name
    except (TypeError, ValueError):
        return None


def op_dtypes(op: str, types: Dict[str, List[int]]) -> List[str]:
    """The dtypes an op is recorded with, given its type attributes' values: its primary attribute's (the one a
    declared-support table lists, declared/tensorflow.py), and any other it touches that a TPU lacks (a Cast to
    complex128, an op with a string input)."""
    op_def = op_def_of(op)
    primary = primary_attr(op_def) if op_def is not None else None
    names = [dtype_name(t) for t in types.get(primary, [])] if primary else []
    touched = [dtype_name(t) for values in types.values() for t in values]
    if op_def is not None:
        touched += [dtype_name(a.type) for a in list(op_def.input_arg) + list(op_def.output_arg) if a.type]
    found = [n for n in names if n] or [UNTYPED]
    return found + [n for n in touched if n and n not in TPU_TYPES and n not in found]


class Recorder:
    """The ops run while it is entered, read with TensorFlow's op callback (tensorflow.python.framework.op_callbacks,
    in 2.11 as in current releases): each eager op with its dtypes and the device it ran on; for the call of a
    function (a tf.function the case wraps, which runs whole), the ops of the function's graph, read from its
    FunctionDef in the eager context's library, nested functions included. The callback also sees ops added to a
    graph being built (a tf.function's trace): those run only when the graph does, which the function's call then
    shows, so they are not counted twice."""

    def __init__(self) -> None:
        self.ops: List[Tuple[str, str, str]] = []  # (op, dtype, device)

    def __enter__(self) -> "Recorder":
        from tensorflow.python.framework import op_callbacks

        op_callbacks.add_op_callback(self._callback)
        return self

    def __exit__(self, *exc: Any) -> None:
        from tensorflow.python.framework import op_callbacks

        op_callbacks.remove_op_callback(self._callback)

    def _callback(self, op_type: Any, inputs: Any, attrs: Any, outputs: Any, op_name: Any = None,
                  graph: Any = None) -> None:
        if graph is not None:
            return None
        op = op_type.decode() if isinstance(op_type, bytes) else str(op_type)
        # Where it ran: its outputs' device, else (an op with no output, such as an assignment) its resource's
        device = next((t.device for t in list(outputs or ()) or [t for t in inputs or () if _is_resource(t)]
                       if getattr(t, "device", "")), "")
        body = function_ops(op) if op_def_of(op) is None else None
        if body is not None:
            self.ops += [(o, d, device) for o, d in body]
            return None
        values = dict(zip(attrs[::2], attrs[1::2])) if attrs else {}
        types = {k: (list(v) if isinstance(v, (list, tuple)) else [v]) for k, v in values.items()
                 if _is_type_attr(op, k)}
        self.ops += [(op, d, device) for d in op_dtypes(op, types)]
        return None


def _is_resource(t: Any) -> bool:
    return getattr(getattr(t, "dtype", None), "name", None) == "resource"


def _is_type_attr(op: str, attr: str) -> bool:
    op_def = op_def_of(op)
    return op_def is not None and any(a.name == attr and a.type in ("type", "list(type)") for a in op_def.attr)


def function_ops(name: str, seen: Optional[Set[str]] = None) -> Optional[List[Tuple[str, str]]]:
    """The (op, dtype) pairs of a function in the eager context's library, nested functions included; None where
    `name` names no function."""
    from tensorflow.python.eager import context

    seen = set() if seen is None else seen
    if name in seen:
        return []
    try:
        fdef = context.context().get_function_def(name)
    except Exception:  # not a function: an op
        return None
    seen.add(name)
    found: List[Tuple[str, str]] = []
    for node in fdef.node_def:
        for called in _called(node):
            found += function_ops(called, seen) or []
        inner = function_ops(node.op, seen) if op_def_of(node.op) is None else None
        if inner is not None:
            found += inner
        elif node.op not in _CALLS:
            types = {k: (list(v.list.type) if v.HasField("list") else [v.type]) for k, v in node.attr.items()
                     if v.HasField("type") or (v.HasField("list") and v.list.type)}
            found += [(node.op, d) for d in op_dtypes(node.op, types)]
    return found


def _called(node: Any) -> Iterator[str]:
    """The functions a node calls (PartitionedCall's f, While's cond and body, If's branches, Case's list)."""
    for value in node.attr.values():
        if value.HasField("func"):
            yield value.func.name
        elif value.HasField("list"):
            yield from (f.name for f in value.list.func)


def device_ops() -> Set[str]:
    """The ops an XLA device runs with kernels of its own rather than by compiling them (variables, sends, iterators:
    TensorFlow's XLA device kernels), which a TPU registers too, for its types. A declared-support table's TPU
    column, XLA's compilation kernels, leaves them out. Those are registered at XLA's first compilation, which a
    worker that loaded its declared-support table (worker.declared_table) has not necessarily made."""
    import tensorflow as tf
    from tensorflow.python.framework import kernels

    compile_once(tf)

    by_device: Dict[str, Set[str]] = {}
    for k in kernels.get_all_registered_kernels().kernel:
        by_device.setdefault(k.device_type, set()).add(k.op)
    return by_device.get("XLA_CPU", set()) - by_device.get("XLA_CPU_JIT", set())


def gaps(ops: Sequence[Tuple[str, str]], table: Optional[Dict[str, Any]], own: Set[str] = frozenset()) -> List[str]:
    """The (op, dtype) pairs a TPU has no kernel for, each "Op (dtype): why": its type set, then what the TensorFlow
    version declares for the TPU (`table`, its declared-support table; None: the type set alone), except for the
    XLA device's own kernels (`own`: device_ops)."""
    found = []
    version = (table or {}).get("framework_version", "")
    for op, dtype in sorted(set(map(tuple, ops))):
        if dtype not in TPU_TYPES and dtype != UNTYPED:
            found.append(f"{op} ({dtype}): a TPU has no {dtype} type")
        elif dtype == "float64" and _RANDOM.search(op):
            found.append(f"{op} ({dtype}): a TPU's random-number kernels have no float64")
        elif table and op not in own:
            said = declared.declared(table, op, "tpu", None if dtype == UNTYPED else dtype)
            if said == "op_not_declared":
                found.append(f"{op} ({dtype}): TensorFlow {version} declares no TPU kernel for it")
            elif said == "dtype_not_declared":
                found.append(f"{op} ({dtype}): TensorFlow {version} declares its TPU kernel for other dtypes only")
    return found


def placement_failed(text: str) -> bool:
    return _PLACEMENT.search(text) is not None


def boundary_failure(text: str) -> Optional[str]:
    """Why a function compiled whole failed, where a value XLA cannot hold crosses into or out of it, or None."""
    compiled = _UNCOMPILED.search(text)
    return boundary_reason(compiled.group(2), compiled.group(3)) if compiled and compiled.group(2) in BOUNDARY else None


def failure_reason(text: str, placed_off: Sequence[Tuple[str, str, str]]) -> Optional[str]:
    """What a failure on the XLA device was, naming the op and its dtype, from TensorFlow's error `text`: a placement
    error (the dtype read from `placed_off`, the ops the same call ran with soft placement, where the op landed on
    another device), or the compilation of a function run whole (the dtype read from its FunctionDef)."""
    reading = messages.read(text)
    if _PLACEMENT.search(text) and reading.ops:
        op = reading.ops[0]
        dtypes = reading.dtypes or [d for o, d, device in placed_off if o == op and "XLA_CPU" not in device]
        return f"placement: no XLA_CPU kernel for {_named(op, dtypes)}"
    compiled = _UNCOMPILED.search(text)
    if compiled:
        graph, op, requested = compiled.groups()
        if op in BOUNDARY:
            return boundary_reason(op, requested)
        dtypes = [d for o, d in function_ops(graph) or [] if o == op]
        return f"lower: no XLA kernel for {_named(op, dtypes)}, in a tf.function run whole"
    return None


def boundary_reason(op: str, requested: Optional[str]) -> str:
    dtypes = messages.read(requested or "").dtypes
    what = f"a {dtypes[0]} value" if dtypes else "a value XLA cannot hold"
    return f"{what} crosses {BOUNDARY[op]} the compiled function ({op}): XLA holds no such value"


def _named(op: str, dtypes: Sequence[str]) -> str:
    """"AsString (int32)": the op with its primary dtype (an op's first recorded pair, op_dtypes)."""
    return f"{op} ({dtypes[0]})" if dtypes and dtypes[0] != UNTYPED else op


def perturb(out: Any, relative: float) -> Any:
    """`out` with each element of its float32 and complex64 tensors and NumPy arrays multiplied by 1 + relative and
    1 - relative in turn, composite tensors (ragged, sparse) through their components; None where it holds none."""
    import numpy as np
    import tensorflow as tf

    def movable(x: Any) -> bool:
        if getattr(getattr(x, "dtype", None), "name", None) not in ("float32", "complex64"):
            return False
        return isinstance(x, np.ndarray) or (isinstance(x, tf.Tensor) and hasattr(x, "numpy")
                                             and not getattr(x, "_in_graph_mode", False))

    def moved(x: Any) -> Any:
        if not movable(x):
            return x
        if isinstance(x, np.ndarray):
            return x * _factors(np, x.shape, relative).astype(x.dtype)
        with tf.device(x.device):
            return x * tf.constant(_factors(np, tuple(x.shape), relative).astype(x.dtype.as_numpy_dtype))

    if not any(movable(leaf) for leaf in tf.nest.flatten(out, expand_composites=True)):
        return None
    return tf.nest.map_structure(moved, out, expand_composites=True)


def _factors(np: Any, shape: Tuple[int, ...], relative: float) -> Any:
    signs = np.where(np.arange(int(np.prod(shape, dtype=np.int64))) % 2 == 0, 1.0, -1.0)
    return (1.0 + relative * signs).reshape(shape)
