"""The report's verdict tables (portability, usage, failures, setups), each computed from the case records
(never typed in). Latency, precision, the method comparison and declared support have modules of their own
(latency_tables, precision_tables, method_tables, declared_vs_measured); they share this module's conventions.

Conventions (runner.view, shared with the live summary): a function's verdict on a setup counts every
repeat's cases; a case's latency on a setup is the median over repeats of its warm median (or of its cold
time); a function's latency is the median over its passed cases. Latency pairs use only the cases that
passed on both setups, so a ratio never compares different work.
"""
from __future__ import annotations

import json
from typing import Iterable

import numpy as np
import pandas as pd

from portability_harness.protocol import FRAMEWORKS
from portability_harness.records.verdicts import VERDICTS, training

from runner import view
from runner.report.load import Results

# The study's denominators: functions that ran somewhere on the device (fallback: ran, but partly off the compiler
# or the device; counted apart from pass, never as a failure).
RAN = ("pass", "fallback", "partial", "complete")
FAILED = ("partial", "complete")
SIMILAR = 1.1  # a latency ratio within 1.1x either way counts as no change (the threshold)
KEYS = ["framework", "target"]
# Columns that hold seconds. Their cells print their own unit (29.1 ms, 11 µs), so the names carry none;
# render.cell_text formats a column by this set, so every table that shows a duration names it from here.
SECONDS = frozenset({"warm a", "warm b", "cold a", "cold b", "median warm", "median cold",
                     "study T4", "study v3-8", "run GPU", "run TPU", "warm median", "median calibration"})
# Where a function stands against the study's sample: in it (its marker gives a usage decile), one of the
# user's own (a marker with a name only), or unknown (records of schema 1 read without a curated/ folder).
STUDY, OWN, UNKNOWN = "study", "own", "unknown"


def ordered(frame: pd.DataFrame, r: Results) -> pd.DataFrame:
    """Rows in framework order, then setup order, whatever the grouping left."""
    rank = {(fw, t): (FRAMEWORKS.index(fw) if fw in FRAMEWORKS else 9, i)
            for fw in frame["framework"].unique() for i, t in enumerate(r.targets(fw))}
    keys = frame.apply(lambda row: rank.get((row["framework"], row["target"]), (9, 9)), axis=1)
    return frame.assign(_rank=keys).sort_values("_rank", kind="stable").drop(columns="_rank").reset_index(drop=True)


def joined(values: Iterable[object]) -> str:
    """The distinct values of a column within a group, as one cell: "2.11.0, 2.13.0"."""
    return ", ".join(sorted(set(map(str, values))))


def versions(r: Results) -> pd.DataFrame:
    return (r.cases.groupby(KEYS)["framework_version"].agg(joined).reset_index()
            .rename(columns={"framework_version": "version"}))


def functions(r: Results) -> pd.DataFrame:
    """Per framework, setup and function: its verdict and warm latency over its forward cases, its verdict over its
    backward cases (None without) and how it trains (records.verdicts.training) (view.function_rows), computed once."""
    if "functions" not in r.derived:
        rows = [{"framework": fw, "target": t, "function": row.function, "verdict": row.verdict,
                 "warm_median_s": row.warm_median_s, "backward": row.backward,
                 "training": training(row.verdict, row.backward)}
                for (fw, t), g in r.cases.groupby(KEYS, sort=False)
                for row in view.function_rows(g.to_dict("records"))]
        r.derived["functions"] = pd.DataFrame(rows, columns=[*KEYS, "function", "verdict", "warm_median_s", "backward",
                                                             "training"])
    return r.derived["functions"]


def function_verdicts(r: Results) -> pd.DataFrame:
    return functions(r)[[*KEYS, "function", "verdict"]]


def _percent(part: pd.Series, whole: pd.Series) -> pd.Series:
    return (100 * part / whole.where(whole > 0)).round(1)


def portability(r: Results) -> pd.DataFrame:
    """Tables 1 and 8: functions passing, partially and completely failing, plus missing, skipped, not applicable (no
    case's input can exist on the device) and our own bugs, none of them counted as run."""
    v = function_verdicts(r)
    counts = pd.crosstab([v["framework"], v["target"]], v["verdict"]).reindex(columns=VERDICTS,
                                                                              fill_value=0)
    counts = counts.reset_index().merge(versions(r), on=KEYS)
    counts["functions"] = counts[list(RAN)].sum(axis=1)
    for name in RAN:
        counts[f"{name} %"] = _percent(counts[name], counts["functions"])
    # Every other verdict, each counted apart (records.verdicts): none of them ran, none failed.
    columns = KEYS + ["version", "functions", *RAN, *(f"{n} %" for n in RAN), *(v for v in VERDICTS if v not in RAN)]
    return ordered(counts[columns], r)


def _ran_with_usage(r: Results) -> pd.DataFrame:
    """The verdicts of functions that ran, with their usage facts and where they stand (`sample`)."""
    catalog = r.catalog.assign(sample=np.where(r.catalog["decile"].notna(), STUDY, OWN))
    v = function_verdicts(r).merge(catalog, on=["framework", "function"], how="left")
    v = v[v["verdict"].isin(RAN)]
    return v.assign(failed=v["verdict"].isin(FAILED), sample=v["sample"].fillna(UNKNOWN))


def _ranked_verdicts(r: Results) -> pd.DataFrame:
    """The verdicts the study's views count: functions of its sample that ran."""
    v = _ran_with_usage(r)
    return v[v["sample"] == STUDY]


def outside_sample(r: Results) -> pd.DataFrame:
    """Functions that ran but are not in the study's sample (own or unknown): left out of its views."""
    v = _ran_with_usage(r)
    v = v[v["sample"] != STUDY]
    return v.drop_duplicates(["framework", "function"])[["framework", "function", "sample"]].reset_index(drop=True)


def top20(r: Results) -> pd.DataFrame:
    """Table 4: failure rate (partial + complete) of the 20 most used functions against all functions of the
    study's sample (a user's own functions have no usage facts and are left out)."""
    v = _ranked_verdicts(r)
    rows = []
    for (fw, t), g in v.groupby(KEYS, sort=False):
        top = g[g["top20"].fillna(False).astype(bool)]
        rows.append({"framework": fw, "target": t, "top-20 functions": len(top),
                     "top-20 failure %": round(100 * top["failed"].mean(), 1) if len(top) else np.nan,
                     "all functions": len(g), "all failure %": round(100 * g["failed"].mean(), 1)})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "top-20 functions", "top-20 failure %",
                                                "all functions", "all failure %"]), r)


def deciles(r: Results) -> pd.DataFrame:
    """Figure 4: failure rate per usage decile (10 = least used tenth of the API, 100 = most used), over the
    study's sample."""
    v = _ranked_verdicts(r)
    out = (v.groupby([*KEYS, "decile"], sort=False)["failed"].agg(["size", "sum"]).reset_index()
           .rename(columns={"size": "functions", "sum": "failed"}))
    out["decile"] = out["decile"].astype(int)
    out["failure %"] = _percent(out["failed"], out["functions"])
    return ordered(out.sort_values("decile", kind="stable"), r)


def failed_cases(r: Results, include_case_errors: bool = False) -> pd.DataFrame:
    """Every failing case once per category it failed with, with the repeats it failed in and its message."""
    f = r.cases[r.cases["outcome"] == "failed"].copy()
    f["category"] = f["category"].fillna("other")
    errors = f["category"] == "case_error"
    f = f[errors] if include_case_errors else f[~errors]
    out = (f.groupby([*KEYS, "category", "function", "case_id"], sort=False)
           .agg(**{"pass": ("pass", "first")}, repeats=("repeat", "nunique"), message=("message", "first"),
                numerics=("numerics", "first")).reset_index())
    return ordered(out, r)


def categories(r: Results) -> pd.DataFrame:
    """Figure 6: failing cases per category (each failing case counted once per category), our bugs left out."""
    f = failed_cases(r)
    if f.empty:
        return pd.DataFrame(columns=KEYS)
    table = pd.crosstab([f["framework"], f["target"]], f["category"]).reset_index()
    table.columns.name = None
    return ordered(table, r)


def flaky(r: Results) -> pd.DataFrame:
    """Cases whose outcome differs between repeats of the same setup."""
    outcomes = r.cases.groupby([*KEYS, "function", "case_id"], sort=False)["outcome"].agg(
        lambda o: ", ".join(f"{k} x{v}" for k, v in o.value_counts().items()))
    return outcomes[outcomes.str.contains(",")].reset_index().rename(columns={"outcome": "outcomes"})


def fallbacks(r: Results) -> pd.DataFrame:
    """Cases where an op ran on another device than the cell's, or off the compiler."""
    f = r.cases[r.cases["fallback"].notna()]
    out = f[[*KEYS, "function", "case_id", "outcome"]].copy()
    out["fallback"] = [json.dumps(x, sort_keys=True) for x in f["fallback"]]
    return out.drop_duplicates([*KEYS, "case_id", "fallback"]).reset_index(drop=True)


def recompiling(r: Results) -> pd.DataFrame:
    """Cases whose warm samples still compiled (an XLA steady state that is not steady)."""
    rec = pd.to_numeric(r.cases["recompiles"], errors="coerce")
    f = r.cases[rec > 0]
    return (f.groupby([*KEYS, "function", "case_id"], sort=False)["recompiles"].max().reset_index())


def missing(r: Results) -> pd.DataFrame:
    """Functions missing from a framework version: where each is missing, and where it exists."""
    v = function_verdicts(r).merge(versions(r), on=KEYS)
    v["setup"] = v["target"] + " (" + v["framework"] + " " + v["version"] + ")"
    rows = []
    for (fw, fn), g in v.groupby(["framework", "function"], sort=False):
        gone = g[g["verdict"] == "missing"]
        if len(gone):
            rows.append({"framework": fw, "function": fn, "missing in": ", ".join(gone["setup"]),
                         "present in": ", ".join(g[g["verdict"] != "missing"]["setup"]) or "-"})
    return pd.DataFrame(rows, columns=["framework", "function", "missing in", "present in"])


def repeats(cases: pd.DataFrame) -> pd.Series:
    """Per setup, how many times a case was measured: files that hold the same case, not files (a run split by
    function over two workers is one repeat in two files)."""
    return cases.groupby([*KEYS, "case_id"], sort=False)["file"].nunique().groupby(level=KEYS, sort=False).max()


def setups(r: Results) -> pd.DataFrame:
    """What each column of the report measured: versions, device model, mode, repeats, where the records are."""
    c = r.cases
    out = c.groupby(KEYS, sort=False).agg(
        version=("framework_version", joined), device=("device", "first"), model=("device_model", joined),
        profile=("profile", "first"), mode=("mode", "first"),
        functions=("function", "nunique"), records=("case_id", "size"))
    out.insert(out.columns.get_loc("functions"), "repeats", repeats(c))
    return ordered(out.reset_index(), r)
