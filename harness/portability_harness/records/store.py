"""JSON Lines store: append one record a line, fsynced (at once, or within a second); read back whatever is
readable, and say what was not.

A run killed mid-write leaves at most one partial line at the end of the file (records are appended
whole, one write each): the reader reports it as torn and `repair` drops it, so that a resumed
run appends after the last complete record. Anything else unreadable (a damaged line in the middle, a
record written twice by two runs of one file) is left out and reported, never a reason to lose the rest.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from portability_harness.records.schema import migrate


class CorruptResults(Exception):
    """The file cannot be repaired for appending (it is not a file of records at all)."""


class Locked(Exception):
    """Another process writes this results file."""


@dataclass
class Contents:
    path: str
    records: List[Dict[str, Any]] = field(default_factory=list)  # every readable record, duplicates left out
    torn: Optional[str] = None  # the partial last line, if any
    torn_offset: Optional[int] = None  # byte offset where the torn line starts
    damaged: List[int] = field(default_factory=list)  # numbers of lines in the middle that are not records
    duplicates: List[str] = field(default_factory=list)  # case ids recorded again, left out (and extra headers)

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

    @property
    def done(self) -> set:
        """Case ids with a result: what a resumed run (or a replacement worker) skips. An interrupted case runs again,
        but not one a quick pass cut short at its limit a case, which it would only meet again (run_budget.py)."""
        return {c["case_id"] for c in self.cases if c.get("outcome") != "interrupted" or c.get("cut_short") == "case"}

    def problems(self) -> List[str]:
        """What a reader left out, one phrase each (empty when the file read whole)."""
        out = []
        if self.damaged:
            shown = ", ".join(map(str, self.damaged[:5])) + (" ..." if len(self.damaged) > 5 else "")
            out.append(f"{len(self.damaged)} damaged line{'s' * (len(self.damaged) > 1)} left out (line {shown})")
        if self.duplicates:
            out.append(f"{len(self.duplicates)} duplicate record{'s' * (len(self.duplicates) > 1)} left out "
                       f"(two runs wrote this file; the first record of each case is kept)")
        return out


def read(path: str) -> Contents:
    contents = Contents(path=str(path))
    if not os.path.exists(path):
        return contents
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    lines = data.split(b"\n")
    raw_records = []
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
            else:
                contents.damaged.append(i + 1)
            continue
        if is_last:
            # Complete JSON but no newline: written whole yet the newline was cut; keep it, repair adds it.
            contents.torn_offset = None
        raw_records.append(migrate(record))
    contents.records = _deduplicated(raw_records, contents.duplicates)
    return contents


def _deduplicated(records: List[Dict[str, Any]], duplicates: List[str]) -> List[Dict[str, Any]]:
    """One header and one record per case: the first with a result (an interrupted record gives way to the
    case's later result)."""
    kept: List[Optional[Dict[str, Any]]] = []
    where: Dict[str, int] = {}  # case id -> index in kept
    header_seen = False
    for r in records:
        kind = r.get("record")
        if kind == "header":
            if header_seen:
                duplicates.append("header")
                continue
            header_seen = True
        elif kind == "case":
            case_id = str(r.get("case_id"))
            if case_id in where:
                i = where[case_id]
                if kept[i].get("outcome") == "interrupted":  # type: ignore[union-attr]
                    kept[i] = None  # superseded by the rerun's record, which takes its place in order
                else:
                    if r.get("outcome") != "interrupted":
                        duplicates.append(case_id)
                    continue
            where[case_id] = len(kept)
        kept.append(r)
    return [r for r in kept if r is not None]


def holds_results(path: str) -> bool:
    """Whether a run already wrote to this file: a new run must not append to it without --resume."""
    return os.path.exists(path) and os.path.getsize(path) > 0


def drop_if_empty(path: str) -> None:
    """Remove a results file a run created and wrote nothing to (locking it created it)."""
    try:
        if os.path.getsize(path) == 0:
            os.remove(path)
    except OSError:
        pass


def repair(path: str) -> Optional[str]:
    """Drop a torn last line (and terminate a final unterminated record). Returns the dropped text."""
    contents = read(path)
    if contents.records == [] and contents.damaged and contents.torn is None:
        raise CorruptResults(f"{path} holds no readable record; move it away or choose another --out")
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


def lock(path: str, wait_s: float = 0.0) -> int:
    """Hold an exclusive lock on the results file for as long as the returned descriptor stays open (the
    kernel drops it when the process dies, so a killed run leaves no stale lock). Waits up to `wait_s` for
    a run that is ending (one stopped a moment ago records its case in flight first). Raises Locked."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                os.close(fd)
                raise
            if time.monotonic() >= deadline:
                os.close(fd)
                raise Locked(f"{path} is being written by another run; wait for it to end or choose another --out")
            time.sleep(0.2)


class Writer:
    """Appends records to one file; each record is one write of a whole line, then fsync, or with `sync_every_s`
    an fsync once that long has passed since the last (and at close). A record is in the file (the kernel's)
    when `append` returns either way, so a writer that crashes or is killed loses nothing; the interval bounds
    what a crash of the machine itself can take (a worker's fsyncs cost 0.5 ms each, a tenth of a fast case's
    whole overhead)."""

    def __init__(self, path: str, sync_every_s: float = 0.0):
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._every = sync_every_s
        self._synced = time.monotonic()

    def append(self, record: Dict[str, Any]) -> None:
        line = memoryview((json.dumps(record, default=str, allow_nan=True) + "\n").encode("utf-8"))
        while line:  # a full disk can take part of a line before it refuses: the rest raises OSError
            line = line[os.write(self._fd, line):]
        if time.monotonic() - self._synced >= self._every:
            self.sync()

    def sync(self) -> None:
        os.fsync(self._fd)
        self._synced = time.monotonic()

    def close(self) -> None:
        try:
            self.sync()
        finally:
            os.close(self._fd)

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
