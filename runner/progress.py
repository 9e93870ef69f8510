"""The host's live view of a run: per running cell, cases done / total (a worker interleaves functions, so
it counts cases, not functions), the current function and the failed cases so far; above them, a bar of
the matrix's cells. One Rich live display at a time: a local run shows one cell repeat at a time, a
cluster run one line per cell running on a node."""
from __future__ import annotations

import time
from typing import Callable, Optional

from portability_harness.protocol import CaseEnd, Event, Finished, Notice, Plan, Restart, Start
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from runner.estimate import format_wall
from runner.pace import Left


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("[bold]{task.fields[label]}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), console=console, transient=False)


def pace(left: Left) -> str:
    """Where the time left comes from: the expectations, or those at the pace the run's ended repeats set."""
    if round(left.pace, 2) == 1:
        return "expected"
    return f"expected, at this run's pace so far: x{left.pace:.2f}"


class CellLine:
    """One cell repeat's line in a live display: its harness events move it, and `tick` (the matrix line's time
    left) with them."""

    def __init__(self, progress: Progress, label: str, tick: Callable[[], None] = lambda: None):
        self.progress = progress
        self.task: TaskID = progress.add_task("", total=None, label=label, detail="")
        self.failures = 0
        self.current = ""
        self.tick = tick
        self._show("starting")

    def _show(self, current: str) -> None:
        self.current = current
        self.progress.update(self.task, detail=f"cases · {current} · [red]{self.failures} failed")
        self.tick()

    def log(self, message: str) -> None:
        self.progress.console.print(f"[dim]{message}", highlight=False)

    def __call__(self, event: Event) -> None:
        console = self.progress.console
        if isinstance(event, Plan):
            done = len(event.done)
            self.progress.update(self.task, total=done + len(event.pending), completed=done)
        elif isinstance(event, Start):
            self._show(event.function)
        elif isinstance(event, CaseEnd):
            if event.outcome == "failed":
                self.failures += 1
            self.progress.advance(self.task)
            self._show(self.current)
        elif isinstance(event, Restart):
            console.print(f"[yellow]worker replaced: {event.reason}", highlight=False)
        elif isinstance(event, Notice):
            console.print(f"[yellow]{event.message}", highlight=False)
        elif isinstance(event, Finished):
            self._show("done")


class CellProgress:
    """A local run: a live display for one cell repeat; with `overall` = (index, total) also the matrix bar, which
    counts down `left`, what the run is expected to take from the repeat's start at its pace so far
    (runner.pace.Left)."""

    def __init__(self, console: Console, label: str, overall: Optional[tuple[int, int]] = None,
                 left: Optional[Left] = None):
        self.progress = _progress(console)
        self.label = label
        self.overall = overall
        self.left = left
        self.matrix: Optional[TaskID] = None
        self.started = time.monotonic()

    def __enter__(self) -> CellLine:
        self.progress.__enter__()
        if self.overall:
            index, total = self.overall
            self.matrix = self.progress.add_task("", total=total, completed=index - 1, label="matrix", detail="cells")
        return CellLine(self.progress, self.label, self.tick)

    def tick(self) -> None:
        if self.matrix is not None and self.left is not None:
            # Past its expected end, a repeat is taken to be about to end: never a negative time left.
            left = max(self.left.seconds - (time.monotonic() - self.started), 0.0)
            self.progress.update(self.matrix, detail=f"cells · about {format_wall(left)} left ({pace(self.left)})")

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)


class LaneProgress:
    """A repeat in a lane beside the timing cells (runner.lanes): no live bar (one live display at a time), a line
    as it starts and one as it ends."""

    def __init__(self, console: Console, label: str, lane: int):
        self.console, self.label, self.lane = console, label, lane
        self.done = self.failed = 0
        self.started = time.monotonic()

    def __enter__(self) -> "LaneProgress":
        self.log("started")
        return self

    def __exit__(self, *exc) -> None:
        self.log(f"ended after {format_wall(time.monotonic() - self.started)}: {self.done} cases, {self.failed} failed")

    def log(self, message: str) -> None:
        self.console.print(f"[dim]lane {self.lane}, {self.label}: {message}", highlight=False)

    def __call__(self, event: Event) -> None:
        if isinstance(event, CaseEnd):
            self.done += 1
            self.failed += event.outcome == "failed"
        elif isinstance(event, (Restart, Notice)):
            self.log(getattr(event, "reason", "") or getattr(event, "message", ""))


class ClusterProgress:
    """A cluster run: the matrix bar and a line per cell repeat running on a node."""

    def __init__(self, console: Console, total: int):
        self.progress = _progress(console)
        self.total = total
        self.matrix: Optional[TaskID] = None

    def __enter__(self) -> "ClusterProgress":
        self.progress.__enter__()
        self.matrix = self.progress.add_task("", total=self.total, label="matrix", detail="cells")
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def line(self, label: str) -> CellLine:
        return CellLine(self.progress, label)

    def cell_done(self) -> None:
        assert self.matrix is not None
        self.progress.advance(self.matrix)
