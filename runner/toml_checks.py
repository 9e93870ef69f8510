"""Checking a TOML file a user writes (matrix.toml): each problem is one line naming the file, its line and the fix.
tomllib reports syntax errors with their line; these checks find the line of a key or value that is wrong."""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from runner.errors import UserError


class Source:
    """The text of matrix.toml, to name the line of a problem that tomllib itself does not locate."""

    def __init__(self, path: Path, text: str):
        self.path, self.lines = path, [l.split("#", 1)[0] for l in text.splitlines()]

    def fail(self, problem: str, fix: str, key: str | None = None, value: str | None = None,
             table: str | None = None) -> UserError:
        line = self.line_of(key, value, table)
        where = f"{self.path.name} line {line}" if line else self.path.name
        return UserError(f"{where}: {problem}; {fix}")

    def line_of(self, key: str | None, value: str | None, table: str | None) -> int | None:
        """The first line, from the table's header on, that assigns `key` or quotes `value`."""
        start = 0
        if table:
            header = re.compile(rf"^\s*\[+\s*{re.escape(table)}\s*\]")
            start = next((i for i, l in enumerate(self.lines) if header.search(l)), 0)
        patterns = []
        if key:
            patterns.append(re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=|\b{re.escape(key)}\s*="))
        if value:
            patterns.append(re.compile(rf"[\"']{re.escape(value)}[\"']"))
        for pattern in patterns:
            for i in range(start, len(self.lines)):
                if pattern.search(self.lines[i]):
                    return i + 1
        return start + 1 if table else None


def suggest(word: str, allowed) -> str:
    close = difflib.get_close_matches(word, sorted(allowed), n=1)
    listed = f"allowed: {', '.join(sorted(allowed))}"
    return f"did you mean {close[0]!r}? {listed}" if close else listed


def check_keys(src: Source, table: dict, allowed: set[str], where: str, header: str | None = None) -> None:
    for key in table:
        if key not in allowed:
            raise src.fail(f"unknown key {key!r} in {where}", suggest(key, allowed), key=key, table=header)


def check_choice(src: Source, value: Any, allowed, what: str, where: str, header: str | None = None) -> None:
    if value not in allowed:
        raise src.fail(f"unknown {what} {value!r} in {where}", suggest(str(value), allowed), value=str(value),
                       table=header)


def list_of_str(src: Source, table: dict, key: str, where: str, header: str | None) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise src.fail(f"{where} {key} must be a list of strings", f'write {key} = ["..."]', key=key, table=header)
    return value


def positive(src: Source, table: dict, key: str, default, header: str | None, kind=int):
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 or (kind is int and value != int(value)):
        raise src.fail(f"{key} = {value!r} is not a positive {'whole ' if kind is int else ''}number",
                       f"write e.g. {key} = {default}", key=key, table=header)
    return kind(value)
