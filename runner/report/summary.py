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
    if s is None or s != s:  # None or NaN
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


# --- a matrix run: one row per cell -------------------------------------------------------------------------

@dataclass
class CellRow:
    image: str
    profile: str
    backend: str
    status: str
    device_model: str
    repeats: int
    functions: dict[str, int]  # verdict -> number of functions, over every repeat's cases
    cases: dict[str, int]  # outcome -> number of case records
    reason: str


def cell_rows(merged: dict) -> list[CellRow]:
    out = []
    for c in merged["cells"]:
        runs = [r for r in c.get("runs", []) if "cases" in r]
        cases = [case for r in runs for case in r["cases"]]
        header = next((r["header"] for r in runs if r.get("header")), None) or {}
        functions: dict[str, int] = {}
        for group in verdict.by_function(cases).values():
            v = verdict.verdict(group)
            functions[v] = functions.get(v, 0) + 1
        outcomes: dict[str, int] = {}
        for case in cases:
            outcomes[case["outcome"]] = outcomes.get(case["outcome"], 0) + 1
        out.append(CellRow(c["image"], c["profile"], c.get("backend") or "-", c["status"],
                           header.get("device_model") or "-", len(runs), functions, outcomes, c.get("reason") or ""))
    return out


_CELL_STYLE = {"done": "green", "failed": "red", "not_run": "dim", "excluded": "dim", "running": "yellow",
               "pending": "yellow"}
_CELL_COLUMNS = ("cell", "backend", "status", "runs", "device", "functions", "cases", "reason")


def _cell_values(r: CellRow) -> list[str]:
    functions = ", ".join(f"{n} {v}" for v, n in sorted(r.functions.items())) or "-"
    cases = ", ".join(f"{n} {o}" for o, n in sorted(r.cases.items())) or "-"
    return [f"{r.image} {r.profile}", r.backend, r.status.replace("_", " "), str(r.repeats), r.device_model,
            functions, cases, r.reason]


def matrix_table(merged: dict) -> Table:
    t = Table(title=f"matrix run {merged['run_id']}", caption="runs: result files; verdicts count every run's cases")
    for col in _CELL_COLUMNS:
        t.add_column(col, overflow="fold", ratio=3 if col == "reason" else 1)
    for r in cell_rows(merged):
        values = _cell_values(r)
        values[2] = f"[{_CELL_STYLE.get(r.status, 'white')}]{values[2]}[/]"
        t.add_row(*values)
    return t


def matrix_markdown(merged: dict) -> str:
    lines = [f"# Matrix run {merged['run_id']}", "", f"Merged at {merged['merged_at']}; "
             "function verdicts count every repeat's cases.", "",
             "| " + " | ".join(_CELL_COLUMNS) + " |", "|" + "---|" * len(_CELL_COLUMNS)]
    for r in cell_rows(merged):
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in _cell_values(r)) + " |")
    return "\n".join(lines) + "\n"
