"""The 2023 study beside the atlas's setups: its headline figures (runner.report.baseline, the published tables in
runner/report/data/) against ours on the functions of its sample, and per function whether it timed it.

The study published per function only the latency of those that ran on both its T4 GPU and its v3-8 TPU (Tables
5-7); no per-function verdict and nothing per function on a CPU. So its grid columns say "timed" or nothing.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from runner.atlas.model import Atlas
from runner.report import baseline
from runner.report.load import Results

# The study's per-function columns of the grid: (column, its device for the device filter, the CSV's column).
COLUMNS = (("2023 T4 GPU", "cuda", "gpu_t4_ms"), ("2023 v3-8 TPU", "tpu", "tpu_v3_ms"))


def timed(atlas: Atlas) -> dict[tuple[str, str], dict[str, float]]:
    """(framework, function) -> {column: the study's mean latency in seconds} for the functions it timed on both
    devices, matched by its label (the catalog's paper_label where the study named a function otherwise)."""
    study = baseline.read("latency-t4-v3").set_index(["framework", "function"]).to_dict("index")
    out = {}
    for (fw, fn) in atlas.rows:
        label = atlas.catalog.get((fw, fn), {}).get("paper_label")
        published = study.get((fw, label if isinstance(label, str) and label else fn))
        if published:
            out[(fw, fn)] = {column: float(published[field]) / 1e3 for column, _, field in COLUMNS}
    return out


def in_sample(r: Results) -> Results:
    """The records of the functions the study sampled (those with a usage decile): its figures count only them."""
    sampled = r.catalog.loc[r.catalog["decile"].notna(), ["framework", "function"]]
    keys = pd.MultiIndex.from_frame(sampled)
    mask = pd.MultiIndex.from_frame(r.cases[["framework", "function"]]).isin(keys)
    return dataclasses.replace(r, cases=r.cases[mask], derived={})


@dataclasses.dataclass
class Side:
    portability: pd.DataFrame  # the study's rows per framework and device, then each setup's
    top20: pd.DataFrame
    latency: dict[str, pd.DataFrame]  # per framework, function the study timed: its T4 and v3-8 latency, ours
    notes: list[str]


def side_by_side(atlas: Atlas) -> Side:
    """The study's Tables 1, 3, 4 and 8 with a row per setup of the atlas (baseline.headline on each folder's
    records of the sampled functions), and its latency table beside our GPU and TPU setups."""
    order = {(s.source, s.framework, s.target): i for i, s in enumerate(atlas.setups)}
    label = {(s.source, s.framework, s.target): s.label for s in atlas.setups}
    portability: list[pd.DataFrame] = []
    top20: list[pd.DataFrame] = []
    notes = []
    for source in atlas.sources:
        r = source.results
        if r is None or r.cases.empty:
            continue
        r = in_sample(r)
        if r.cases.empty:
            notes.append(f"{source.name}: none of its functions is in the study's sample")
            continue
        for frame, into in zip(baseline.headline(r), (portability, top20)):
            keys = [(source.name, fw, s.removeprefix(OURS)) if s.startswith(OURS) else None
                    for fw, s in zip(frame["framework"], frame["source"])]
            frame = frame.assign(folder=[k[0] if k else STUDY for k in keys],
                                 source=[label[k] if k else s for k, s in zip(keys, frame["source"])],
                                 _order=[order[k] if k else -1 for k in keys])
            into.append(frame)
    return Side(_ordered(portability, atlas), _ordered(top20, atlas), _latency(atlas), notes)


OURS = "this run: "  # how baseline.headline names a run's rows
STUDY = "the study (published)"


def _ordered(frames: list[pd.DataFrame], atlas: Atlas) -> pd.DataFrame:
    """Per framework, the study's rows once (every folder's comparison repeats them), then the setups' in the
    grid's order; the setup's folder beside it."""
    if not frames:
        return pd.DataFrame()
    both = pd.concat(frames, ignore_index=True).drop_duplicates(["framework", "folder", "source"])
    rank = {fw: i for i, fw in enumerate(atlas.frameworks())}
    both = both.assign(_fw=both["framework"].map(rank)).sort_values(["_fw", "_order"], kind="stable")
    both = both.rename(columns={"source": "setup"})
    columns = ["framework", "setup", "folder", *[c for c in both.columns
                                                 if c not in ("framework", "setup", "folder", "_fw", "_order")]]
    return both[columns].reset_index(drop=True)


def _latency(atlas: Atlas) -> dict[str, pd.DataFrame]:
    """Per framework and function the study timed on its T4 and v3-8: those figures (seconds), and ours on every
    GPU and TPU setup (the warm median, runner.view's)."""
    out = {}
    studied = timed(atlas)
    for fw in atlas.frameworks():
        accelerated = [s for s in atlas.of(fw) if s.device in ("cuda", "tpu")]
        rows = []
        for fn in atlas.functions(fw):
            if (fw, fn) in studied:
                mine = atlas.rows[(fw, fn)]
                rows.append({"function": fn, **{c: studied[(fw, fn)][c] for c, _, _ in COLUMNS},
                             **{f"{s.label} [{s.source}]": mine[s.id].warm_median_s if s.id in mine else None
                                for s in accelerated}})
        if rows:
            out[fw] = pd.DataFrame(rows)
    return out
