"""Latency tables: per case and function on each setup, across pairs of setups (the study's Tables 2, 3, 5-7 and
Figures 2, 3, 7), first call against warm, and the spread within and between runs."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from portability_harness.protocol import FRAMEWORKS

from runner import view
from runner.report.load import Results
from runner.report.tables import KEYS, RAN, SIMILAR, functions, ordered, portability, repeats


def case_latency(r: Results, column: str) -> pd.DataFrame:
    """Per passed case and setup: the median over repeats of `column` (warm_median_s or cold_s). A first call a
    cache of an earlier repeat may have served (`cold_cached`) is no cold figure: only the cold repeats count."""
    passed = r.cases[(r.cases["outcome"] == "passed") & r.cases[column].notna()]
    if column == "cold_s":
        passed = passed[passed["cold_cached"].ne(True)]  # older records: None
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
            w = pair_frame(warm, fw, a, b, "warm_median_s", "warm")
            c = pair_frame(cold, fw, a, b, "cold_s", "cold").drop(columns="cases")
            table = w.merge(c, on="function", how="left").sort_values("warm ratio", ascending=False)
            out.append(Pair(fw, a, b, table.reset_index(drop=True)))
    return out


def pair_frame(lat: pd.DataFrame, fw: str, a: str, b: str, column: str, name: str) -> pd.DataFrame:
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
        rows.append({"framework": fw, "target": t, "repeats": int(repeats(g).max()), "cases": len(per_case),
                     "median IQR / median %": round(100 * iqr.median(), 1) if len(iqr) else np.nan,
                     "median max/min over repeats": moved.median() if len(moved) else np.nan,
                     "90th pct max/min over repeats": moved.quantile(0.9) if len(moved) else np.nan})
    return ordered(pd.DataFrame(rows, columns=["framework", "target", "repeats", "cases", "median IQR / median %",
                                                "median max/min over repeats", "90th pct max/min over repeats"]), r)


def function_latency(r: Results) -> pd.DataFrame:
    """Per function and setup: the median over its passed cases of each case's warm median (Figure 2)."""
    f = functions(r)
    return f[f["warm_median_s"].notna()][[*KEYS, "function", "warm_median_s"]].reset_index(drop=True)


def beside(r: Results) -> pd.DataFrame:
    """The repeats measured while another lane of the run ran beside them (runner matrix --lanes): their latencies
    shared the host's memory bandwidth and caches with a neighbour."""
    flagged = r.cases[r.cases["beside"] != ""]
    rows = [{"framework": fw, "target": t, "repeat": repeat, "beside": b, "cases": len(g),
             "passed": int((g["outcome"] == "passed").sum())}
            for (fw, t, repeat, b), g in flagged.groupby([*KEYS, "repeat", "beside"], sort=False)]
    return pd.DataFrame(rows, columns=[*KEYS, "repeat", "beside", "cases", "passed"])


# A repeat whose cases waited this share of their time for their CPU is listed (waited)
WAITED = 0.05
WAITED_COLUMNS = [*KEYS, "repeat", "file", "cases", "waited for the CPU %", "cases waiting over a quarter"]


def waited(r: Results) -> pd.DataFrame:
    """The repeats whose cases waited for their CPU over WAITED of their time (`cpu_wait_s`: a process on the
    worker's CPU, harness cpu_wait.py), which their calibration does not show: their latencies read slower than the
    CPU is."""
    known = r.cases[r.cases["cpu_wait_s"].notna() & r.cases["duration_s"].notna()]
    rows = []
    for (fw, t, file), g in known.groupby([*KEYS, "file"], sort=False):
        took = g["duration_s"].sum()
        share = g["cpu_wait_s"].sum() / took if took > 0 else 0.0
        if share >= WAITED:
            rows.append({"framework": fw, "target": t, "repeat": int(g["repeat"].iloc[0]), "file": file.rsplit("/", 1)[-1],
                         "cases": len(g), "waited for the CPU %": round(100 * share, 1),
                         "cases waiting over a quarter": int((g["cpu_wait_s"] > g["duration_s"] / 4).sum())})
    return pd.DataFrame(rows, columns=WAITED_COLUMNS)


def unwaited_note(r: Results) -> str:
    """What the report says where no repeat waited: with how many results files carry no case's `cpu_wait_s`
    (records from before the harness kept it), which are not known either way."""
    files = int(r.cases.groupby("file")["cpu_wait_s"].apply(lambda w: w.isna().all()).sum()) if len(r.cases) else 0
    known = f" ({view.counted(files, 'results file')} from before the harness recorded the waits: not known there)"
    return f"No repeat's cases waited for their CPU over {WAITED:.0%} of their time{known if files else ''}."
