"""The host's live view of a cell run: functions done / total, current function, failures so far."""
from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class CellProgress:
    def __init__(self, console: Console, label: str):
        self.console = console
        self.label = label
        self.progress = Progress(TextColumn("[bold]{task.fields[label]}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("functions · {task.fields[current]} · [red]{task.fields[failures]} failed"),
                                 TimeElapsedColumn(), console=console, transient=False)
        self.task = None
        self.remaining: Counter = Counter()
        self.failures = 0

    def __enter__(self) -> "CellProgress":
        self.progress.__enter__()
        self.task = self.progress.add_task("", total=None, label=self.label, current="starting", failures=0)
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event: dict) -> None:
        kind = event["event"]
        if kind == "plan":
            functions = {fn for _, fn in event["pending"]} | {fn for _, fn in event["done"]}
            self.remaining.update(fn for _, fn in event["pending"])
            done = len(functions) - len(self.remaining)
            self.progress.update(self.task, total=len(functions), completed=done)
        elif kind == "start":
            self.progress.update(self.task, current=event["function"])
        elif kind == "case":
            if event["outcome"] == "failed":
                self.failures += 1
            self.remaining[event["function"]] -= 1
            if self.remaining[event["function"]] == 0:
                self.progress.advance(self.task)
            self.progress.update(self.task, failures=self.failures)
        elif kind == "restart":
            self.console.print(f"[yellow]worker replaced: {event['reason']}")
        elif kind == "warning":
            self.console.print(f"[yellow]{event['message']}")
        elif kind == "finished":
            self.progress.update(self.task, current="done")
