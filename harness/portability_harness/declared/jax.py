"""JAX's declared support: per-platform lowering rules and the primitive test harnesses' limitations.

Which platforms a primitive can run on: the MLIR lowering registry (jax._src.interpreters.mlir:
`_lowerings`, rules for every platform, and `_platform_specific_lowerings[platform]`). A primitive is
declared on cpu, cuda or tpu when it has a rule for that platform or a generic rule; a generic rule whose
body only raises NotImplementedError (0.4.x's eig: "only implemented on the CPU backend") counts as none.

Which dtypes: the primitive test harnesses (jax._src.internal_test_util.test_harnesses, needs absl-py;
in the wheel from 0.4.23 on; jax2tf's tests/primitive_harness.py, its earlier home, is not shipped in
0.4.x wheels). Per harness group (named after its primitive): the dtypes of its harnesses, less those an
enabled `jax_unimplemented` Limitation excludes on that device ('gpu' limitations apply to cuda). Where
no harness module is installed, the dtypes lax's own tests run an op with
(jax._src.internal_test_util.lax_test_util.lax_ops) stand in, on every platform
that has a lowering. Both modules build their dtype lists at import from the x64 setting, so `read`
turns jax_enable_x64 on first. A primitive with neither gets an empty list (declared, for no particular dtype).
Where the lowering registry declares a primitive on a platform, that decides presence even when the
harness's limitations exclude every dtype there (the harness is then older than the lowering); the
limitations stay in `skips`.

Names: for jax.lax, jax.lax.linalg, jax.numpy (and its linalg and fft), jax.scipy.linalg,
jax.scipy.special, jax.random and jax.nn, a public function `f` stands for the primitive `f_p` of the
same module where there is one, else for the op named `f` where the table has one.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Dict, List, Optional, Set

from .dtypes import canonical, ordered

SOURCE = ("JAX's MLIR lowering registry (jax._src.interpreters.mlir): a primitive is declared on a platform when it "
          "has a lowering rule for it or a generic one (a generic rule that only raises NotImplementedError counts "
          "as none); dtypes are those of the primitive test harnesses (jax._src.internal_test_util.test_harnesses) "
          "less the dtypes their enabled jax_unimplemented limitations exclude per device, or, where that module is "
          "not installed, those lax's own tests use (lax_test_util). Both are read with jax_enable_x64 on.")

_PLATFORMS = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu"}  # table kind -> lowering platform
_HARNESS_DEVICE = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}  # table kind -> harness device name
_NAME_MODULES = ("jax.lax", "jax.lax.linalg", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.scipy.linalg",
                 "jax.scipy.special", "jax.random", "jax.nn")


def read() -> Dict[str, Any]:
    """The table; jax_enable_x64 is put back as it was, so that the cases a worker runs after reading it (to
    classify a failure) see the same JAX as the cases before."""
    import jax

    before = bool(jax.config.jax_enable_x64)
    try:
        return _read()
    finally:
        jax.config.update("jax_enable_x64", before)


def _read() -> Dict[str, Any]:
    import jax
    import jaxlib

    from . import new_table

    table = new_table("jax", jax.__version__, SOURCE)
    table["jaxlib_version"] = jaxlib.__version__
    # The test modules build their dtype lists at import from the x64 setting: with it off, every 64-bit
    # dtype would be missing from every list.
    jax.config.update("jax_enable_x64", True)
    lowered = lowered_platforms()
    harnesses = _harnesses()
    fallback = _lax_test_dtypes() if harnesses is None else {}
    dtype_source = ("test_harnesses" if harnesses is not None else "lax_test_util (no test_harnesses in this wheel)"
                    if fallback is not None else "none: this wheel ships neither test module, so no op x dtype pair "
                    "is known")
    # Some wheels (jax 0.6.0's) ship no jax._src.internal_test_util at all: the ops are still known from the
    # lowering rules, their dtypes are not, which a count of 0 pairs would misstate.
    table["dtypes_known"] = fallback is not None
    for kind in _PLATFORMS:
        table["devices"][kind] = {"known": True, "note": f"lowering rules for '{_PLATFORMS[kind]}'; dtypes: {dtype_source}"}

    groups = _harness_dtypes(harnesses) if harnesses is not None else {}
    fallback = fallback or {}
    for op in sorted(set(lowered) | set(groups)):
        by_kind: Dict[str, List[str]] = {}
        for kind in _PLATFORMS:
            group = groups.get(op)
            if op in lowered:
                if _PLATFORMS[kind] not in lowered[op]:
                    continue
                by_kind[kind] = group[kind] if group and group[kind] else fallback.get(op, [])
            elif group and group[kind]:
                by_kind[kind] = group[kind]
        table["ops"][op] = by_kind
    table["skips"] = _limitations(harnesses) if harnesses is not None else []
    table["names"] = _names(set(table["ops"]))
    return table


# --- lowering rules -------------------------------------------------------------------------------------

def lowered_platforms() -> Dict[str, Set[str]]:
    """Primitive name -> platforms it has a real lowering for ('*' stands for all, from a generic rule)."""
    import jax  # noqa: F401  (importing jax registers the lowerings of lax, linalg, fft, random, ...)
    from jax._src.interpreters import mlir

    found: Dict[str, Set[str]] = {}
    for platform, rules in mlir._platform_specific_lowerings.items():
        for prim in rules:
            found.setdefault(str(prim), set()).add(platform)
    generic = {str(prim) for prim, rule in mlir._lowerings.items() if not _only_raises(_rule_function(rule))}
    for name in generic:
        found.setdefault(name, set()).update(_PLATFORMS.values())
    return found


def _rule_function(rule: Any) -> Any:
    # 0.10: LoweringRuleEntry(rule, inline); 0.4: the function itself
    return getattr(rule, "rule", rule)


def _only_raises(fn: Any) -> bool:
    """A lowering rule whose body is a single `raise NotImplementedError(...)`: a placeholder."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(funcs) != 1:
        return False
    body = [s for s in funcs[0].body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


# --- harnesses ------------------------------------------------------------------------------------------

def _harnesses() -> Optional[List[Any]]:
    try:
        from jax._src.internal_test_util import test_harnesses
    except ImportError:
        return None
    return list(test_harnesses.all_harnesses)


def _excluded(harness: Any, device: str) -> bool:
    return any(lim.enabled and device in lim.devices and (not lim.dtypes or harness.dtype in lim.dtypes)
               for lim in harness.jax_unimplemented)


def _harness_dtypes(harnesses: List[Any]) -> Dict[str, Dict[str, List[str]]]:
    groups: Dict[str, Dict[str, Set[str]]] = {}
    for h in harnesses:
        name = canonical(h.dtype)
        if name is None:
            continue
        group = groups.setdefault(h.group_name, {kind: set() for kind in _PLATFORMS})
        for kind, device in _HARNESS_DEVICE.items():
            if not _excluded(h, device):
                group[kind].add(name)
    return {g: {kind: ordered(d) for kind, d in by_kind.items()} for g, by_kind in groups.items()}


def _limitations(harnesses: List[Any]) -> List[Dict[str, Any]]:
    """One entry per group, device and limitation, with the dtypes whose harnesses it disables there."""
    device_kind = {v: k for k, v in _HARNESS_DEVICE.items()}
    found: Dict[tuple, Set[str]] = {}
    for h in harnesses:
        name = canonical(h.dtype)
        for lim in h.jax_unimplemented:
            if not lim.enabled or (lim.dtypes and h.dtype not in lim.dtypes):
                continue
            for device in lim.devices:
                key = (h.group_name, device_kind.get(device, device), lim.description, bool(getattr(lim, "skip_run", False)))
                found.setdefault(key, set()).update([name] if name else [])
    return [{"op": op, "kind": kind, "what": "limitation", "reason": reason, "dtypes": ordered(dtypes),
             "test": None, "skip_run": skip_run} for (op, kind, reason, skip_run), dtypes in sorted(found.items())]


def _lax_test_dtypes() -> Optional[Dict[str, List[str]]]:
    try:
        from jax._src.internal_test_util import lax_test_util
    except ImportError:
        return None
    found: Dict[str, Set[str]] = {}
    for record in lax_test_util.lax_ops():
        found.setdefault(record.op, set()).update(n for n in (canonical(d) for d in record.dtypes) if n)
    return {op: ordered(d) for op, d in found.items()}


# --- names ----------------------------------------------------------------------------------------------

def _names(ops: Set[str]) -> Dict[str, List[str]]:
    import importlib

    names: Dict[str, List[str]] = {}
    for module_name in _NAME_MODULES:
        try:
            module = importlib.import_module(module_name)
        except Exception:  # e.g. jax 0.4's jax.scipy against a newer SciPy: that module's names are left out
            continue
        for attr in dir(module):
            if attr.startswith("_") or attr.endswith("_p"):
                continue
            if not callable(getattr(module, attr, None)):
                continue
            prim = getattr(module, attr + "_p", None)
            op = str(getattr(prim, "name", "")) if prim is not None else attr
            if op in ops:
                names[f"{module_name}.{attr}"] = [op]
    return names
