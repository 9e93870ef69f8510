"""What the report says, as a list of sections of text, tables and figures; render.py writes them out.

Every section is built from the records. Where the data cannot support a section (one setup only, no
repeats, no deciles), the section stays and says what is missing and how to get it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Union

import pandas as pd

from runner import view
from runner.report import figures, tables
from runner.report.load import Results

# (row, column) -> the anchor a table cell links to, or None
Link = Callable[[pd.Series, str], Optional[str]]


@dataclass
class Table:
    frame: pd.DataFrame
    caption: str = ""
    link: Optional[Link] = None
    anchor: Optional[str] = None


Block = Union[str, Table, figures.Figure]


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return figures.slug(self.title)


def case_anchor(framework: str, target: str, category: str) -> str:
    return "cases-" + figures.slug(f"{framework} {target} {category}")


def banner(r: Results) -> Optional[str]:
    """What a reader must know before any table: shown above everything."""
    if not r.quick:
        return None
    files = sorted(set(r.cases.loc[r.cases["quick"], "file"]))
    return f"{view.QUICK} Quick records: {', '.join(files)}."


def build(r: Results, figure_dir: Path) -> list[Section]:
    pair_list = tables.pairs(r)
    return [
        _sources(r),
        Section("Setups", ["Each column of this report is one setup: a framework on a device kind, with the "
                           "profile and measurement mode when the data holds more than one.",
                           Table(tables.setups(r))]),
        _portability(r),
        _top20(r, figure_dir),
        _deciles(r, figure_dir),
        _categories(r, figure_dir),
        _latency_pairs(pair_list, figure_dir),
        Section("Latency densities", ["Per-function warm medians on each setup (Figure 2 of the study)."]
                + (figures.latency_density(tables.function_latency(r), figure_dir)
                   or ["No setup has two functions with warm latency to draw."])),
        _generations(r),
        _cold_warm(r),
        _spread(r),
        _listing("Fallbacks", tables.fallbacks(r),
                 "Cases where an op ran on another device than the cell's.", "No case recorded a fallback."),
        _listing("Recompiling steady state", tables.recompiling(r),
                 "Cases whose warm samples still compiled: their warm median includes compilation.",
                 "No case compiled during its warm samples (or the framework does not report compilations)."),
        _listing("Functions missing from a framework version", tables.missing(r),
                 "The sampled name does not resolve in that version (outcome missing_api).",
                 "Every sampled function exists in every version measured."),
        _listing("Bugs in our own cases", tables.failed_cases(r, include_case_errors=True),
                 "Failures in the curated cases themselves (category case_error): left out of every count above; "
                 "fix the case.", "None: every failure is the framework's."),
    ]


def _sources(r: Results) -> Section:
    blocks: list[Block] = ["Read from: " + ", ".join(str(s) for s in r.sources) + "."]
    if r.cells:
        cells = pd.DataFrame(r.cells)
        keep = [c for c in ("image", "profile", "status", "backend", "reason") if c in cells.columns]
        blocks.append(Table(cells[keep].fillna(""), "Cells the matrix planned, and why any did not run"))
    blocks += [f"Note: {n}" for n in r.notes]
    return Section("Sources", blocks)


def _portability(r: Results) -> Section:
    return Section("Portability", [
        "Per function, over every case and repeat on the setup: pass (every case that ran passed), partial, "
        "complete (every case failed). Percentages are of the functions that ran (pass + partial + complete), "
        "as in Tables 1 and 8 of the study. Missing: the name does not exist in that version. Skipped: no case "
        "applied to the device. case_error: only our own broken cases ran (listed at the end).",
        Table(tables.portability(r))])


def _top20(r: Results, out: Path) -> Section:
    t = tables.top20(r)
    blocks: list[Block] = ["Failure rate (partial + complete) of the 20 most used functions of each framework "
                           "against all sampled functions (Table 4 and Figure 5 of the study).", Table(t)]
    if t["top-20 functions"].sum() == 0:
        blocks.append("No top-20 function ran, or the records carry no usage facts: the top-20 rate is empty.")
    return Section("Most used functions", blocks + figures.failure_top20(t, out))


def _deciles(r: Results, out: Path) -> Section:
    d = tables.deciles(r)
    if d.empty:
        return Section("Failure by usage decile", ["No usage deciles in these records (schema 1 without a "
                                                   "curated/ folder at hand): run the report from the checkout."])
    wide = d.pivot_table(index=["framework", "target"], columns="decile", values="failure %").reset_index()
    wide.columns = [c if c in ("framework", "target") else f"{c} %" for c in wide.columns]
    wide = tables.ordered(wide, r)
    return Section("Failure by usage decile", [
        "Share of functions failing (partial or complete) in each usage decile: 10 is the least used tenth of "
        "the API, 100 the most used (Figure 4 of the study).", Table(wide, "failure % per decile"),
        *figures.failure_by_decile(d, out)])


def _categories(r: Results, out: Path) -> Section:
    cats = tables.categories(r)
    if cats.empty:
        return Section("Failure categories", ["No case failed (bugs in our own cases aside)."])

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column in ("framework", "target") or not row[column]:
            return None
        return case_anchor(row["framework"], row["target"], column)

    blocks: list[Block] = [
        "Failing cases per category, each case once per category it failed with (Figure 6 of the study). "
        "Click a count for the cases behind it.", Table(cats, link=link), *figures.failure_categories(cats, out)]
    failed = tables.failed_cases(r)
    for (fw, target, category), g in failed.groupby(["framework", "target", "category"], sort=False):
        blocks.append(Table(g[["function", "case_id", "repeats", "message"]],
                            f"{fw} on {target}: {category} ({len(g)} cases)", anchor=case_anchor(fw, target, category)))
    return Section("Failure categories", blocks)


def _latency_pairs(pair_list: list[tables.Pair], out: Path) -> Section:
    if not pair_list:
        return Section("Latency across setups", [
            "Each framework was measured on one setup only, so there is no pair of setups to compare. Run the "
            "same framework on two devices (or two profiles, or both measurement modes) and report both folders."])
    blocks: list[Block] = [
        "Warm latency is the median of many synced calls after warm-up; cold is the first call alone, with "
        "tracing, compilation and first-use set-up. A function's latency is the median over the cases that "
        "passed on both setups; the ratio is b / a, so above 1 means slower on b.",
        Table(tables.faster_share(pair_list), "Share of functions faster on one setup than the other by more "
              "than 1.1x (Figures 3 and 7 of the study)"),
        *figures.latency_scatter(pair_list, out)]
    for p in pair_list:
        blocks.append(Table(p.table, f"{p.framework}: a = {p.a}, b = {p.b} (Tables 2, 5, 6 and 7 of the study), "
                                     "largest slowdown first"))
    return Section("Latency across setups", blocks)


def _generations(r: Results) -> Section:
    g = tables.generations(r)
    if g.empty:
        return Section("Device generations", ["The data holds one model of each device kind, so there are no "
                                              "generations to set side by side (Table 3 of the study)."])
    return Section("Device generations", ["Two or more models of one device kind (Table 3 of the study).", Table(g)])


def _cold_warm(r: Results) -> Section:
    return Section("Cold and warm", [
        "The first call against the warm median, per case: how much of a naive single timing is compilation "
        "and first-use set-up, which the study's figures included.", Table(tables.cold_warm(r))])


def _spread(r: Results) -> Section:
    s = tables.spread(r)
    blocks: list[Block] = ["Within a run: the interquartile range of each case's warm samples relative to its "
                           "median. Between repeats: how far the same case's warm median moved (max / min).",
                           Table(s)]
    if (s["repeats"] < 2).all():
        blocks.append("One repeat per setup: run with --repeats 2 or more to see the spread between runs.")
    flaky = tables.flaky(r)
    blocks.append(Table(flaky, "Cases whose outcome changed between repeats") if not flaky.empty
                  else "No case changed outcome between repeats.")
    return Section("Run-to-run spread", blocks)


def _listing(title: str, frame: pd.DataFrame, about: str, when_empty: str) -> Section:
    return Section(title, [about, Table(frame) if not frame.empty else when_empty])
