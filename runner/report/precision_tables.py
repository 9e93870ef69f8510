"""How precise and how steady the measurements are: the stopping rule's outcome per setup, the cases it left
imprecise, how repeats agree, and the host's speed over a run."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from runner.report.load import Results
from runner.report.tables import KEYS, ordered, repeats


AGREEMENT_FLOOR_S = 100e-6  # faster cases are left out of repeat agreement: timer and dispatch noise dominate
# A case was measured with the host slow when the calibration before it took this much longer than its run's
# usual (10th percentile). On a 2-core VM, tf-cpu cases so flagged in either of two repeats disagreed by 31.4%
# by the minimum, the others by 4.0% (docs/method.md, "Drift"): the calibration finds the windows a host disturbed.
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
        measured = int(repeats(g).max())
        if measured < 2:  # one repeat, perhaps split over files by function: nothing to agree
            continue
        files = sorted(g["file"].unique())
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
        for a, b in itertools.combinations(files, 2):
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
        rows.append({"framework": fw, "target": t, "repeats": measured, "cases": int((~fast).sum()),
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
