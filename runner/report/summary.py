"""Per-function verdicts and warm latency of one results file, as rows and as a Rich table."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from runner.errors import UserError
from runner.results import store, verdict


@dataclass
class FunctionRow:
    function: str
    verdict: str
    cases: int
    failed: int
    warm_median_s: float | None  # median over the function's cases of each case's warm median


def rows(path: Path) -> tuple[list[FunctionRow], store.Contents]:
    try:
        contents = store.read(str(path))
    except store.CorruptResults as e:
        raise UserError(str(e))
    out = []
    for function, cases in verdict.by_function(contents.cases).items():
        medians = [c["warm_median_s"] for c in cases if c.get("warm_median_s") is not None and c["outcome"] == "passed"]
        out.append(FunctionRow(function, verdict.verdict(cases), len(cases),
                               sum(c["outcome"] == "failed" for c in cases),
                               statistics.median(medians) if medians else None))
    return out, contents


_STYLE = {"pass": "green", "partial": "yellow", "complete": "red", "skipped": "dim", "missing": "magenta",
          "case_error": "bold red"}


def format_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def table(path: Path) -> Table:
    function_rows, contents = rows(path)
    header = contents.header or {}
    title = f"{header.get('framework', '?')} {header.get('framework_version', '')} on {header.get('device', '?')}"
    t = Table(title=f"{title} ({header.get('device_model', '')})", caption=str(path))
    for col in ("function", "verdict", "cases", "failed", "warm median"):
        t.add_column(col, justify="right" if col in ("cases", "failed", "warm median") else "left")
    for r in function_rows:
        t.add_row(r.function, f"[{_STYLE[r.verdict]}]{r.verdict}[/]", str(r.cases), str(r.failed),
                  format_seconds(r.warm_median_s))
    return t
