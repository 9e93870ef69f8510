"""A results folder and everything about its layout: the one owner of results/<run-id>/.

    <image>-<profile>[-r<n>].jsonl                one cell repeat's records, appended by the harness
                                                  (-paper, -compiled, -census before -r<n> for such
                                                  a cell); every file of a cell starts <image>-<profile>
    <same name>.log                               what the framework and pytest printed
    <same name>.census.json                       a census cell's cases as collected (for lost-case records)
    matrix.json                                   the plan: each cell with its status, reason and files
    merged.json                                   every cell with its records (raw samples left out)
    summary.md                                    a table of the cells

    .lock                                         held by the run writing the folder (an OS lock)

A new run refuses a folder that already holds a run or results; `--resume` continues one, keeping what
finished; a second run into a folder that a run is writing is refused, naming that run's process. After
every cell the state, merged.json and summary.md are rewritten whole, with the run's status: running,
finished or interrupted, and the keys of the cells that failed (`failed_cells`).
"""
from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from portability_harness.protocol import log_path
from portability_harness.records import schema, store

from runner import archive, files, view
from runner.cell import Cell
from runner.errors import Stopped, UserError

# cut_short: the run's budget ended before every case of the cell ran (the records say which), or had no room for some
# of its repeats; --resume runs them
RUNNABLE = ("pending", "failed", "running", "interrupted", "cut_short")


@dataclass
class CellState:
    """A planned cell and what happened to it in this folder."""
    cell: Cell
    status: str  # pending, running, done, failed, interrupted, cut_short, not_run, excluded
    reason: Optional[str] = None
    files: list[str] = field(default_factory=list)
    # Its repeats' wall, expected before they ran (runner.estimate) and as it was, in seconds (of the last run that
    # ran them; building the environment not included)
    expected_s: Optional[float] = None
    wall_s: Optional[float] = None

    def entry(self) -> dict[str, Any]:
        c = self.cell
        return {"key": c.key, "image": c.name, "framework": c.framework, "device": c.device, "profile": c.profile.name,
                "mode": c.mode, "compiler": c.compiler, "task": c.task, "repeats": c.repeats, "status": self.status, "reason": self.reason,
                "backend": c.backend, "files": self.files, "expected_s": self.expected_s, "wall_s": self.wall_s}


@dataclass
class Run:
    """The cells' states of a run in a folder, its status and the merged record as last written."""
    states: list[CellState]
    status: str = "running"
    merged: dict[str, Any] = field(default_factory=dict)

    @property
    def todo(self) -> list[CellState]:
        return [s for s in self.states if s.status in RUNNABLE]


class RunDir:
    STATE = "matrix.json"
    MERGED = "merged.json"
    SUMMARY = "summary.md"

    LOCK = ".lock"

    def __init__(self, path: Path):
        self.path = path.resolve()
        self._lock: Optional[int] = None
        # --resume with fewer cells than the folder holds (a sweep over some of its releases): the others' entries,
        # kept as they were in the state file and merged.json
        self._kept: list[dict[str, Any]] = []

    @property
    def run_id(self) -> str:
        return self.path.name

    @classmethod
    def new(cls, results: Path) -> "RunDir":
        return cls(results / datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))

    @staticmethod
    def latest(results: Path) -> "RunDir":
        """The run under `results` whose results were written last."""
        runs = [d for d in results.glob("*/") if any(d.glob("*.jsonl"))] if results.is_dir() else []
        if not runs:
            raise UserError(f"no run under {results}; run `make matrix` (or `runner bench`) first, or name a results "
                            "folder")
        return RunDir(max(runs, key=lambda d: max(f.stat().st_mtime for f in d.glob("*.jsonl"))))

    # --- layout ------------------------------------------------------------------------------------------------

    def results_file(self, cell: Cell, repeat: int) -> Path:
        # A paper-mode, compiled or census cell beside the same image's default one: the key's variants.
        variants = "".join(f"-{v}" for v in cell.key.split("/")[2:])
        suffix = f"-r{repeat}" if cell.repeats > 1 else ""
        return self.path / f"{cell.name}-{cell.profile.name}{variants}{suffix}.jsonl"

    def log_file(self, results_file: Path) -> Path:
        return Path(log_path(str(results_file)))

    def install_log(self, cell: Cell) -> Path:
        """Everything the installer (or the image build) printed while realising the cell's environment."""
        return self.path / f"{cell.name}-{cell.profile.name}.install.log"

    CACHES = ".caches"

    def caches(self, cell: Cell) -> Path:
        """The folder the cell's repeats share for the compilers' persistent caches while the cell runs (the
        harness's compile_caches.py); under the results folder, which a container sees too."""
        return self.path / self.CACHES / cell.key.replace("/", "-")

    def result_files(self) -> list[Path]:
        return sorted(self.path.glob("*.jsonl"))

    def pending(self, cell: Cell) -> list[tuple[int, Path]]:
        """The cell's repeats (of its part: Cell.own_repeats) not finished in this folder yet (a resumed run skips the
        others), with their files."""
        files = [(repeat, self.results_file(cell, repeat)) for repeat in cell.own_repeats]
        return [(repeat, out) for repeat, out in files if not self.finished(out)]

    @staticmethod
    def finished(results_file: Path) -> bool:
        """Whether this repeat ran to its footer with no case left by the run's budget (a resumed run skips it, and
        runs those of one whose budget ended first: harness run_budget.py)."""
        contents = store.read(str(results_file))
        return contents.footer is not None and not any(c.get("cut_short") == "run" for c in contents.cases)

    def ended(self, state: CellState) -> tuple[str, Optional[str]]:
        """The status and reason of a cell whose repeats ran to their end: done, or cut_short where the run's time
        limits left cases without a result (the footers count them) or its budget left no room for some of its
        repeats (runner.budget.fit: their files were never written)."""
        ran = [name for name in state.files if (self.path / name).exists()]
        cut = sum((store.read(str(self.path / name)).footer or {}).get("cut_short") or 0 for name in ran)
        missing = len(state.files) - len(ran)
        why = ([f"{view.counted(cut, 'case')} cut short by the run's time limits (listed below)"] if cut else []) + (
            [f"{view.counted(missing, 'repeat')} of {len(state.files)} not run: the run's time budget had no room for "
             f"{'them' if missing > 1 else 'it'} (--resume runs {'them' if missing > 1 else 'it'})"] if missing else [])
        return ("cut_short", "; ".join(why)) if why else ("done", None)

    # --- state -------------------------------------------------------------------------------------------------

    def begin(self, cells: list[Cell], resume: bool) -> list[CellState]:
        """The cells' states in this folder: fresh ones for a new run (which must not overwrite anything), or
        those of the earlier run for --resume (what finished stays finished; cells new to the plan are added)."""
        states = [CellState(c, c.initial_status, c.reason) for c in cells]
        self._take(resume)
        if resume:
            previous = self._previous()
            planned = {s.cell.key for s in states}
            self._kept = [entry for key, entry in previous.items() if key not in planned]
            for s in states:
                before = previous.get(s.cell.key)
                if before and s.status == "pending":
                    s.files = before.get("files", [])
                    s.expected_s, s.wall_s = before.get("expected_s"), before.get("wall_s")
                    if before.get("status") == "done":
                        s.status = "done"
            return states
        if (self.path / self.STATE).exists():
            raise UserError(f"{self.path} already holds a run; pass --resume to continue it or choose another --out")
        for s in states:
            out = self.results_file(s.cell, 1)
            if s.status == "pending" and store.holds_results(str(out)):
                raise UserError(f"{out} already holds results; pass --resume to continue it or choose another --out")
        return states

    def _take(self, resume: bool) -> None:
        """Make sure the folder can be written, and lock it for this process's life (the kernel releases the
        lock when the process ends, however it ends)."""
        if self.path.exists() and not self.path.is_dir():
            raise UserError(f"--out {self.path} is a file, not a folder; choose a folder with --out")
        if resume and not self.path.exists():
            raise UserError(f"--resume: {self.path} does not exist; pass the --out of the run to continue")
        lock = self.path / self.LOCK
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise files.os_error(e.filename and Path(e.filename) or self.path, e, resume=False)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.pread(fd, 500, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise UserError(f"{self.path} is being written by {holder}; wait for it to end or choose another "
                                "--out", code=4)
            raise files.os_error(lock, e, resume=False)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()} ({' '.join(sys.argv)})".encode(), 0)
        self._lock = fd

    @contextmanager
    def running(self, cells: list[Cell], resume: bool) -> Iterator["Run"]:
        """A run of these cells in this folder (begin), its state and merged.json written as it ends, with its
        status: finished, interrupted (a signal) or still running (an error the caller reports); the lock is
        released last."""
        run = Run(self.begin(cells, resume))
        run.merged = self.publish(run.states)
        try:
            yield run
            run.status = "finished"
        except Stopped:
            run.status = "interrupted"
            raise
        finally:
            try:
                self.save(run.states, run.status)
                run.merged = self.publish(run.states, run.status)
            finally:
                self.release()

    def release(self) -> None:
        """Give up the folder's lock (the run is over; a killed process releases it by dying)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _previous(self) -> dict[str, dict]:
        path = self.path / self.STATE
        if not path.exists():
            return {}
        try:
            return {c["key"]: c for c in json.loads(path.read_text())["cells"]}
        except (ValueError, KeyError, TypeError) as e:
            raise UserError(f"{path} is damaged ({e}); move it away and rerun with --resume, or choose another --out")

    def save(self, states: list[CellState], status: str = "running") -> None:
        files.write_json(self.path / self.STATE, {"run_id": self.run_id, "status": status,
                                                  "cells": [s.entry() for s in states] + self._kept})

    def publish(self, states: list[CellState], status: str = "running") -> dict[str, Any]:
        """merged.json and summary.md as the cells stand now; returns the merged record."""
        entries = [s.entry() for s in states] + self._kept
        # A run that finished with failed cells says so here, not only in each cell: it is not a complete run.
        merged = {"schema": schema.SCHEMA, "run_id": self.run_id, "status": status,
                  "failed_cells": [e["key"] for e in entries if e["status"] == "failed"],
                  "merged_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "cells": [self._merged_cell(e) for e in entries]}
        files.write_json(self.path / self.MERGED, merged)
        files.write_text(self.path / self.SUMMARY, view.summary_markdown(merged))
        return merged

    def _merged_cell(self, cell: dict[str, Any]) -> dict[str, Any]:
        entry = {k: v for k, v in cell.items() if k not in ("key", "files")}
        entry["runs"] = []
        for name in cell["files"]:
            path = self.path / name
            if not path.exists():
                continue
            contents = store.read(str(path))
            entry["runs"].append({
                "file": name, "header": contents.header, "footer": contents.footer, "torn": contents.torn is not None,
                "problems": contents.problems(),
                # raw samples stay in the cells' files
                "cases": [{k: v for k, v in c.items() if k not in archive.RAW} for c in contents.cases]})
        return entry

    def append(self, results_file: Path, lines: bytes) -> None:
        """Append whole record lines a remote node wrote (fsynced, as the harness appends its own)."""
        try:
            with open(results_file, "ab") as f:
                f.write(lines)
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise files.os_error(results_file, e)

    # --- reading a folder back (the report) --------------------------------------------------------------------

    def merged_cells(self) -> list[dict[str, Any]]:
        """The cells of merged.json (status and reason of each); raises ValueError if it is unreadable."""
        path = self.path / self.MERGED
        if not path.exists():
            return []
        return json.loads(path.read_text())["cells"]
