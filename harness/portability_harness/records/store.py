"""JSON Lines store: append one record a line, fsynced; read back tolerating a torn last line.

A run killed mid-write leaves at most one partial line at the end of the file (records are appended
whole and fsynced one by one). Readers report it; `repair` drops it so that a resumed run appends
after the last complete record.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from portability_harness.records.schema import migrate


class CorruptResults(Exception):
    """A line other than the last one is not valid JSON: the file was edited or damaged."""


@dataclass
class Contents:
    path: str
    records: List[Dict[str, Any]] = field(default_factory=list)
    torn: Optional[str] = None  # the partial last line, if any
    torn_offset: Optional[int] = None  # byte offset where the torn line starts

    @property
    def header(self) -> Optional[Dict[str, Any]]:
        return next((r for r in self.records if r.get("record") == "header"), None)

    @property
    def cases(self) -> List[Dict[str, Any]]:
        return [r for r in self.records if r.get("record") == "case"]

    @property
    def footer(self) -> Optional[Dict[str, Any]]:
        footers = [r for r in self.records if r.get("record") == "footer"]
        return footers[-1] if footers else None


def read(path: str) -> Contents:
    contents = Contents(path=str(path))
    if not os.path.exists(path):
        return contents
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    lines = data.split(b"\n")
    for i, raw in enumerate(lines):
        is_last = i == len(lines) - 1
        start = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError:
            # Only the unterminated last line can be torn by a kill; anything earlier is damage.
            if is_last:
                contents.torn = raw.decode("utf-8", "replace")
                contents.torn_offset = start
                break
            raise CorruptResults(f"{path}: line {i + 1} is not a JSON record; fix or remove that line")
        if is_last:
            # Complete JSON but no newline: written whole yet the newline was cut; keep it, repair adds it.
            contents.torn_offset = None
        contents.records.append(migrate(record))
    return contents


def holds_results(path: str) -> bool:
    """Whether a run already wrote to this file: a new run must not append to it without --resume."""
    return os.path.exists(path) and os.path.getsize(path) > 0


def repair(path: str) -> Optional[str]:
    """Drop a torn last line (and terminate a final unterminated record). Returns the dropped text."""
    contents = read(path)
    if contents.torn_offset is not None:
        with open(path, "r+b") as f:
            f.truncate(contents.torn_offset)
            f.flush()
            os.fsync(f.fileno())
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size:
            f.seek(size - 1)
            needs_newline = f.read(1) != b"\n"
        else:
            needs_newline = False
    if needs_newline:
        with open(path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
    return contents.torn


class Writer:
    """Appends records to one file; each record is one write of a whole line, then fsync."""

    def __init__(self, path: str):
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: Dict[str, Any]) -> None:
        line = (json.dumps(record, default=str, allow_nan=True) + "\n").encode("utf-8")
        os.write(self._fd, line)
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
