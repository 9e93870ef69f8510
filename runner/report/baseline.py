"""A run set against the 2023 study's published figures (runner/report/data/paper2023-*.csv)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from runner.errors import UserError
from runner.report import latency_tables, tables
from runner.report.load import Results

DATA = Path(__file__).parent / "data"
BASELINES = ("paper2023",)
_FRAMEWORK = {"pytorch": "torch", "tensorflow": "tensorflow", "jax": "jax"}
_DEVICE = {"gpu_t4": "study: T4 GPU", "tpu_v3": "study: v3-8 TPU", "gpu_a100": "study: A100 GPU"}


@dataclass
class BaselineComparison:
    portability: pd.DataFrame  # per framework: the study's rows, then this run's
    top20: pd.DataFrame
    ratios: pd.DataFrame  # per function: the study's TPU/GPU latency ratio against this run's
    notes: list[str] = field(default_factory=list)


def read(name: str) -> pd.DataFrame:
    """One of the study's published tables, its frameworks named as ours are."""
    frame = pd.read_csv(DATA / f"paper2023-{name}.csv")
    frame["framework"] = frame["framework"].map(_FRAMEWORK)
    return frame


def compare(r: Results, name: str) -> BaselineComparison:
    if name not in BASELINES:
        raise UserError(f"unknown baseline {name!r}; choose one of {', '.join(BASELINES)}")
    portability, top20 = headline(r)
    ratios, notes = _ratios(r, _frameworks(r))
    return BaselineComparison(portability, top20, ratios, notes)


def _frameworks(r: Results) -> list[str]:
    return [fw for fw in tables.FRAMEWORKS if fw in set(r.cases["framework"])]


def headline(r: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The study's headline tables beside the run's setups (a `source` column tells them apart): functions
    passing, partly and completely failing (Tables 1, 3 and 8), and the top-20 failure rate (Table 4)."""
    frameworks = _frameworks(r)
    study = read("portability")
    study = study[study["framework"].isin(frameworks)].assign(source=lambda s: s["device"].map(_DEVICE))
    run = tables.portability(r).assign(source=lambda s: "this run: " + s["target"])
    columns = ["framework", "source", "functions", "pass %", "partial %", "complete %"]
    study = study.rename(columns={f"{v}_pct": f"{v} %" for v in tables.RAN})
    portability = _by_framework(pd.concat([study[columns], run[columns]], ignore_index=True), frameworks)

    top = read("top20")
    top = top[top["framework"].isin(frameworks)].assign(source=lambda s: s["device"].map(_DEVICE)).rename(
        columns={"top20_failure_pct": "top-20 failure %", "all_failure_pct": "all failure %"})
    mine = tables.top20(r).assign(source=lambda s: "this run: " + s["target"])
    columns = ["framework", "source", "top-20 failure %", "all failure %"]
    top20 = _by_framework(pd.concat([top[columns], mine[columns]], ignore_index=True), frameworks)
    return portability, top20


def _by_framework(frame: pd.DataFrame, frameworks: list[str]) -> pd.DataFrame:
    order = frame["framework"].map({fw: i for i, fw in enumerate(frameworks)})
    return frame.assign(_o=order).sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True)


def _ratios(r: Results, frameworks: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The study's v3-8 / T4 ratio per function beside this run's TPU / CUDA ratio, where both exist."""
    study = read("latency-t4-v3")
    study["study ratio"] = study["tpu_v3_ms"] / study["gpu_t4_ms"]
    labels = r.catalog.assign(label=r.catalog["paper_label"].fillna(r.catalog["function"]))
    devices = r.cases.drop_duplicates(["framework", "target"]).set_index(["framework", "target"])["device"]
    rows, notes = [], []
    pairs = {p.framework: p for p in latency_tables.pairs(r)
             if devices[(p.framework, p.a)] == "cuda" and devices[(p.framework, p.b)] == "tpu"}
    for fw in frameworks:
        mine = study[study["framework"] == fw]
        if fw not in pairs:
            notes.append(f"{fw}: this run has no CUDA and TPU setups to pair, so none of the study's {len(mine)} "
                         "GPU/TPU latency ratios has a counterpart here")
            continue
        p = pairs[fw]
        t = p.table.merge(labels[labels["framework"] == fw][["function", "label"]], on="function", how="left")
        t["label"] = t["label"].fillna(t["function"])
        both = t.merge(mine, left_on="label", right_on="function", suffixes=("", "_study"))
        for _, row in both.iterrows():
            # The study's milliseconds as seconds, so that every duration prints with its own unit (tables.SECONDS).
            rows.append({"framework": fw, "function": row["function"], "study T4": row["gpu_t4_ms"] / 1e3,
                         "study v3-8": row["tpu_v3_ms"] / 1e3, "study ratio": row["study ratio"],
                         "run GPU": row["warm a"], "run TPU": row["warm b"],
                         "run ratio": row["warm ratio"]})
        notes.append(f"{fw}: {len(both)} of the study's {len(mine)} functions with latency on both devices are in "
                     f"this run's {p.a} / {p.b} pair")
    return pd.DataFrame(rows), notes
