"""JAX in the TPU model (tpu_model.py): the primitives a call executes, those a TPU cannot run, and the output the
TPU's default arithmetic may give.

The primitives come from a trace of the call (jax.make_jaxpr, every sub-jaxpr included: the bodies of jit, custom
derivatives, scan, while and cond); a call that cannot be traced (it reads a value into Python: `float(x)`, a
shape that depends on the data) runs once more with each primitive JAX dispatches recorded, which is what a TPU
with jit off compiles one by one. Each primitive is listed with the dtypes it reads and writes.

What a TPU lacks, read from the installed JAX: a primitive with lowering rules for some platform but none for the
TPU (neither generic nor TPU-specific: `eig`, `schur`) cannot run there; and by dtype, XLA's TPU backend has no
complex128 element type at all ("Element type C128 is not supported on TPU"), while float64 and the 64-bit integers
(which exist only with jax_enable_x64 on) are emulated by rewriting them into 32-bit pairs, a rewriting that does
not cover a bitcast of a 64-bit value (bitcast_convert_type, and nextafter, which XLA expands into one).
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

# Primitives a TPU runs in float32 at reduced precision by default (jax_default_matmul_precision "default": one
# bfloat16 pass) and those it computes with its own float32 approximations.
MATMUL_OPS = ("dot_general", "conv_general_dilated", "ragged_dot_general")
TRANSCENDENTAL_OPS = (
    "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "asinh", "acosh", "atanh", "pow", "rsqrt", "cbrt", "erf", "erfc", "erf_inv", "lgamma", "digamma",
    "polygamma", "zeta", "igamma", "igammac", "igamma_grad_a", "bessel_i0e", "bessel_i1e",
    "regularized_incomplete_beta")

_SIXTY_FOUR = ("float64", "int64", "uint64")
_NO_X64_REWRITE = ("bitcast_convert_type", "nextafter")  # XLA's TPU x64 rewriting has no rule for these


def executed_ops(call: Callable[[], Any]) -> List[Tuple[str, str]]:
    """The [primitive, dtype] pairs `call` executes, traced; recorded from a second, eager call where the call
    cannot be traced. [] where neither tells (the call raised both ways)."""
    try:
        return sorted(_traced(call))
    except Exception:  # the call needs concrete values (or returns what a trace cannot): run it and listen
        pass
    found: Set[Tuple[str, str]] = set()
    try:
        with _recording(found):
            call()
    except Exception:
        pass  # what ran before it raised is still what it executed
    return sorted(found)


def _traced(call: Callable[[], Any]) -> Set[Tuple[str, str]]:
    import jax

    def arrays_only() -> List[Any]:
        # A case's call may return Python values, strings or JAX's own objects beside its arrays; a trace's
        # outputs must be arrays.
        return [leaf for leaf in jax.tree_util.tree_leaves(call()) if isinstance(leaf, (jax.Array, jax.core.Tracer))]

    closed = jax.make_jaxpr(arrays_only)()
    found: Set[Tuple[str, str]] = set()
    _walk(closed.jaxpr, found, set())
    return found


def _walk(jaxpr: Any, found: Set[Tuple[str, str]], seen: Set[int]) -> None:
    if id(jaxpr) in seen:
        return
    seen.add(id(jaxpr))
    for eqn in jaxpr.eqns:
        name = str(eqn.primitive)
        for var in (*eqn.invars, *eqn.outvars):
            dtype = _dtype(getattr(var, "aval", None))
            if dtype:
                found.add((name, dtype))
        for value in eqn.params.values():
            for sub in _jaxprs_in(value):
                _walk(sub, found, seen)


def _jaxprs_in(value: Any) -> Iterator[Any]:
    """The jaxprs a primitive's parameter holds: a Jaxpr, a ClosedJaxpr, or a tuple of them (cond's branches)."""
    if hasattr(value, "eqns"):
        yield value
    elif hasattr(getattr(value, "jaxpr", None), "eqns"):
        yield value.jaxpr
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _jaxprs_in(item)


def _dtype(value: Any) -> Optional[str]:
    dtype = getattr(value, "dtype", None)
    return str(dtype) if dtype is not None else None


@contextlib.contextmanager
def _recording(found: Set[Tuple[str, str]]) -> Iterator[None]:
    """Every primitive evaluated eagerly while inside, with the dtypes of its operands and results: JAX evaluates
    each primitive outside a trace through its evaluation trace's process_primitive (0.4 and later)."""
    from jax._src import core

    original = core.EvalTrace.process_primitive

    def process_primitive(self: Any, primitive: Any, args: Any, params: Any) -> Any:
        out = original(self, primitive, args, params)
        results = out if primitive.multiple_results else [out]
        for value in (*args, *results):
            dtype = _dtype(value)
            if dtype:
                found.add((str(primitive), dtype))
        return out

    core.EvalTrace.process_primitive = process_primitive
    try:
        yield
    finally:
        core.EvalTrace.process_primitive = original


def tpu_gaps(ops: List[Tuple[str, str]], lowered: Dict[str, Set[str]]) -> List[str]:
    """The ops a TPU cannot run, each "op (dtypes): why"; `lowered` maps a primitive's name to the platforms JAX
    has a lowering rule for (declared.jax.lowered_platforms)."""
    dtypes: Dict[str, List[str]] = {}
    for op, dtype in sorted(set(map(tuple, ops))):
        dtypes.setdefault(op, []).append(dtype)
    gaps = []
    for op, types in dtypes.items():
        listed = ", ".join(types)
        platforms = lowered.get(op)
        if platforms and "tpu" not in platforms:
            gaps.append(f"{op} ({listed}): no TPU lowering in JAX's lowering rules (rules for "
                        f"{', '.join(sorted(platforms))} only)")
        elif "complex128" in types:
            gaps.append(f"{op} (complex128): no complex128 on a TPU (XLA's TPU backend has no C128 element type)")
        elif op in _NO_X64_REWRITE and set(types) & set(_SIXTY_FOUR):
            wide = ", ".join(t for t in types if t in _SIXTY_FOUR)
            gaps.append(f"{op} ({wide}): a TPU emulates 64-bit types with 32-bit pairs, and XLA's rewriting into "
                        f"them has no rule for a 64-bit bitcast")
    return gaps


def perturb(out: Any, relative: float) -> Any:
    """`out` with each element of its float32 and complex64 arrays multiplied by 1 + relative and 1 - relative in
    turn; None where it holds no such array."""
    import jax
    import numpy as np

    moved = []

    def move(leaf: Any) -> Any:
        if not isinstance(leaf, (jax.Array, np.ndarray)) or str(leaf.dtype) not in ("float32", "complex64"):
            return leaf
        signs = np.where(np.arange(leaf.size) % 2 == 0, 1.0 + relative, 1.0 - relative).reshape(leaf.shape)
        moved.append(leaf)
        if isinstance(leaf, np.ndarray):
            return (leaf * signs).astype(leaf.dtype)
        return leaf * jax.device_put(signs.astype(leaf.dtype), leaf.sharding)

    result = jax.tree_util.tree_map(move, out)
    return result if moved else None
