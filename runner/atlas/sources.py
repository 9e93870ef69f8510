"""The folders an atlas is made of, each read the same way: a results folder as runner writes it (its *.jsonl
records), or as results/reference/ keeps one (records.tar.xz, unpacked into a scratch folder), with the declared-
support tables (declared/) and a sweep's record (sweep.json) beside them, and the head of its README: a list of
`- Key: value` lines right under the title (Command, Date, Machine, Facts, Records, Not kept).

Whatever a folder lacks becomes a one-line warning naming the folder and what is missing; nothing is left out
silently.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from runner import declared, releases
from runner.archive import ARCHIVE, DAMAGED, unpack
from runner.errors import UserError
from runner.report import load
from runner.report.load import Results

README = "README.md"
HEAD = ("Command", "Date", "Machine", "Facts", "Records", "Not kept")
REQUIRED = ("Command", "Date", "Machine")  # what a README's head must say when the folder has a README
NOT_KEPT = "Not kept"
_ITEM = re.compile(r"^- ([A-Z][A-Za-z ]*): (.*)$")


@dataclass
class Source:
    path: Path  # as given
    name: str  # unique among the atlas's sources
    head: dict[str, str] = field(default_factory=dict)  # the README's head, key -> value
    results: Optional[Results] = None  # None: no case records read
    declared: list[Path] = field(default_factory=list)  # declared/ folders found, records' own first
    sweep: Optional[dict[str, Any]] = None  # sweep.json
    archived: bool = False  # the records came from the ARCHIVE
    warnings: list[str] = field(default_factory=list)  # what is missing or left out, one line each
    notes: list[str] = field(default_factory=list)  # what reading the records noted (torn lines, interrupted cases)


def read_head(readme: Path) -> dict[str, str]:
    """The `- Key: value` list that opens a README, after its title (an item may wrap onto indented lines)."""
    head: dict[str, str] = {}
    last = None
    for line in readme.read_text(encoding="utf-8").splitlines()[1:]:
        if not line.strip():
            if head:
                break
            continue
        item = _ITEM.match(line)
        if item:
            last = item[1]
            head[last] = item[2].strip()
        elif last and line.startswith(" "):
            head[last] += " " + line.strip()
        else:
            break
    return head


def collect(paths: list[Path], scratch: Path, curated_root: Optional[Path] = None) -> list[Source]:
    """Read every folder (or .jsonl file) given, unpacking archives under `scratch`."""
    sources: list[Source] = []
    taken: set[str] = set()
    for path in paths:
        if not path.exists():
            raise UserError(f"{path} does not exist; pass results folders (or .jsonl files) to `runner report --site`")
        if path.is_file() and path.suffix != ".jsonl":
            raise UserError(f"{path} is neither a results folder nor a .jsonl file; pass results folders")
        name = path.stem if path.is_file() else path.resolve().name
        if name in taken:  # two runs of one name in different places: the parent tells them apart
            name = f"{path.resolve().parent.name}-{name}"
        taken.add(name)
        sources.append(_read(Source(path, name), scratch / name, curated_root))
    return sources


def _read(s: Source, scratch: Path, curated_root: Optional[Path]) -> Source:
    folder = s.path if s.path.is_dir() else s.path.parent
    if s.path.is_dir() and (s.path / README).exists():
        s.head = read_head(s.path / README)
        lacking = [k for k in REQUIRED if k not in s.head]
        if lacking:
            s.warnings.append(f"{s.name}: {README} does not open with its {', '.join(lacking)} line"
                              f"{'s' if len(lacking) > 1 else ''} (results/reference/README.md shows the head)")
    archived = s.path.is_dir() and (s.path / ARCHIVE).exists()
    records = (_unpack(s, scratch) if archived else None) or s.path
    s.declared = [p for p in (records / declared.FOLDER, folder / declared.FOLDER) if p.is_dir()]
    sweep = next((p / releases.RECORD for p in (records, folder) if (p / releases.RECORD).exists()), None)
    if sweep is not None:
        s.sweep = _sweep(sweep, s)
    if archived and not s.archived:  # the archive could not be unpacked: said so, nothing more to read
        return s
    if s.path.is_file() or any(records.glob("*.jsonl")):
        _load(s, records, curated_root)
    elif s.head.get(NOT_KEPT):
        s.warnings.append(f"{s.name}: records not kept, so not in the atlas: {s.head[NOT_KEPT]}")
    else:
        s.warnings.append(f"{s.name}: no case records (no {ARCHIVE}, no *.jsonl) and no `{NOT_KEPT}` line in its "
                          f"{README} to say why; only its declared tables and sweep record are read")
    return s


def _unpack(s: Source, scratch: Path) -> Optional[Path]:
    try:
        unpack(s.path, scratch)
    except DAMAGED as e:
        s.warnings.append(f"{s.name}: {ARCHIVE} cannot be unpacked ({e}); its records are left out")
        return None
    s.archived = True
    return scratch


def _load(s: Source, records: Path, curated_root: Optional[Path]) -> None:
    try:
        s.results = load.load([records], curated_root=curated_root)
    except UserError as e:  # files without a single readable case
        s.warnings.append(f"{s.name}: {e}")
        return
    s.notes += [_relative(n, records, s) for n in s.results.notes]
    if s.head.get(NOT_KEPT):  # some records are here, others not
        s.warnings.append(f"{s.name}: some records not kept, so not in the atlas: {s.head[NOT_KEPT]}")
    if not s.results.census.empty:
        census = s.results.census.groupby(["framework", "target"]).size()
        counts = ", ".join(f"{fw} {target}: {n} op x dtype cases" for (fw, target), n in census.items())
        s.warnings.append(f"{s.name}: census records ({counts}) are not in the atlas; `runner report` on the "
                          "records shows them")


def _sweep(path: Path, s: Source) -> Optional[dict[str, Any]]:
    try:
        record = json.loads(path.read_text())
        record["releases"] = list(record["releases"])
        return record
    except (ValueError, KeyError, TypeError) as e:
        s.warnings.append(f"{s.name}: {releases.RECORD} is damaged ({e}); release dates are left out")
        return None


def _relative(note: str, records: Path, s: Source) -> str:
    """A note about a file of unpacked records names the file as the folder holds it."""
    where = f"{s.name}/{ARCHIVE}:" if s.archived else f"{s.name}:"
    return note.replace(f"{records}/", f"{where} ") if str(records) in note else f"{s.name}: {note}"
