"""What a run's records say per function and per cell: the one definition of a function's verdict and
latency, shared by the live summary of a run (summary.md, the tables `runner bench` prints) and the report.

A function's verdict on a setup counts every repeat's cases (records.verdicts). A case's latency is the
median over repeats of its warm median; a function's latency is the median over its passed cases.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from portability_harness.records import verdicts

from runner.estimate import WITHIN, format_wall, within
from runner.matrix import QUICK_CASE_S

Record = dict[str, Any]


@dataclass
class FunctionRow:
    function: str
    verdict: str
    cases: int  # distinct cases
    failed: int  # distinct cases that failed in some repeat
    warm_median_s: Optional[float]
    backward: Optional[str] = None  # the verdict over its backward cases; None: it has none


def case_medians(cases: Iterable[Record], column: str = "warm_median_s") -> dict[str, float]:
    """Per passed case: the median over repeats of `column` (warm_median_s or cold_s)."""
    values: dict[str, list[float]] = defaultdict(list)
    for c in cases:
        value = c.get(column)
        if c["outcome"] == "passed" and value is not None and value == value:  # not None, not NaN
            values[c["case_id"]].append(value)
    return {case_id: statistics.median(v) for case_id, v in values.items()}


def function_rows(cases: Iterable[Record]) -> list[FunctionRow]:
    """One row per function of one setup's case records (any number of repeats), in order of appearance: its verdict,
    cases and latency over its forward cases, and the verdict over its backward cases apart (records.verdicts)."""
    rows = []
    for function, group in verdicts.by_function(cases).items():
        forward, backward = verdicts.by_pass(group)
        medians = list(case_medians(forward).values())
        rows.append(FunctionRow(function, _verdict(forward), len({c["case_id"] for c in forward}),
                                len({c["case_id"] for c in forward if c["outcome"] == "failed"}),
                                statistics.median(medians) if medians else None,
                                _verdict(backward) if backward else None))
    return rows


def _verdict(group: list[Record]) -> str:
    """records.verdicts' verdict; a function none of whose cases has a result yet (stopped by a signal, or cut short
    by a run's budget) has none: it is shown as such, not as skipped."""
    if group and all(c["outcome"] == "interrupted" for c in group):
        return "cut short" if any(c.get("cut_short") for c in group) else "interrupted"
    return verdicts.verdict(group)


def format_seconds(s: Optional[float]) -> str:
    if s is None or s != s:  # None or NaN
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


# --- a run's cells ----------------------------------------------------------------------------------------------

@dataclass
class CellRow:
    image: str
    profile: str
    mode: str
    backend: str
    status: str
    device_model: str
    repeats: int
    functions: dict[str, int]  # verdict -> number of functions, over every repeat's cases
    cases: dict[str, int]  # outcome -> number of case records
    reason: str
    quick: bool = False  # measured with --quick: checks that the cases run; its latencies are not results
    problems: list[str] = field(default_factory=list)  # what reading the cell's files left out
    compiler: str = "eager"
    expected_s: Optional[float] = None  # its repeats' wall expected before they ran (runner.estimate)
    wall_s: Optional[float] = None  # ... and as it was
    cut_short: dict[str, int] = field(default_factory=dict)  # function -> its cases a run's budget left unmeasured
    backward: dict[str, int] = field(default_factory=dict)  # functions with backward cases, and how they train


CELL_COLUMNS = ("cell", "backend", "status", "runs", "device", "functions", "cases", "wall (expected)", "reason")


def cell_rows(merged: dict) -> list[CellRow]:
    out = []
    for c in merged["cells"]:
        runs = [r for r in c.get("runs", []) if "cases" in r]
        cases = [case for r in runs for case in r["cases"]]
        header = next((r["header"] for r in runs if r.get("header")), None) or {}
        functions: dict[str, int] = defaultdict(int)
        backward: dict[str, int] = defaultdict(int)
        for row in function_rows(cases):
            functions[row.verdict] += 1
            if row.backward is not None:
                backward[verdicts.training(row.verdict, row.backward)] += 1
        outcomes: dict[str, int] = defaultdict(int)
        cut: dict[str, int] = defaultdict(int)
        for case in cases:
            outcomes["cut short" if case.get("cut_short") else case["outcome"]] += 1
            if case.get("cut_short"):
                cut[case["function"]] += 1
        problems = [f"{r['file']}: {p}" for r in runs for p in r.get("problems", [])]
        out.append(CellRow(c["image"], c["profile"], c.get("mode") or "steady", c.get("backend") or "-", c["status"],
                           header.get("device_model") or "-", len(runs), dict(functions), dict(outcomes),
                           c.get("reason") or "", bool(header.get("quick")), problems, c.get("compiler") or "eager",
                           c.get("expected_s"), c.get("wall_s"), dict(cut), dict(backward)))
    return out


QUICK = ("Quick run: few warm samples per case. It checks that the cases run; its latencies are not results "
         "and no latency comparison is drawn from it.")


def cell_name(r: CellRow) -> str:
    return (f"{r.image} {r.profile}" + (f" {r.mode}" if r.mode != "steady" else "")
            + (f" {r.compiler}" if r.compiler != "eager" else ""))


def backward_text(counts: dict[str, int]) -> str:
    """"backward: 2 of 3 pass, 1 runs forward, fails backward" (counts by records.verdicts.TRAINING), or ""."""
    if not counts:
        return ""
    text = f"backward: {counts.get(verdicts.TRAINS, 0)} of {sum(counts.values())} pass"
    return text + "".join(f", {counts[k]} {k}" for k in (verdicts.FAILS_BACKWARD, verdicts.FAILS_FORWARD)
                          if counts.get(k))


def cell_values(r: CellRow) -> list[str]:
    functions = ", ".join(f"{n} {v}" for v, n in sorted(r.functions.items())) or "-"
    if r.backward:
        functions += "; " + backward_text(r.backward)
    cases = ", ".join(f"{n} {o}" for o, n in sorted(r.cases.items())) or "-"
    status = r.status.replace("_", " ") + (" (quick)" if r.quick else "")
    wall = format_wall(r.wall_s) + (f" ({format_wall(r.expected_s)})" if r.expected_s is not None else "")
    return [cell_name(r), r.backend, status, str(r.repeats), r.device_model, functions, cases, wall, r.reason]


def first_of(names: Iterable[str], shown: int) -> str:
    """"a, b, c and 4 more": the first `shown` names in a sentence, and how many are left out."""
    names = list(names)
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def counted(n: int, noun: str) -> str:
    """"1 case", "3 cases": a number with its noun, for the sentences of summaries."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def cut_short(rows: Iterable[CellRow]) -> list[str]:
    """A line per cell with cases a run's budget cut short: how many, and of which functions."""
    return [f"{cell_name(r)}: {counted(sum(r.cut_short.values()), 'case')} of {counted(len(r.cut_short), 'function')} "
            f"cut short ({first_of(r.cut_short, 8)})" for r in rows if r.cut_short]


CUT_SHORT = ("Cut short by the run's time limits (its budget, `--budget-s`: `--resume` into the same "
             f"`--out` measures them; a quick pass's {QUICK_CASE_S:g} s a case: a run without `--quick` does):")


def failed_cells(merged: dict) -> str:
    """"1 failed cell of 4: jax-tpu/current", for a run's last line and its summary's title."""
    failed = merged.get("failed_cells") or []
    runnable = [c for c in merged["cells"] if c["status"] not in ("not_run", "excluded")]
    return f"{len(failed)} failed cell{'s' if len(failed) != 1 else ''} of {len(runnable)}: {', '.join(failed)}"


def summary_markdown(merged: dict) -> str:
    rows = cell_rows(merged)
    status = merged.get("status", "running")
    if merged.get("failed_cells"):
        status += f", {failed_cells(merged)}"
    lines = [f"# Run {merged['run_id']} ({status})", "", f"Merged at {merged['merged_at']}; "
             "function verdicts count every repeat's cases.", ""]
    if any(r.quick for r in rows):
        lines += [f"**{QUICK}**", ""]
    lines += ["| " + " | ".join(CELL_COLUMNS) + " |", "|" + "---|" * len(CELL_COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in cell_values(r)) + " |")
    timed = [(r.expected_s, r.wall_s) for r in rows if r.expected_s is not None and r.wall_s]
    if timed:
        close = sum(1 for e, a in timed if within(e, a))
        lines += ["", f"Wall of the cells this run ran: {format_wall(sum(a for _, a in timed))}, expected "
                      f"{format_wall(sum(e for e, _ in timed))} before they ran; {close} of {len(timed)} cells within "
                      f"{WITHIN * 100:.0f} % of the expected (building environments not included)."]
    if cut_short(rows):
        lines += ["", CUT_SHORT, *(f"- {line}" for line in cut_short(rows))]
    notes = [p for r in rows for p in r.problems]
    if notes:
        lines += ["", "Left out while reading:", *(f"- {n}" for n in notes)]
    return "\n".join(lines) + "\n"
