"""TensorFlow's declared support: the kernel registry of the installed TensorFlow.

An op is declared on a device kind when a kernel is registered for it there, for the dtypes its kernels'
type constraints admit. Device kinds and the registry's device types:
- cpu: CPU kernels, and DEFAULT kernels (which TensorFlow uses on any non-symbolic device that has no
  matching kernel of its own);
- cuda: GPU kernels and DEFAULT kernels. Only the full `tensorflow` wheel registers its GPU kernels (even
  without a GPU); a `tensorflow-cpu` wheel (tf.test.is_built_with_cuda() false) cannot tell, and the
  column is marked unknown;
- tpu: the ops XLA can compile (XLA_CPU_JIT registrations, which appear only after one
  jit_compile=True call, so `read` makes one), plus kernels the wheel registers for the TPU device itself
  and DEFAULT kernels. The TPU's own kernels live in libtpu, which is not installed here: the column is
  what XLA lowers, with the CPU backend's dtypes, a superset of the TPU's (no float64 compute, no
  complex128 there).

Which attribute's dtypes count: a kernel is selected by all its type attributes, but a table lists one
dtype set per op, that of the op's data: the first attribute that types both an input and an output
(Fill, Mean, Conv3D: T), else `dtype` (RandomStandardNormal's output), else the one typing the op's first
input (Cast: SrcT; ArgMax: T), else its first output, else its first type attribute. Where a kernel leaves that
attribute unconstrained, the op definition's allowed types count (every dtype where it has none). An op
with no type attribute at all gets an empty list (declared for any dtype). Every type attribute's
dtypes are kept too, under the extra key `attrs`: {op: {kind: {attr: [dtype, ...]}}} (this is where
Cast's output dtypes, DstT, are).

Names: `tf.raw_ops.X` is op X; a public function (tf_export's registry of exported names) defined by a
generated op wrapper (gen_*_ops) is that op; a public Python function that calls generated wrappers
directly in its own body (or passes one on) stands for those ops; calls through other helpers are not
followed, so such a function may be missing or stand for fewer ops than it runs.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from collections import defaultdict
from typing import Any, Dict, List, Optional, Set, Tuple

from .dtypes import ordered

SOURCE = ("TensorFlow's kernel registry (tensorflow.python.framework.kernels.get_all_registered_kernels): an op "
          "is declared on a device kind when a kernel is registered for it there, for the dtypes of its primary "
          "type attribute (one typing both an input and an output, else dtype, else the first input's) that the "
          "kernels' constraints admit. cpu: CPU "
          "and DEFAULT kernels; cuda: GPU and DEFAULT kernels (registered by the full wheel even without a GPU); "
          "tpu: XLA_CPU_JIT registrations (the ops XLA compiles, with the CPU backend's dtypes: a superset of the "
          "TPU's), TPU and DEFAULT kernels.")

_COLUMNS = {"cpu": ("CPU", "DEFAULT"), "cuda": ("GPU", "DEFAULT"), "tpu": ("XLA_CPU_JIT", "TPU", "DEFAULT")}


def read() -> Dict[str, Any]:
    import tensorflow as tf
    from tensorflow.python.framework import kernels

    from . import new_table

    compile_once(tf)
    registry = defaultdict(lambda: defaultdict(list))  # op -> registry device type -> [KernelDef]
    for k in kernels.get_all_registered_kernels().kernel:
        registry[k.op][k.device_type].append(k)

    every_dtype = _every_dtype(tf)
    table = new_table("tensorflow", tf.__version__, SOURCE)
    cuda_built = bool(tf.test.is_built_with_cuda())
    table["devices"] = {
        "cpu": {"known": True, "note": "CPU and DEFAULT kernels"},
        "cuda": {"known": cuda_built, "note": "GPU and DEFAULT kernels" if cuda_built else
                 "a tensorflow-cpu wheel (not built with CUDA) registers no GPU kernels: not knowable here"},
        "tpu": {"known": True, "note": "XLA_CPU_JIT registrations (what XLA compiles; dtypes of the CPU backend, a "
                                       "superset of the TPU's), TPU and DEFAULT kernels; libtpu's own kernels unseen"},
    }
    attrs: Dict[str, Dict[str, Dict[str, List[str]]]] = {}
    for op in sorted(set(registry) | _op_names(tf)):
        op_def = op_def_of(op)
        primary = primary_attr(op_def) if op_def is not None else None
        for kind, device_types in _COLUMNS.items():
            kernel_defs = [k for d in device_types for k in registry[op].get(d, ())]
            if not kernel_defs:
                continue
            per_attr = {a: ordered(d for k in kernel_defs for d in _allowed(k, a, op_def, every_dtype))
                        for a in _type_attrs(op_def)}
            table["ops"].setdefault(op, {})[kind] = per_attr.get(primary, []) if primary else []
            if per_attr:
                attrs.setdefault(op, {})[kind] = per_attr
        table["ops"].setdefault(op, {})  # an op with no kernel anywhere is known and declared nowhere
    if not cuda_built:
        for by_kind in table["ops"].values():
            by_kind.pop("cuda", None)
    table["attrs"] = attrs
    table["names"] = _names(tf, set(table["ops"]))
    return table


def compile_once(tf: Any) -> None:
    """XLA registers its JIT kernels (XLA_CPU_JIT, XLA_GPU_JIT) on the first compilation."""
    tf.function(lambda x: x + 1, jit_compile=True)(tf.constant(1.0))


def _every_dtype(tf: Any) -> List[str]:
    from tensorflow.core.framework import types_pb2

    names = []
    for enum_name, value in types_pb2.DataType.items():
        if enum_name == "DT_INVALID" or enum_name.endswith("_REF"):
            continue
        name = _dtype_name(tf, value)
        if name:
            names.append(name)
    return ordered(names)


def _dtype_name(tf: Any, enum_value: int) -> Optional[str]:
    try:
        return tf.dtypes.as_dtype(enum_value).name
    except (TypeError, ValueError):  # enum values this version knows no Python dtype for
        return None


def _op_names(tf: Any) -> Set[str]:
    return {name for name in dir(tf.raw_ops) if not name.startswith("_")}


def op_def_of(op: str) -> Any:
    """The op's OpDef, or None."""
    from tensorflow.python.framework import op_def_registry

    try:
        return op_def_registry.get(op)
    except Exception:  # ops registered by kernels only, with no Python-visible definition
        return None


def _type_attrs(op_def: Any) -> List[str]:
    if op_def is None:
        return []
    return [a.name for a in op_def.attr if a.type in ("type", "list(type)")]


def primary_attr(op_def: Any) -> Optional[str]:
    """The type attribute whose dtypes a table lists for the op (the module's docstring says which), or None."""
    names = _type_attrs(op_def)
    typing = lambda args: [a.type_attr or a.type_list_attr for a in args]  # noqa: E731
    shared = [a for a in typing(op_def.input_arg) if a in names and a in typing(op_def.output_arg)]
    if shared:
        return shared[0]
    if "dtype" in names:
        return "dtype"
    for arg in list(op_def.input_arg) + list(op_def.output_arg):
        attr = arg.type_attr or arg.type_list_attr
        if attr in names:
            return attr
    return names[0] if names else None


def _allowed(kernel_def: Any, attr: str, op_def: Any, every_dtype: List[str]) -> List[str]:
    import tensorflow as tf

    for constraint in kernel_def.constraint:
        if constraint.name == attr:
            return [n for n in (_dtype_name(tf, t) for t in constraint.allowed_values.list.type) if n]
    for a in op_def.attr:
        if a.name == attr and a.allowed_values.list.type:
            return [n for n in (_dtype_name(tf, t) for t in a.allowed_values.list.type) if n]
    return every_dtype


# --- public names ---------------------------------------------------------------------------------------

def _names(tf: Any, ops: Set[str]) -> Dict[str, List[str]]:
    from tensorflow.python.util import tf_export

    # (module, name) of a generated op wrapper -> its op. Not the function object: tf.raw_ops holds copies.
    wrapper_op: Dict[Tuple[str, str], str] = {}
    names: Dict[str, List[str]] = {}
    for op in ops:
        raw = getattr(tf.raw_ops, op, None)
        if raw is None:
            continue
        names[f"tf.raw_ops.{op}"] = [op]
        wrapper_op[_key(raw)] = op
    for name, symbol in sorted(tf_export._NAME_TO_SYMBOL_MAPPING.items()):
        if name.startswith("raw_ops.") or not callable(symbol) or inspect.isclass(symbol):
            continue
        found = _ops_of(symbol, wrapper_op)
        if found:
            names[f"tf.{name}"] = found
    return names


def _key(fn: Any) -> Tuple[str, str]:
    try:
        fn = inspect.unwrap(fn)
    except ValueError:  # a cycle of __wrapped__
        pass
    return (getattr(fn, "__module__", None) or "", getattr(fn, "__name__", None) or "")


def _ops_of(symbol: Any, wrapper_op: Dict[Tuple[str, str], str]) -> List[str]:
    key = _key(symbol)
    if key in wrapper_op:
        return [wrapper_op[key]]
    try:
        fn = inspect.unwrap(symbol)
    except ValueError:
        return []
    if not inspect.isfunction(fn):
        return []
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    found: List[str] = []
    for node in ast.walk(tree):
        # gen_math_ops.cast(...) or a wrapper passed on (call_with_layout(gen_array_ops.fill, ...)): a name
        # bound to a generated wrapper module, then one of its functions
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = fn.__globals__.get(node.value.id)
            if getattr(module, "__name__", "").rsplit(".", 1)[-1].startswith("gen_"):
                target = getattr(module, node.attr, None)
                op = wrapper_op.get(_key(target)) if target is not None else None
                if op and op not in found:
                    found.append(op)
        # a module-level name bound to a generated wrapper (nn_ops: conv3d = gen_nn_ops.conv3d)
        elif isinstance(node, ast.Name) and callable(fn.__globals__.get(node.id)):
            op = wrapper_op.get(_key(fn.__globals__[node.id]))
            if op and op not in found:
                found.append(op)
    return found
