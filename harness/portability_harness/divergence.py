"""How far one output is from another of the same case: the compiled result from the eager one on the same device.

Both sides come as host arrays (Adapter.host_arrays: a NumPy array and the dtype the framework computed in, which
NumPy may not have, such as bfloat16). The measure is graded, not a verdict: the largest absolute and relative
error and the largest distance in units in the last place of the computed dtype, so that 1 ulp of float16 and 1 ulp
of float32 read alike. Whether a divergence fails the case is the case's own check's decision (plugin.py).
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

# Machine epsilon (the distance from 1.0 to the next value) of the floating dtypes the frameworks compute in; a
# value's ulp is eps times the power of two at or below it. NumPy's finfo lacks bfloat16 and the float8 types.
# Below the smallest normal value of the dtype the spacing stays that of the smallest normal (subnormals).
_EPS = {"float64": (2.0 ** -52, 2.0 ** -1022), "float32": (2.0 ** -23, 2.0 ** -126),
        "float16": (2.0 ** -10, 2.0 ** -14), "bfloat16": (2.0 ** -7, 2.0 ** -126),
        "float8_e4m3fn": (2.0 ** -3, 2.0 ** -6), "float8_e5m2": (2.0 ** -2, 2.0 ** -14)}


def _eps(dtype: str) -> Optional[Tuple[float, float]]:
    """(machine epsilon, smallest normal value) of a floating dtype's name, or None."""
    name = dtype.split(".")[-1]
    if name.startswith("complex"):  # each part has half the width: complex64 is two float32s
        bits = int(name[len("complex"):] or 128) // 2
        return _EPS.get(f"float{bits}")
    return _EPS.get(name)


def _pair(ref: Any, got: Any, dtype: str) -> Tuple[float, float, float]:
    import numpy as np

    a = np.asarray(ref)
    b = np.asarray(got)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        parts = [_pair(a.real, b.real, dtype), _pair(a.imag, b.imag, dtype)]
        return tuple(max(p[i] for p in parts) for i in range(3))  # type: ignore[return-value]
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        diff = np.abs(a.astype(np.int64) - b.astype(np.int64)) if a.size else np.zeros(0)
        top = float(diff.max()) if diff.size else 0.0
        rel = float((diff / np.maximum(np.abs(a.astype(np.float64)), 1)).max()) if diff.size else 0.0
        return top, rel, top  # an integer's ulp is 1
    a, b = a.astype(np.float64), b.astype(np.float64)
    if not a.size:
        return 0.0, 0.0, 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        diff = np.where(same, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), math.inf, diff)  # NaN on one side only, or inf against a finite value
        scale = np.abs(a)
        rel = np.where(diff == 0, 0.0, diff / scale)
        limits = _eps(dtype)
        if limits is None:
            ulp = diff
        else:
            eps, tiny = limits
            spacing = eps * np.exp2(np.floor(np.log2(np.maximum(scale, tiny))))
            ulp = np.where(diff == 0, 0.0, diff / spacing)
    return float(diff.max()), float(np.nan_to_num(rel, nan=math.inf).max()), float(ulp.max())


def measure(reference: List[Tuple[Any, str]], output: List[Tuple[Any, str]]) -> Optional[Dict[str, Any]]:
    """{max_abs, max_rel, max_ulp} of `output` against `reference` (each a list of (array, dtype name) leaves), with
    `mismatch` where the structures differ (leaf count, shape or dtype); None when neither holds an array."""
    if not reference and not output:
        return None
    if len(reference) != len(output):
        return {"mismatch": f"{len(output)} arrays, not {len(reference)}"}
    worst = [0.0, 0.0, 0.0]
    for (a, da), (b, db) in zip(reference, output):
        shape_a, shape_b = tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ()))
        if shape_a != shape_b:
            return {"mismatch": f"shape {shape_b}, not {shape_a}"}
        if da != db:
            return {"mismatch": f"dtype {db}, not {da}"}
        worst = [max(w, v) for w, v in zip(worst, _pair(a, b, da))]
    return {"max_abs": worst[0], "max_rel": worst[1], "max_ulp": worst[2]}


# A case's output as a few of its values, kept in its record so that a report can set two cells of the same case
# side by side (any device against the CPU's eager result) without storing whole outputs: evenly strided values of
# each array, as numbers (non-finite values as the strings nan, inf, -inf).
DIGEST_VALUES = 8
DIGEST_ARRAYS = 4


def digest(arrays: List[Tuple[Any, str]]) -> Optional[List[Dict[str, Any]]]:
    import numpy as np

    out = []
    for array, dtype in arrays[:DIGEST_ARRAYS]:
        a = np.asarray(array)
        flat = a.reshape(-1)
        if a.dtype.kind == "c":
            flat = np.concatenate([flat.real, flat.imag])
        stride = max(1, -(-flat.size // DIGEST_VALUES))
        values = [_number(v) for v in flat[::stride][:DIGEST_VALUES].tolist()]
        out.append({"dtype": dtype, "shape": list(a.shape), "values": values})
    return out or None


_NON_FINITE = ("nan", "inf", "-inf")


def _number(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    return v if isinstance(v, (int, float, bool)) else str(v)


def compare_digests(reference: Optional[List[Dict[str, Any]]],
                    output: Optional[List[Dict[str, Any]]]) -> Optional[Dict[str, Any]]:
    """measure() over two digests: the divergence of the values both kept (a lower bound of the whole output's)."""
    import numpy as np

    if not reference or not output:
        return None

    def text(leaf: Dict[str, Any]) -> bool:  # a string tensor's values, not numbers written as nan or inf
        return any(isinstance(v, str) and v not in _NON_FINITE for v in leaf["values"])

    def arrays(d: List[Dict[str, Any]]) -> List[Tuple[Any, str]]:
        found = []
        for leaf in d:
            values = [float(v) if isinstance(v, str) else v for v in leaf["values"]]
            kept = np.array(values, dtype=np.float64 if any(isinstance(v, float) for v in values) else np.int64)
            found.append((kept.reshape(-1), leaf["dtype"], tuple(leaf["shape"])))
        return found

    if [leaf["shape"] for leaf in reference] != [leaf["shape"] for leaf in output]:
        return {"mismatch": f"shapes {[leaf['shape'] for leaf in output]}, not {[leaf['shape'] for leaf in reference]}"}
    if [leaf["values"] for leaf in reference if text(leaf)] != [leaf["values"] for leaf in output if text(leaf)]:
        return {"mismatch": "text values differ"}
    a, b = arrays([leaf for leaf in reference if not text(leaf)]), arrays([leaf for leaf in output if not text(leaf)])
    return measure([(x[0], x[1]) for x in a], [(x[0], x[1]) for x in b])


# --- a compiled case's output against the eager call (plugin.bench) ---

def host_arrays(adapter: Any, result: Any) -> List[Any]:
    """The output's arrays on the host, read before anything else runs (an eager reference call may change an
    output that aliases an input); none where they cannot be read (an output the check alone understands)."""
    try:
        return adapter.host_arrays(result)
    except Exception:
        return []


def against_eager(adapter: Any, output: List[Any], setup: Any, fn: Any, args: Any,
                kwargs: Any) -> Optional[Dict[str, Any]]:
    """The compiled output (its host arrays) against one eager call of the same function on the same inputs and
    device, made after the timed calls (an eager call first would hand the compiled one inputs it had changed).
    {reference_failed} where the eager call raises: the eager cell records that failure as its own."""
    try:
        if setup is not None:
            setup()
        with adapter.eager():
            reference = fn(*args, **kwargs)
            adapter.sync(reference)
        return measure(adapter.host_arrays(reference), output)
    except Exception as e:
        return {"reference_failed": f"{type(e).__name__}: {str(e)[:200]}"}


def diverged(found: Optional[Dict[str, Any]]) -> bool:
    """Whether a divergence shows any difference at all (a check that then fails is a precision failure)."""
    if not found:
        return False
    return bool(found.get("mismatch")) or any((found.get(k) or 0) > 0 for k in ("max_abs", "max_ulp"))
