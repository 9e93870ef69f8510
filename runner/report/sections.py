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
from runner.report import census, figures, tables
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
    if r.cases.empty:  # census records only: the study's sections have nothing to show
        return [_sources(r), census.section(r, figure_dir)]
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
        _declared(r),
        _latency_pairs(pair_list, figure_dir),
        Section("Latency densities", ["Per-function warm medians on each setup (Figure 2 of the study)."]
                + (figures.latency_density(tables.function_latency(r), figure_dir)
                   or ["No setup has two functions with warm latency to draw."])),
        _generations(r),
        _cold_warm(r),
        _method(r),
        _measurement(r, figure_dir),
        _spread(r),
        _listing("Fallbacks", tables.fallbacks(r),
                 "Cases where an op ran on another device than the cell's.", "No case recorded a fallback."),
        _listing("Recompiling steady state", tables.recompiling(r),
                 "Cases whose warm samples still compiled: their warm median includes compilation.",
                 "No case compiled during its warm samples (or the framework does not report compilations)."),
        _listing("Functions missing from a framework version", tables.missing(r),
                 "The function's name does not resolve in that version (outcome missing_api).",
                 "Every function measured exists in every version measured."),
        _our_bugs(r),
        census.section(r, figure_dir),
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
                           "against all functions of the study's sample (Table 4 and Figure 5 of the study).",
                           _sample_scope(r)]
    if t.empty:
        return Section("Most used functions", blocks + [_no_sample_ran(r) + "."])
    blocks.append(Table(t))
    if t["top-20 functions"].sum() == 0:
        blocks.append("No top-20 function ran: the top-20 rate is empty.")
    if (t["all failure %"].fillna(0) > 0).any():
        blocks += figures.failure_top20(t, out)
    else:  # a chart of zero-height bars says nothing a sentence cannot
        blocks.append("No function of the study's sample failed on any setup, so there is no failure rate to chart.")
    return Section("Most used functions", blocks)


def _deciles(r: Results, out: Path) -> Section:
    blocks: list[Block] = ["Share of functions failing (partial or complete) in each usage decile of the study: "
                           "decile 10 is the least used tenth of the API, decile 100 the most used (Figure 4 of "
                           "the study).", _sample_scope(r)]
    d = tables.deciles(r)
    if d.empty:
        return Section("Failure by usage decile", blocks + [_no_sample_ran(r) + ": there is no decile to show."])
    blocks.append(Table(_decile_table(d, r), "Functions failing in each decile: % (failing / ran)"))
    # A setup where nothing failed gets a sentence, not a flat line at zero.
    failing = d.groupby(tables.KEYS)["failed"].transform("sum") > 0
    blocks += figures.failure_by_decile(d[failing], out)
    calm = tables.ordered(d[~failing].drop_duplicates(tables.KEYS), r)
    if len(calm):
        blocks.append("No function of the study's sample failed in any decile on "
                      + ", ".join(f"{fw} {t}" for fw, t in zip(calm["framework"], calm["target"]))
                      + ", so there is no failure rate to chart there.")
    return Section("Failure by usage decile", blocks)


def _decile_table(d: pd.DataFrame, r: Results) -> pd.DataFrame:
    """One row per setup, one column per decile, headed as a decile (not as a percentage): "25.0 % (1/4)"."""
    cells = d.assign(text=[f"{p:.1f} % ({k}/{n})" for p, k, n in zip(d["failure %"], d["failed"], d["functions"])])
    wide = cells.pivot(index=tables.KEYS, columns="decile", values="text")
    names = {c: f"decile {c}" + {10: " (least used)", 100: " (most used)"}.get(c, "") for c in wide.columns}
    wide = wide[sorted(wide.columns)].rename(columns=names).reset_index()
    wide.columns.name = None
    return tables.ordered(wide, r)


def _sample_scope(r: Results) -> str:
    """What the study's views (top 20, deciles) leave out: functions outside its sample, named."""
    outside = tables.outside_sample(r)
    own = outside[outside["sample"] == tables.OWN]
    unknown = outside[outside["sample"] == tables.UNKNOWN]
    text = "This view covers the study's sample only (the functions whose marker gives a usage decile)"
    if outside.empty:
        return text + "; every function of these records is in it."
    parts = []
    if len(own):
        parts.append(f"{_count(len(own), 'function')} of these records {'is' if len(own) == 1 else 'are'} outside "
                     f"it and counted in Portability only: {_names(own['function'])}")
    if len(unknown):
        parts.append(f"{_count(len(unknown), 'function')} {'has' if len(unknown) == 1 else 'have'} no usage facts "
                     f"({_names(unknown['function'])}): records of schema 1 carry none; run the report from the "
                     "checkout, whose curated/ folder gives them")
    return text + ". " + "; ".join(parts) + "."


def _no_sample_ran(r: Results) -> str:
    if (tables.outside_sample(r)["sample"] == tables.UNKNOWN).any():  # they may be of the sample: we cannot tell
        return "No function of these records is known to be in the study's sample"
    return "No function of the study's sample ran in these records"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _names(names: pd.Series, shown: int = 6) -> str:
    names = sorted(names)
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _categories(r: Results, out: Path) -> Section:
    cats = tables.categories(r)
    if cats.empty:
        ours = len(tables.failed_cases(r, include_case_errors=True))
        return Section("Failure categories", [
            f"No case failed in the framework; {_count(ours, 'case')} of our own failed (see Bugs in our own cases)."
            if ours else "No case failed."])

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column in ("framework", "target") or not row[column]:
            return None
        return case_anchor(row["framework"], row["target"], column)

    blocks: list[Block] = [
        "Failing cases per category, each case once per category it failed with (Figure 6 of the study). "
        "Click a count for the cases behind it.", Table(cats, link=link), *figures.failure_categories(cats, out)]
    shown = set(zip(cats["framework"], cats["target"]))
    setups = tables.setups(r)
    calm = [f"{fw} {t}" for fw, t in zip(setups["framework"], setups["target"]) if (fw, t) not in shown]
    if calm:
        blocks.append(f"No case failed in the framework on {', '.join(calm)}.")
    failed = tables.failed_cases(r)
    for (fw, target, category), g in failed.groupby(["framework", "target", "category"], sort=False):
        blocks.append(Table(g[["function", "case_id", "repeats", "message"]],
                            f"{fw} on {target}: {category} ({_count(len(g), 'case')})",
                            anchor=case_anchor(fw, target, category)))
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


def declared_anchor(framework: str, target: str, cell: str) -> str:
    return "declared-" + figures.slug(f"{framework} {target} {cell}")


def _declared(r: Results) -> Section:
    from runner import declared

    where = [p for s in r.sources for p in (s / declared.FOLDER, s.parent / declared.FOLDER)] + [declared.SHIPPED]
    cases = tables.declared_cases(r, where)
    summary = tables.declared_summary(cases, r)
    blocks: list[Block] = [
        "What each framework version declares its device supports (its own registry or test database, read by "
        "`runner declared`; the tables say what \"declared\" means per framework) set beside what was measured, "
        "per case: declared and passed; declared but failed (a framework bug worth reporting upstream); not "
        "declared but passed (a registry that undersells, or a silent fallback); not declared and failed "
        "(expected). Unknown: the table does not know the function (or its dtype, or the device). Click a count "
        "for its cases."]
    if summary.empty:
        return Section("Declared against measured", blocks + ["No case ran (or no table of these versions)."])

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column not in tables.DECLARED_CELLS or not row[column]:
            return None
        return declared_anchor(row["framework"], row["target"], column)

    blocks.append(Table(summary, link=link))
    absent = [kind for kind in ("cuda", "tpu") if kind not in set(r.cases["device"])]
    if absent:
        blocks.append(f"These records hold no {' and no '.join(absent)} cells: those columns fill in when the "
                      "cells run on machines with the devices (the tables already hold their declarations).")
    for (fw, target, cell), g in cases.groupby(["framework", "target", "cell"], sort=False):
        if cell == "declared, passed":
            continue  # the expected case; its count says enough
        blocks.append(Table(g[["function", "case_id", "dtypes", "declared"]],
                            f"{fw} on {target}: {cell} ({len(g)} case{'s' if len(g) > 1 else ''})",
                            anchor=declared_anchor(fw, target, cell)))
    return Section("Declared against measured", blocks)


def _method(r: Results) -> Section:
    m = tables.method(r)
    if m.verdicts.empty:
        return Section("Method: the study's against ours", [
            "No setup of these records was measured both ways. The study timed one call with no warm-up, JAX's jit "
            "off and TensorFlow's soft placement off; set mode = [\"steady\", \"paper\"] in matrix.toml (or run "
            "`runner bench --mode paper` beside a steady run) to see how much that changes."])
    blocks: list[Block] = [
        "The same cells measured both ways: steady (warm-up, samples until the median is precise, jit on, soft "
        "placement as shipped) and paper (the 2023 study's: one call, no warm-up, JAX's jit off, TensorFlow's "
        "soft placement off).",
        Table(m.verdicts, "Verdicts per framework: functions measured both ways, and how many changed"),
        Table(m.changed, "Functions whose verdict depends on the method") if not m.changed.empty
        else "No function's verdict depends on the method.",
        Table(tables.method_ratio_summary(m), "Paper latency (one cold call) / steady warm median, per function: "
              "how far a single cold call is from the steady state")]
    if not m.devices.empty:
        blocks.append(Table(m.devices, "Two devices: device-to-device ratios that move by more than 1.1x between "
                                       "the methods, and functions whose faster device flips"))
    else:
        blocks.append("One device per framework here: with two (a CPU and a GPU cell, both ways), this section "
                      "also says how many device-to-device comparisons the method changes.")
    return Section("Method: the study's against ours", blocks)


def _measurement(r: Results, out: Path) -> Section:
    s = tables.sampling(r)
    blocks: list[Block] = [
        "Steady sampling stops when the median's 95% confidence interval (order statistics) is within the target "
        "(matrix.toml's precision), at the cap (1 s of samples), or earlier when the interval, narrowing as 1/√n, could not "
        "reach the target before the cap (unreachable). A case stopped at the cap or out of reach is imprecise: "
        "its interval is listed.",
        Table(s) if not s.empty else "No case here was timed by the precision rule (quick, paper or older records)."]
    capped = tables.imprecise(r)
    if not capped.empty:
        blocks.append(Table(capped, f"Imprecise cases: stopped at the cap or out of reach ({len(capped)})"))
    a = tables.agreement(r)
    blocks.append(Table(a, "Repeat agreement: median |log ratio| of a case's latency between repeats, cases above "
                           "100 µs (lower is better; 5% means repeats typically differ by 5%), by its minimum sample "
                           "(what runs are compared by: a host's interference only adds time), by its minimum where the "
                           f"host ran at its usual speed before the case in both repeats (calibration within "
                           f"{tables.HOST_SLOW}x of its run's 10th percentile; the share of pairs left out beside "
                           "it), by its median, and by its median per unit of host speed")
                  if not a.empty else "One repeat per setup: run with --repeats 2 or more to see how repeats agree.")
    h = tables.host_speed(r)
    if not h.empty:
        blocks += ["Host speed: a fixed pure-Python workload timed before every case. Where it moves, the host "
                   "changed speed under the measurement (another tenant, a frequency change); the agreement "
                   "column per host speed divides each median by it.",
                   Table(h), *figures.host_speed(r.cases, out)]
    return Section("Precision and stability", blocks)


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


def _our_bugs(r: Results) -> Section:
    about = ("Failures in the curated cases themselves (category case_error): left out of every count above; "
             "fix the case.")
    ours = tables.failed_cases(r, include_case_errors=True)
    if not ours.empty:
        return Section("Bugs in our own cases", [about, Table(ours)])
    failing = r.cases[r.cases["outcome"] == "failed"].drop_duplicates([*tables.KEYS, "case_id"])
    if failing.empty:
        return Section("Bugs in our own cases", [about, "No case failed at all, so none of ours either."])
    which = "the one failing case" if len(failing) == 1 else f"all {len(failing)} failing cases"
    return Section("Bugs in our own cases", [about, f"None of ours: {which} failed in the framework, not in our "
                                                    "case code."])


def _listing(title: str, frame: pd.DataFrame, about: str, when_empty: str) -> Section:
    return Section(title, [about, Table(frame) if not frame.empty else when_empty])
