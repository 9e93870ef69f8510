"""One vocabulary of dtype names across the frameworks: numpy-style canonical names.

Tables store only canonical names; messages and case ids spell dtypes in each framework's own way
(TensorFlow's DT_FLOAT, PyTorch's 'Half' and torch.float16, XLA's F16 and f16[2,3]), so everything
that reads a dtype from outside goes through `canonical`.
"""
from __future__ import annotations

import re
from typing import List, Optional

# The canonical names a table may hold, in a stable order for printing (others, e.g. TF's qint8, resource
# or float8_e5m2, pass through as the framework names them).
CANONICAL = (
    "bool", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128", "string",
)

# Spellings that are not already canonical, lower-cased. Ambiguous words ('float', 'int', 'long') are read
# as the frameworks mean them in their own error messages: PyTorch's ScalarType names and C type names.
_ALIASES = {
    # TensorFlow DataType enum names without the DT_ prefix
    "float": "float32", "double": "float64", "half": "float16",
    # PyTorch ScalarType names as printed in "not implemented for 'Half'"
    "long": "int64", "int": "int32", "short": "int16", "char": "int8", "byte": "uint8",
    "complexfloat": "complex64", "complexdouble": "complex128", "complexhalf": "complex32",
    "cfloat": "complex64", "cdouble": "complex128", "chalf": "complex32",
    # XLA primitive types (HLO text and status messages)
    "pred": "bool", "s4": "int4", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
    "u4": "uint4", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128",
    # short numpy-ish spellings
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "str": "string", "tstring": "string",
}

_CANONICAL_SET = frozenset(CANONICAL)


def canonical(name: object) -> Optional[str]:
    """The canonical name of a dtype given as text or as a framework's dtype object; None if not a dtype.

    Accepts 'DT_FLOAT', 'torch.float32', 'Half', 'f64', 'float32', numpy and JAX dtype objects (anything
    whose `name` or str() is one of those spellings)."""
    if name is None:
        return None
    if not isinstance(name, str):
        # torch.dtype prints as torch.float32; numpy dtypes and scalar types carry a name
        text = getattr(name, "name", None)
        if not isinstance(text, str):
            text = getattr(name, "__name__", None) or str(name)
        name = text
    text = name.strip().strip("'\"`").lower()
    for prefix in ("torch.", "tf.", "np.", "numpy.", "jnp.", "dtypes.", "dt_"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text.endswith("_ref"):  # TensorFlow reference types: the same dtype held in a ref variable
        text = text[:-4]
    if text in _CANONICAL_SET:
        return text
    if text in _ALIASES:
        return _ALIASES[text]
    if re.fullmatch(r"(q?u?int\d+|float8_\w+|quint\w+|qint\w+|resource|variant)", text):
        return text
    return None


def sort_key(name: str):
    """Canonical order first, then anything else alphabetically."""
    return (CANONICAL.index(name), "") if name in _CANONICAL_SET else (len(CANONICAL), name)


def ordered(names) -> List[str]:
    return sorted(set(names), key=sort_key)


# Dtype names as they appear in case ids and test names: test_x[float32], test_mm_xla_complex64, ...-bfloat16.
_IN_NAME = re.compile(
    r"(?<![a-z0-9])(bool|u?int(?:8|16|32|64)|float(?:16|32|64)|bfloat16|complex(?:32|64|128)|half|double"
    r"|cfloat|cdouble|string)(?![a-z0-9])", re.I)


def in_name(text: str) -> List[str]:
    """Canonical dtypes that a case id or test name spells out (as pytest parameter ids and PyTorch's
    device-generic tests do: ..._float32, [bfloat16]); underscores count as separators."""
    found = []
    for m in _IN_NAME.finditer(text.replace("_", " ")):
        c = canonical(m.group(1))
        if c and c not in found:
            found.append(c)
    return found
