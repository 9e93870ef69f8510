"""The host's live view of a cell run: functions done / total, current function, failures so far."""
from __future__ import annotations

from collections import Counter

from portability_harness.protocol import CaseEnd, Event, Finished, Notice, Plan, Restart, Start
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class CellProgress:
    """One cell's bar; with `overall` = (index, total) also a bar of the matrix's cells."""

    def __init__(self, console: Console, label: str, overall: tuple[int, int] | None = None):
        self.console = console
        self.label = label
        self.overall = overall
        self.progress = Progress(TextColumn("[bold]{task.fields[label]}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[detail]}"),
                                 TimeElapsedColumn(), console=console, transient=False)
        self.task = None
        self.remaining: Counter = Counter()
        self.failures = 0
        self.current = ""

    def __enter__(self) -> "CellProgress":
        self.progress.__enter__()
        if self.overall:
            index, total = self.overall
            self.progress.add_task("", total=total, completed=index - 1, label="matrix", detail="cells")
        self.task = self.progress.add_task("", total=None, label=self.label, detail="")
        self._show("starting")
        return self

    def _show(self, current: str) -> None:
        self.current = current
        self.progress.update(self.task, detail=f"functions · {current} · [red]{self.failures} failed")

    def log(self, message: str) -> None:
        self.progress.console.print(f"[dim]{message}", highlight=False)

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event: Event) -> None:
        if isinstance(event, Plan):
            functions = {fn for _, fn in event.pending} | {fn for _, fn in event.done}
            self.remaining.update(fn for _, fn in event.pending)
            done = len(functions) - len(self.remaining)
            self.progress.update(self.task, total=len(functions), completed=done)
        elif isinstance(event, Start):
            self._show(event.function)
        elif isinstance(event, CaseEnd):
            if event.outcome == "failed":
                self.failures += 1
            self.remaining[event.function] -= 1
            if self.remaining[event.function] == 0:
                self.progress.advance(self.task)
            self._show(self.current)
        elif isinstance(event, Restart):
            self.console.print(f"[yellow]worker replaced: {event.reason}")
        elif isinstance(event, Notice):
            self.console.print(f"[yellow]{event.message}")
        elif isinstance(event, Finished):
            self._show("done")
