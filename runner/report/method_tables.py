"""The study's method beside ours: the same setups measured steady and paper, their verdicts and latencies."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from runner.report.latency_tables import case_latency, pair_frame
from runner.report.load import Results
from runner.report.tables import SIMILAR, function_verdicts


@dataclass
class Method:
    """Setups measured both ways: steady (ours) and paper (the study's: one call, no warm-up, strict
    placement), matched on framework, device kind, model and profile."""
    verdicts: pd.DataFrame  # per framework and setup: functions compared, verdicts that differ
    changed: pd.DataFrame  # the functions whose verdict differs, with both verdicts
    ratios: pd.DataFrame  # per function: paper latency (one cold call) / steady warm median
    devices: pd.DataFrame  # per framework, for two devices: ratios moved beyond 1.1x, faster device flipped


def method(r: Results) -> Method:
    c = r.cases
    base = ["framework", "device", "device_model", "profile", "compiler"]
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
        pf = pair_frame(warm, fw, steady, paper, "warm_median_s", "warm")  # paper's "warm" is its one call
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
                pf = pair_frame(warm, fw, devices[d1][i], devices[d2][i], "warm_median_s", "warm")
                per_method.append(pf.set_index("function")["warm ratio"])
            both = pd.concat(per_method, axis=1, keys=["steady", "paper"]).dropna()
            moved = (both["paper"] / both["steady"]).apply(lambda x: x > SIMILAR or x < 1 / SIMILAR)
            flipped = (np.sign(np.log(both["steady"])) != np.sign(np.log(both["paper"])))
            rows.append({"framework": fw, "profile": profile, "devices": f"{d2} / {d1}", "functions": len(both),
                         "ratio moved beyond 1.1x": int(moved.sum()), "faster device flipped": int(flipped.sum())})
    return pd.DataFrame(rows, columns=["framework", "profile", "devices", "functions", "ratio moved beyond 1.1x",
                                       "faster device flipped"])
