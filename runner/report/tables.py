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
from pathlib import Path
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
    table: pd.DataFrame  # function, cases, warm a, warm b, warm ratio (b / a), cold a, cold b, cold ratio


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
    return per_function.rename(columns={"a": f"{name} a", "b": f"{name} b"})


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
        rows.append({"framework": fw, "target": t, "cases": len(g), "median cold": g["cold_s"].median(),
                     "median warm": g["warm_median_s"].median(), "median cold/warm": g["ratio"].median(),
                     "90th pct cold/warm": g["ratio"].quantile(0.9), "largest (function)": by_function.idxmax(),
                     "largest cold/warm": by_function.max()})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "cases", "median cold",
                                                "median warm", "median cold/warm", "90th pct cold/warm",
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


# --- how precise and how steady the measurements are -------------------------------------------------------------

AGREEMENT_FLOOR_S = 100e-6  # faster cases are left out of repeat agreement: timer and dispatch noise dominate
# A case was measured with the host slow when the calibration before it took this much longer than its run's
# usual (10th percentile). On a 2-core VM, tf-cpu cases so flagged in either of two repeats disagreed by 31.4%
# by the minimum, the others by 4.0% (README, "Drift"): the calibration finds the windows a host disturbed.
HOST_SLOW = 1.3


IMPRECISE = ("cap", "unreachable")  # sampling stopped before the median's interval met the target


def sampling(r: Results) -> pd.DataFrame:
    """Per setup: how many timed cases stopped because their median was precise, how many imprecise (at the
    cap, or earlier because the target was out of its reach; listed by `imprecise`), and the median interval
    half-width."""
    timed = r.cases[(r.cases["outcome"] == "passed") & r.cases["warm_stop"].isin(["precise", *IMPRECISE])]
    rows = []
    for (fw, t), g in timed.groupby(KEYS, sort=False):
        half = (np.maximum(g["warm_median_s"] - g["warm_ci_low_s"], g["warm_ci_high_s"] - g["warm_median_s"])
                / g["warm_median_s"]).dropna()
        rows.append({"framework": fw, "target": t, "timed cases": len(g),
                     "precise": int((g["warm_stop"] == "precise").sum()),
                     "imprecise": int(g["warm_stop"].isin(IMPRECISE).sum()),
                     "median interval ± %": round(100 * half.median(), 2) if len(half) else np.nan,
                     "widest interval ± %": round(100 * half.max(), 1) if len(half) else np.nan})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "timed cases", "precise", "imprecise",
                                                "median interval ± %", "widest interval ± %"]), r)


def imprecise(r: Results) -> pd.DataFrame:
    """Cases whose sampling stopped before their median was as precise as asked, and why."""
    c = r.cases[(r.cases["outcome"] == "passed") & r.cases["warm_stop"].isin(IMPRECISE)].copy()
    c["interval ± %"] = (100 * np.maximum(c["warm_median_s"] - c["warm_ci_low_s"], c["warm_ci_high_s"] - c["warm_median_s"])
                         / c["warm_median_s"]).round(1)
    return c[[*KEYS, "function", "case_id", "repeat", "warm_count", "warm_median_s", "interval ± %", "warm_stop"]].rename(
        columns={"warm_count": "samples", "warm_median_s": "warm median", "warm_stop": "stopped"}).reset_index(drop=True)


def agreement(r: Results) -> pd.DataFrame:
    """Per setup with two or more repeats: how well the repeats agree, as the median over cases (warm median
    above 100 us in both) of |log ratio| between each pair of repeats, in percent: of each case's minimum sample
    (what runs are compared by), of the minimum over the pairs where the host ran at its usual speed for both
    (HOST_SLOW; the share of pairs left out beside it), of its warm median, and of its median per unit of host
    speed (divided by the calibration measured before its case)."""
    timed = r.cases[(r.cases["outcome"] == "passed") & r.cases["warm_median_s"].notna()]
    rows = []
    for (fw, t), g in timed.groupby(KEYS, sort=False):
        repeats = sorted(g["file"].unique())
        if len(repeats) < 2:
            continue
        wide = {name: g.pivot_table(index="case_id", columns="file", values=col, aggfunc="first")
                for name, col in (("median", "warm_median_s"), ("minimum", "warm_min_s"),
                                  ("calibration", "calibration_s"))}
        fast = (wide["median"] < AGREEMENT_FLOOR_S).any(axis=1)
        # Per repeat, whether the host ran at its usual speed before each case (unknown counts as usual).
        usual = wide["calibration"] <= HOST_SLOW * wide["calibration"].quantile(0.1)
        usual |= wide["calibration"].isna()
        logs: dict[str, list[float]] = {"minimum": [], "minimum, host at usual speed": [], "median": [],
                                        "median per host speed": []}
        pairs = slow_pairs = 0
        for a, b in itertools.combinations(repeats, 2):
            med = wide["median"][[a, b]][~fast].dropna()
            logs["median"] += list(np.log(med[b] / med[a]).abs())
            cal = wide["calibration"].reindex(med.index)
            if cal[[a, b]].notna().all(axis=None):
                norm = np.log((med[b] / cal[b]) / (med[a] / cal[a]))
                logs["median per host speed"] += list(norm.abs().dropna())
            low = wide["minimum"].reindex(med.index)[[a, b]].dropna()
            low_logs = np.log(low[b] / low[a]).abs()
            logs["minimum"] += list(low_logs)
            both_usual = usual.reindex(low.index)[[a, b]].all(axis=1)
            logs["minimum, host at usual speed"] += list(low_logs[both_usual])
            pairs += len(low)
            slow_pairs += int((~both_usual).sum())
        rows.append({"framework": fw, "target": t, "repeats": len(repeats), "cases": int((~fast).sum()),
                     **{f"|log ratio| % ({k})": round(100 * float(np.median(v)), 1) if v else np.nan
                        for k, v in logs.items()},
                     "pairs with the host slow %": round(100 * slow_pairs / pairs, 1) if pairs else np.nan})
    return ordered(pd.DataFrame(rows, columns=[
        "framework", "target", "repeats", "cases", "|log ratio| % (minimum)",
        "|log ratio| % (minimum, host at usual speed)", "pairs with the host slow %", "|log ratio| % (median)",
        "|log ratio| % (median per host speed)"]), r)


def host_speed(r: Results) -> pd.DataFrame:
    """Per results file: the host-speed calibration over the run (timed before every case), its median and how
    far it moved (slowest / fastest tenth)."""
    c = r.cases[r.cases["calibration_s"].notna()]
    rows = []
    for (fw, t, f), g in c.groupby([*KEYS, "file"], sort=False):
        cal = g["calibration_s"]
        rows.append({"framework": fw, "target": t, "repeat": int(g["repeat"].iloc[0]), "cases": len(g),
                     "median calibration": float(cal.median()),
                     "p90 / p10": float(cal.quantile(0.9) / cal.quantile(0.1)), "file": Path(f).name})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "repeat", "cases", "median calibration",
                                                "p90 / p10", "file"]), r)


# --- the study's method beside ours ----------------------------------------------------------------------------

@dataclass
class Method:
    """Setups measured both ways: steady (ours) and paper (the study's: one call, no warm-up, jit off, strict
    placement), matched on framework, device kind, model and profile."""
    verdicts: pd.DataFrame  # per framework and setup: functions compared, verdicts that differ
    changed: pd.DataFrame  # the functions whose verdict differs, with both verdicts
    ratios: pd.DataFrame  # per function: paper latency (one cold call) / steady warm median
    devices: pd.DataFrame  # per framework, for two devices: ratios moved beyond 1.1x, faster device flipped


def method(r: Results) -> Method:
    c = r.cases
    base = ["framework", "device", "device_model", "profile"]
    pairs_found = []
    for key, g in c.groupby(base, sort=False):
        modes = dict(g.drop_duplicates("mode")[["mode", "target"]].values)
        if {"steady", "paper"} <= set(modes):
            pairs_found.append((dict(zip(base, key)), modes["steady"], modes["paper"]))
    v = function_verdicts(r)
    verdict_rows, changed, ratio_rows = [], [], []
    warm = case_latency(r, "warm_median_s")
    for facts, steady, paper in pairs_found:
        fw = facts["framework"]
        a = v[(v["framework"] == fw) & (v["target"] == steady)].set_index("function")["verdict"]
        b = v[(v["framework"] == fw) & (v["target"] == paper)].set_index("function")["verdict"]
        both = a.index.intersection(b.index)
        differ = [f for f in both if a[f] != b[f]]
        verdict_rows.append({"framework": fw, "steady": steady, "paper": paper, "functions": len(both),
                             "verdicts that differ": len(differ)})
        changed += [{"framework": fw, "steady": steady, "paper": paper, "function": f, "verdict steady": a[f],
                     "verdict paper": b[f]} for f in sorted(differ)]
        pf = _pair_frame(warm, fw, steady, paper, "warm_median_s", "warm")  # paper's "warm" is its one call
        for _, row in pf.iterrows():
            ratio_rows.append({"framework": fw, "steady": steady, "paper": paper, "function": row["function"],
                               "paper / steady": row["warm ratio"]})
    ratios = pd.DataFrame(ratio_rows, columns=["framework", "steady", "paper", "function", "paper / steady"])
    return Method(pd.DataFrame(verdict_rows, columns=["framework", "steady", "paper", "functions",
                                                      "verdicts that differ"]),
                  pd.DataFrame(changed, columns=["framework", "steady", "paper", "function", "verdict steady",
                                                 "verdict paper"]),
                  ratios, _device_flips(r, pairs_found, warm))


def method_ratio_summary(m: Method) -> pd.DataFrame:
    """The distribution of paper / steady latency per function, per framework and setup."""
    rows = []
    for (fw, steady, paper), g in m.ratios.groupby(["framework", "steady", "paper"], sort=False):
        x = g["paper / steady"].dropna()
        rows.append({"framework": fw, "steady": steady, "paper": paper, "functions": len(x),
                     "median paper/steady": x.median(), "10th pct paper/steady": x.quantile(0.1),
                     "90th pct paper/steady": x.quantile(0.9), "within 1.1x %": round(100 * x.between(
                         1 / SIMILAR, SIMILAR).mean(), 1) if len(x) else np.nan})
    return pd.DataFrame(rows, columns=["framework", "steady", "paper", "functions", "median paper/steady",
                                       "10th pct paper/steady", "90th pct paper/steady", "within 1.1x %"])


def _device_flips(r: Results, found: list, warm: pd.DataFrame) -> pd.DataFrame:
    """Where a framework has two devices measured both ways: how many device-to-device ratios move by more than
    1.1x between the methods, and how many functions change which device is faster."""
    rows = []
    by_fw: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
    for facts, steady, paper in found:
        by_fw.setdefault((facts["framework"], facts["profile"]), {})[facts["device"]] = (steady, paper)
    for (fw, profile), devices in by_fw.items():
        for d1, d2 in itertools.combinations(sorted(devices, key=lambda d: r.targets(fw).index(devices[d][0])), 2):
            per_method = []
            for i in (0, 1):  # steady, then paper
                pf = _pair_frame(warm, fw, devices[d1][i], devices[d2][i], "warm_median_s", "warm")
                per_method.append(pf.set_index("function")["warm ratio"])
            both = pd.concat(per_method, axis=1, keys=["steady", "paper"]).dropna()
            moved = (both["paper"] / both["steady"]).apply(lambda x: x > SIMILAR or x < 1 / SIMILAR)
            flipped = (np.sign(np.log(both["steady"])) != np.sign(np.log(both["paper"])))
            rows.append({"framework": fw, "profile": profile, "devices": f"{d2} / {d1}", "functions": len(both),
                         "ratio moved beyond 1.1x": int(moved.sum()), "faster device flipped": int(flipped.sum())})
    return pd.DataFrame(rows, columns=["framework", "profile", "devices", "functions", "ratio moved beyond 1.1x",
                                       "faster device flipped"])


# --- what the frameworks declare, beside what was measured -------------------------------------------------------

DECLARED_CELLS = ("declared, passed", "declared, failed", "not declared, passed", "not declared, failed",
                  "unknown")


def declared_cases(r: Results, where: list[Path]) -> pd.DataFrame:
    """Per case that ran (our own broken cases aside) and setup: whether its device declares its function for its
    dtype (the framework version's table, runner/declared.py), and whether it passed in every repeat."""
    from portability_harness import declared
    from portability_harness.declared.dtypes import canonical, in_name

    from runner import declared as declared_tables

    ran = r.cases[r.cases["outcome"].isin(["passed", "failed"]) & (r.cases["category"] != "case_error")]
    rows = []
    for (fw, version, device), g in ran.groupby(["framework", "framework_version", "device"], sort=False):
        table = declared_tables.table_for(fw, version, where)
        for (target, function, case_id), c in g.groupby(["target", "function", "case_id"], sort=False):
            params = c["params"].iloc[0] if isinstance(c["params"].iloc[0], dict) else {}
            dtypes = [d for d in (canonical(v) for v in params.values()) if d] or in_name(case_id)
            answers = ({declared.declared(table, function, device, d) for d in dtypes} if dtypes
                       else {declared.declared(table, function, device)}) if table else {"unknown"}
            says = ("declared" if "declared" in answers else "not declared"
                    if answers <= {"op_not_declared", "dtype_not_declared"} else "unknown")
            passed = bool((c["outcome"] == "passed").all())
            cell = "unknown" if says == "unknown" else f"{says}, {'passed' if passed else 'failed'}"
            rows.append({"framework": fw, "target": target, "device": device, "function": function,
                         "case_id": case_id, "dtypes": ", ".join(dtypes), "declared": ", ".join(sorted(answers)),
                         "cell": cell, "table": f"{fw} {version}" if table else "none"})
    return pd.DataFrame(rows, columns=[*KEYS, "device", "function", "case_id", "dtypes", "declared", "cell", "table"])


def declared_summary(cases: pd.DataFrame, r: Results) -> pd.DataFrame:
    """Per framework and setup: cases in each of the four cells (and those the table cannot place)."""
    if cases.empty:
        return pd.DataFrame(columns=[*KEYS, "table", *DECLARED_CELLS])
    counts = pd.crosstab([cases["framework"], cases["target"], cases["table"]], cases["cell"]).reindex(
        columns=list(DECLARED_CELLS), fill_value=0).reset_index()
    counts.columns.name = None
    return ordered(counts, r)
