"""The report's tables, each computed from the case records (never typed in).

Conventions (runner.view, shared with the live summary): a function's verdict on a setup counts every
repeat's cases; a case's latency on a setup is the median over repeats of its warm median (or of its cold
time); a function's latency is the median over its passed cases. Latency pairs use only the cases that
passed on both setups, so a ratio never compares different work.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

from portability_harness.protocol import FRAMEWORKS
from portability_harness.records.verdicts import VERDICTS

from runner import view
from runner.report.load import Results

RAN = ("pass", "partial", "complete")  # the study's denominators: functions that ran somewhere on the device
FAILED = ("partial", "complete")
SIMILAR = 1.1  # a latency ratio within 1.1x either way counts as no change (the threshold)
KEYS = ["framework", "target"]


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
    """Per framework, setup and function: its verdict and warm latency (view.function_rows), computed once."""
    if "functions" not in r.derived:
        rows = [{"framework": fw, "target": t, "function": row.function, "verdict": row.verdict,
                 "warm_median_s": row.warm_median_s}
                for (fw, t), g in r.cases.groupby(KEYS, sort=False)
                for row in view.function_rows(g.to_dict("records"))]
        r.derived["functions"] = pd.DataFrame(rows, columns=[*KEYS, "function", "verdict", "warm_median_s"])
    return r.derived["functions"]


def function_verdicts(r: Results) -> pd.DataFrame:
    return functions(r)[[*KEYS, "function", "verdict"]]


def _percent(part: pd.Series, whole: pd.Series) -> pd.Series:
    return (100 * part / whole.where(whole > 0)).round(1)


def portability(r: Results) -> pd.DataFrame:
    """Tables 1 and 8: functions passing, partially and completely failing, plus missing, skipped and our own bugs."""
    v = function_verdicts(r)
    counts = pd.crosstab([v["framework"], v["target"]], v["verdict"]).reindex(columns=VERDICTS,
                                                                              fill_value=0)
    counts = counts.reset_index().merge(versions(r), on=KEYS)
    counts["functions"] = counts[list(RAN)].sum(axis=1)
    for name in RAN:
        counts[f"{name} %"] = _percent(counts[name], counts["functions"])
    columns = KEYS + ["version", "functions", *RAN, *(f"{n} %" for n in RAN), "missing", "skipped", "case_error"]
    return ordered(counts[columns], r)


def _ranked_verdicts(r: Results) -> pd.DataFrame:
    v = function_verdicts(r).merge(r.catalog, on=["framework", "function"], how="left")
    v = v[v["verdict"].isin(RAN)]
    return v.assign(failed=v["verdict"].isin(FAILED))


def top20(r: Results) -> pd.DataFrame:
    """Table 4: failure rate (partial + complete) of the 20 most used functions against all functions."""
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
    """Figure 4: failure rate per usage decile (10 = least used tenth of the API, 100 = most used)."""
    v = _ranked_verdicts(r).dropna(subset=["decile"])
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
           .agg(repeats=("repeat", "nunique"), message=("message", "first")).reset_index())
    return ordered(out, r)


def categories(r: Results) -> pd.DataFrame:
    """Figure 6: failing cases per category (each failing case counted once per category), our bugs left out."""
    f = failed_cases(r)
    if f.empty:
        return pd.DataFrame(columns=KEYS)
    table = pd.crosstab([f["framework"], f["target"]], f["category"]).reset_index()
    table.columns.name = None
    return ordered(table, r)


def case_latency(r: Results, column: str) -> pd.DataFrame:
    """Per passed case and setup: the median over repeats of `column` (warm_median_s or cold_s)."""
    passed = r.cases[(r.cases["outcome"] == "passed") & r.cases[column].notna()]
    rows = [{"framework": fw, "target": t, "function": fn, "case_id": case_id, column: value}
            for (fw, t, fn), g in passed.groupby([*KEYS, "function"], sort=False)
            for case_id, value in view.case_medians(g[["case_id", "outcome", column]].to_dict("records"),
                                                    column).items()]
    return pd.DataFrame(rows, columns=[*KEYS, "function", "case_id", column])


@dataclass
class Pair:
    framework: str
    a: str
    b: str
    table: pd.DataFrame  # function, cases, a warm, b warm, warm ratio (b / a), a cold, b cold, cold ratio


def pairs(r: Results) -> list[Pair]:
    """Tables 2, 5, 6, 7: per function, latency on each pair of setups of a framework, slowest-moving first."""
    warm, cold = case_latency(r, "warm_median_s"), case_latency(r, "cold_s")
    out = []
    for fw in [f for f in FRAMEWORKS if f in set(r.cases["framework"])]:
        for a, b in itertools.combinations(r.targets(fw), 2):
            w = _pair_frame(warm, fw, a, b, "warm_median_s", "warm")
            c = _pair_frame(cold, fw, a, b, "cold_s", "cold").drop(columns="cases")
            table = w.merge(c, on="function", how="left").sort_values("warm ratio", ascending=False)
            out.append(Pair(fw, a, b, table.reset_index(drop=True)))
    return out


def _pair_frame(lat: pd.DataFrame, fw: str, a: str, b: str, column: str, name: str) -> pd.DataFrame:
    mine = lat[lat["framework"] == fw]
    both = mine[mine["target"] == a].merge(mine[mine["target"] == b], on=["function", "case_id"], suffixes=("_a", "_b"))
    per_function = both.groupby("function", sort=False).agg(
        cases=("case_id", "size"), a=(f"{column}_a", "median"), b=(f"{column}_b", "median")).reset_index()
    per_function[f"{name} ratio"] = per_function["b"] / per_function["a"]
    return per_function.rename(columns={"a": f"{name} a (s)", "b": f"{name} b (s)"})


def faster_share(pair_list: list[Pair]) -> pd.DataFrame:
    """Figures 3 and 7: the share of functions faster on one setup than the other, by more than 1.1x."""
    rows = []
    for p in pair_list:
        ratio = p.table["warm ratio"].dropna()
        n = len(ratio)
        rows.append({"framework": p.framework, "a": p.a, "b": p.b, "functions": n,
                     "faster on a %": round(100 * (ratio > SIMILAR).mean(), 1) if n else np.nan,
                     "within 1.1x %": round(100 * ratio.between(1 / SIMILAR, SIMILAR).mean(), 1) if n else np.nan,
                     "faster on b %": round(100 * (ratio < 1 / SIMILAR).mean(), 1) if n else np.nan})
    return pd.DataFrame(rows, columns=["framework", "a", "b", "functions", "faster on a %", "within 1.1x %",
                                       "faster on b %"])


def generations(r: Results) -> pd.DataFrame:
    """Table 3: two models of one device kind side by side, when the data holds them."""
    models = r.cases.drop_duplicates([*KEYS, "device", "device_model"])[[*KEYS, "device", "device_model"]]
    several = models.groupby(["framework", "device"])["device_model"].transform("nunique") > 1
    if not several.any():
        return pd.DataFrame(columns=[*KEYS, "device_model"])
    return portability(r).merge(models[several], on=KEYS)[
        ["framework", "device", "device_model", "target", "functions", *(f"{n} %" for n in RAN)]]


def cold_warm(r: Results) -> pd.DataFrame:
    """What the study never separated: the first call (tracing, compilation, first use) against the warm median."""
    both = case_latency(r, "cold_s").merge(case_latency(r, "warm_median_s"), on=[*KEYS, "function", "case_id"])
    both["ratio"] = both["cold_s"] / both["warm_median_s"]
    rows = []
    for (fw, t), g in both.groupby(KEYS, sort=False):
        by_function = g.groupby("function")["ratio"].median()
        rows.append({"framework": fw, "target": t, "cases": len(g), "median cold (s)": g["cold_s"].median(),
                     "median warm (s)": g["warm_median_s"].median(), "median cold/warm": g["ratio"].median(),
                     "90th pct cold/warm": g["ratio"].quantile(0.9), "largest (function)": by_function.idxmax(),
                     "largest cold/warm": by_function.max()})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "cases", "median cold (s)",
                                                "median warm (s)", "median cold/warm", "90th pct cold/warm",
                                                "largest (function)", "largest cold/warm"]), r)


def spread(r: Results) -> pd.DataFrame:
    """Run-to-run spread: quartiles within a run, and how far the same case's warm median moves between repeats."""
    passed = r.cases[(r.cases["outcome"] == "passed") & r.cases["warm_median_s"].notna()]
    rows = []
    for (fw, t), g in passed.groupby(KEYS, sort=False):
        iqr = ((g["warm_q3_s"] - g["warm_q1_s"]) / g["warm_median_s"]).dropna()
        per_case = g.groupby("case_id")["warm_median_s"].agg(["min", "max", "size"])
        moved = (per_case["max"] / per_case["min"])[per_case["size"] > 1]
        rows.append({"framework": fw, "target": t, "repeats": g["file"].nunique(), "cases": len(per_case),
                     "median IQR / median %": round(100 * iqr.median(), 1) if len(iqr) else np.nan,
                     "median max/min over repeats": moved.median() if len(moved) else np.nan,
                     "90th pct max/min over repeats": moved.quantile(0.9) if len(moved) else np.nan})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "repeats", "cases", "median IQR / median %",
                                                "median max/min over repeats", "90th pct max/min over repeats"]), r)


def flaky(r: Results) -> pd.DataFrame:
    """Cases whose outcome differs between repeats of the same setup."""
    outcomes = r.cases.groupby([*KEYS, "function", "case_id"], sort=False)["outcome"].agg(
        lambda o: ", ".join(f"{k} x{v}" for k, v in o.value_counts().items()))
    return outcomes[outcomes.str.contains(",")].reset_index().rename(columns={"outcome": "outcomes"})


def fallbacks(r: Results) -> pd.DataFrame:
    """Cases where an op ran on another device than the cell's."""
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


def function_latency(r: Results) -> pd.DataFrame:
    """Per function and setup: the median over its passed cases of each case's warm median (Figure 2)."""
    f = functions(r)
    return f[f["warm_median_s"].notna()][[*KEYS, "function", "warm_median_s"]].reset_index(drop=True)


def setups(r: Results) -> pd.DataFrame:
    """What each column of the report measured: versions, device model, mode, repeats, where the records are."""
    c = r.cases
    out = c.groupby(KEYS, sort=False).agg(
        version=("framework_version", joined), device=("device", "first"), model=("device_model", joined),
        profile=("profile", "first"), mode=("mode", "first"), repeats=("file", "nunique"),
        functions=("function", "nunique"), records=("case_id", "size")).reset_index()
    return ordered(out, r)
