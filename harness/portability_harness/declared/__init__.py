"""Declared support: what a framework itself says each device kind supports, per op and dtype.

`read(framework)` asks the installed framework (imported here, lazily: the harness imports nothing
beyond the standard library at import time) and returns a table; `save`/`load` keep tables as
(gzip-compressed) JSON; `declared(...)` answers one question from a table. The classifier uses the
answers to tell `type` (the op is there for other dtypes) from `not_implemented` (the op is not there).

What "declared" means differs per framework (each table's `source` says it in a paragraph):
- tensorflow (declared/tensorflow.py): kernels in the kernel registry;
- torch (declared/torch.py): dtypes listed by the OpInfo test database, per device type;
- jax (declared/jax.py): lowering rules per platform and the primitive test harnesses' limitations.

Table (a JSON object; schema 1):
    schema: 1
    framework, framework_version: the installed framework that was read
    source: one paragraph, what "declared" means for this framework
    python: the interpreter version the table was read with
    devices: {kind: {"known": bool, "note": str}} for kind in cpu, cuda, tpu. known=false: this
        environment cannot tell what that device kind supports (e.g. a -cpu wheel's cuda column); every
        lookup for it is "unknown".
    ops: {op: {kind: [dtype, ...]}}. A kind absent: the op is not declared on that device kind. An
        empty list: declared there for no particular dtype (the op has no dtype attribute, or the source
        lists none), which answers "declared" for any dtype. Dtype names are canonical (dtypes.py).
    names: {public function name: [op, ...]}: which ops a public name (tf.cast, torch.add,
        jax.lax.add) stands for, by a rule each framework's module documents.
    unknowable: {kind: [op, ...]}: ops whose list for that kind this environment cannot know (lookups
        answer "unknown").
    skips: [{op, kind, dtypes, what, reason, ...}]: declared skips, expected failures and
        limitations, as data (not used by `declared`).
    coverage: {kind: {"ops": N, "pairs": M}}: ops declared on the kind and op x dtype pairs listed.
    Framework-specific extras (documented in that framework's module): tensorflow `attrs` (every type
        attribute's dtypes per op and kind), jax `jaxlib_version`.
"""
from __future__ import annotations

import gzip
import importlib
import json
import os
import re
from typing import Any, Dict, Iterable, List, Optional

from .dtypes import canonical, ordered

SCHEMA = 1
DEVICE_KINDS = ("cpu", "cuda", "tpu")
VERDICTS = ("declared", "dtype_not_declared", "op_not_declared", "unknown")
_READERS = {"tensorflow": "tensorflow", "torch": "torch", "jax": "jax"}


def read(framework: str) -> Dict[str, Any]:
    """The table of the framework installed in this interpreter (imports the framework)."""
    if framework not in _READERS:
        raise ValueError(f"unknown framework {framework!r}; choose one of {', '.join(_READERS)}")
    module = importlib.import_module(f"{__name__}.{_READERS[framework]}")
    table = module.read()
    table["coverage"] = coverage(table)
    return table


def new_table(framework: str, version: str, source: str) -> Dict[str, Any]:
    """An empty table with every key, for the framework readers to fill."""
    import platform

    return {"schema": SCHEMA, "framework": framework, "framework_version": version, "source": source,
            "python": platform.python_version(), "devices": {}, "ops": {}, "names": {},
            "unknowable": {}, "skips": [], "coverage": {}}


def coverage(table: Dict[str, Any]) -> Dict[str, Dict[str, int]]:
    """Per device kind: ops declared on it and op x dtype pairs listed."""
    result = {}
    for kind in table.get("devices", {}):
        lists = [by_kind[kind] for by_kind in table["ops"].values() if kind in by_kind]
        result[kind] = {"ops": len(lists), "pairs": sum(len(dtypes) for dtypes in lists)}
    return result


# --- files ----------------------------------------------------------------------------------------------

def save(table: Dict[str, Any], path: str) -> str:
    """Write the table as JSON, gzip-compressed when the path ends in .gz; keys sorted so that two
    readings of the same framework give the same bytes."""
    text = json.dumps(table, sort_keys=True, indent=None, separators=(",", ":")) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if path.endswith(".gz"):
        # mtime 0: the file's bytes depend on the table only
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(text.encode("utf-8"))
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return path


def load(path: str) -> Dict[str, Any]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        table = json.load(f)
    if table.get("schema") != SCHEMA:
        raise ValueError(f"{path}: declared-support table schema {table.get('schema')!r}, expected {SCHEMA}")
    return table


def table_path(folder: str, framework: str, version: str) -> Optional[str]:
    """The table in `folder` for this framework version: <framework>-<version>.json.gz, where a local
    build suffix is ignored (torch 1.12.0+cu102 uses torch-1.12.0). None when there is none."""
    release = re.split(r"[+]", version, maxsplit=1)[0]
    for candidate in (version, release):
        path = os.path.join(folder, f"{framework}-{candidate}.json.gz")
        if os.path.exists(path):
            return path
    return None


# --- questions ------------------------------------------------------------------------------------------

def ops_for(table: Dict[str, Any], name: str) -> List[str]:
    """The table's ops that an op name or a public function name stands for (empty: unknown to it).

    An op name is looked up first; then the public name as given, then with a framework alias expanded
    or removed (tensorflow.x and tf.x are one name)."""
    ops = table.get("ops", {})
    if name in ops:
        return [name]
    names = table.get("names", {})
    for candidate in _spellings(name):
        if candidate in names:
            return [op for op in names[candidate] if op in ops]
    return []


def _spellings(name: str) -> Iterable[str]:
    yield name
    for long, short in (("tensorflow.", "tf."), ("jax.numpy.", "jnp.")):
        if name.startswith(long):
            yield short + name[len(long):]
        elif name.startswith(short):
            yield long + name[len(short):]


def declared(table: Optional[Dict[str, Any]], op_or_function: str, device_kind: str,
             dtype: Optional[str] = None) -> str:
    """What the table declares for one op (or public function) on one device kind and dtype.

    - "declared": the op is declared on the device for this dtype (or, dtype None, for some dtype);
    - "dtype_not_declared": the op is declared on the device, for other dtypes only;
    - "op_not_declared": the op is not declared on the device at all;
    - "unknown": no table, an op or device the table does not know, a dtype that is not one, or a list
      this environment could not know.
    A public name that stands for several ops is declared if any of them is, and not declared on the
    device only if none of them is."""
    if not table or not op_or_function or device_kind not in table.get("devices", {}):
        return "unknown"
    if not table["devices"][device_kind].get("known", False):
        return "unknown"
    wanted = canonical(dtype) if dtype is not None else None
    if dtype is not None and wanted is None:
        return "unknown"
    ops = ops_for(table, op_or_function)
    if not ops:
        return "unknown"
    unknowable = set(table.get("unknowable", {}).get(device_kind, ()))
    verdicts = [_one(table["ops"][op], device_kind, wanted, op in unknowable) for op in ops]
    for verdict in ("declared", "dtype_not_declared", "unknown"):
        if verdict in verdicts:
            return verdict
    return "op_not_declared"


def _one(by_kind: Dict[str, List[str]], kind: str, dtype: Optional[str], unknowable: bool) -> str:
    if kind not in by_kind:
        # a list that cannot be known here may be absent for that reason only
        return "unknown" if unknowable else "op_not_declared"
    if unknowable:
        return "unknown"
    listed = by_kind[kind]
    if dtype is None or not listed or dtype in listed:
        return "declared"
    return "dtype_not_declared"


def declared_dtypes(table: Dict[str, Any], op_or_function: str, device_kind: str) -> List[str]:
    """The dtypes declared for an op (or the union for a public name's ops) on a device kind."""
    found: List[str] = []
    for op in ops_for(table, op_or_function):
        found += table["ops"][op].get(device_kind, [])
    return ordered(found)


__all__ = ["DEVICE_KINDS", "SCHEMA", "VERDICTS", "canonical", "coverage", "declared", "declared_dtypes",
           "load", "new_table", "ops_for", "read", "save", "table_path"]
