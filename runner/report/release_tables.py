"""The tables of "Over releases": one framework measured in several of its releases (`runner sweep`), per setup
(device, compiler and mode: a release's cell on another device is another series). Verdicts per function and
release, where they changed; what each release declares per device kind; latency per function over the
releases, with its change points (changepoints.py).

A setup's label here leaves the release and the machine out (the report's targets name them), so that one
series runs through every release measured on it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
from packaging.version import InvalidVersion, Version

from runner import view
from runner.report import changepoints
from runner.report.blocks import first_of
from runner.report.load import Results
from runner.report.tables import RAN

SERIES = ["framework", "device", "compiler", "mode"]
PASSING = ("pass", "fallback")  # fallback ran every case: it passes, partly off the compiler or device
# A function that stops passing and then fails, or no longer exists: a user's code breaks with the upgrade.
FAILING = ("partial", "complete", "missing")
NOT_RUN = "not run"  # the release was measured on the setup, the function was not
ABSENT = "-"  # the setup was not measured in that release
SHOWN_NAMES = 5  # ops named per added/removed cell


def release_key(version: str) -> tuple:
    """Releases in PEP 440 order (2.11.0+cu130 before 2.13.0+cpu: the release part first); a version that is
    not one (an unknown build) after them, by name."""
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def ordered_releases(versions) -> list[str]:
    return sorted(set(versions), key=release_key)


@dataclass
class Sweep:
    framework: str
    releases: list[str]  # every release measured on a setup that has two or more, in order
    setups: dict[str, list[str]]  # setup label -> its releases, in order
    cases: pd.DataFrame  # the framework's records on those setups, with `setup` and `release` columns
    models: dict[str, str] = field(default_factory=dict)  # setup -> "0.10.2 on AMD EPYC, ..." where they differ


def sweeps(r: Results) -> tuple[list[Sweep], list[str]]:
    """The frameworks measured in two or more releases on one setup; and a line per framework that is not."""
    cases = r.cases.assign(release=r.cases["framework_version"].astype(str))
    several_modes = cases["mode"].nunique() > 1
    cases["setup"] = cases["device"] + " " + cases["compiler"] + ((" " + cases["mode"]) if several_modes else "")
    found, others = [], []
    for fw, g in cases.groupby("framework", sort=False):
        per_setup = {s: ordered_releases(h["release"]) for s, h in g.groupby("setup", sort=False)}
        kept = {s: v for s, v in per_setup.items() if len(v) > 1}
        if not kept:
            where = "; ".join(f"{', '.join(v)} on {s}" for s, v in per_setup.items())
            others.append(f"{fw}: {where}" + (" (no setup in more than one release)" if len(per_setup) > 1 else ""))
            continue
        mine = g[g["setup"].isin(list(kept))]
        models = {}
        for s, h in mine.groupby("setup", sort=False):
            by_release = h.groupby("release")["device_model"].agg(lambda m: ", ".join(sorted(set(m))))
            if by_release.nunique() > 1:
                models[s] = ", ".join(f"{v} on {by_release[v]}" for v in kept[s])
        left = {s: v for s, v in per_setup.items() if s not in kept}
        if left:
            others.append(f"{fw}: " + "; ".join(f"{', '.join(v)} on {s} (one release)" for s, v in left.items()))
        found.append(Sweep(fw, ordered_releases(mine["release"]), kept, mine, models))
    return found, others


def verdicts(sweep: Sweep) -> pd.DataFrame:
    """Per setup, release and function: the report's verdict (view.function_rows, every repeat's cases)."""
    rows = [{"setup": s, "release": v, "function": row.function, "verdict": row.verdict}
            for (s, v), g in sweep.cases.groupby(["setup", "release"], sort=False)
            for row in view.function_rows(g.to_dict("records"))]
    return pd.DataFrame(rows, columns=["setup", "release", "function", "verdict"])


def verdict_table(sweep: Sweep, v: pd.DataFrame) -> pd.DataFrame:
    """One row per setup and function: its verdict in each release, the first release it passes in, its
    regressions, and `changed` (its verdict is not the same in every release measured on the setup)."""
    wide = v.pivot_table(index=["setup", "function"], columns="release", values="verdict", aggfunc="first")
    wide = wide.reindex(columns=sweep.releases).reset_index()
    wide.columns.name = None
    for s, releases in sweep.setups.items():
        mine = wide["setup"] == s
        for release in sweep.releases:
            wide.loc[mine, release] = wide.loc[mine, release].fillna(NOT_RUN if release in releases else ABSENT)
    history = wide[sweep.releases].apply(lambda row: [(rel, x) for rel, x in row.items() if x != ABSENT], axis=1)
    wide["first passes"] = [next((rel for rel, x in h if x in PASSING), "never") for h in history]
    wide["regressions"] = [_regressions(h) for h in history]
    wide["changed"] = [len({x for _, x in h}) > 1 for h in history]
    return wide


def _regressions(history: list[tuple[str, str]]) -> str:
    """"since 0.11.2", or "0.11.2 (passes again in 0.12.0)": each release where a function that passed stops
    passing. Verdicts that say nothing about the framework (skipped, our own case errors, not run) are stepped
    over."""
    found, last = [], None
    for release, verdict in history:
        if verdict in FAILING and last in PASSING:
            found.append([release, None])
        elif verdict in PASSING and found and found[-1][1] is None:
            found[-1][1] = release
        if verdict in PASSING or verdict in FAILING:
            last = verdict
    return "; ".join(f"{a} (passes again in {b})" if b else f"since {a}" for a, b in found)


def pass_rates(sweep: Sweep, v: pd.DataFrame) -> pd.DataFrame:
    """Per setup and release: functions that ran, passed, and the pass rate (% of those that ran)."""
    ran = v[v["verdict"].isin(RAN)]
    t = ran.groupby(["setup", "release"], sort=False)["verdict"].agg(
        ran="size", passed=lambda x: int((x == "pass").sum())).reset_index()
    t["pass %"] = (100 * t["passed"] / t["ran"]).round(1)
    return t.sort_values(["setup", "release"], key=lambda c: c.map(release_key) if c.name == "release" else c,
                         kind="stable").reset_index(drop=True)


# --- declared support ------------------------------------------------------------------------------------------

def declared_tables(sweep: Sweep, where: list[Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per release: ops and op x dtype pairs declared per device kind ("no table" where none was read; "not
    known" where the table's environment could not tell); and per pair of consecutive releases with tables, the
    ops added and removed on each device kind."""
    from portability_harness.declared import DEVICE_KINDS

    from runner import declared

    tables = {v: declared.table_for(sweep.framework, v, where) for v in sweep.releases}
    kinds = [k for k in DEVICE_KINDS if any(t and k in t.get("devices", {}) for t in tables.values())]
    rows = []
    for v, t in tables.items():
        row: dict[str, object] = {"release": v}
        for k in kinds:
            known = bool(t) and t["devices"].get(k, {}).get("known", False)
            reason = "no table" if not t else "not known" if not known else None
            cover = (t or {}).get("coverage", {}).get(k, {})
            row[f"{k} ops"] = reason or cover.get("ops", 0)
            dtypes_known = (t or {}).get("dtypes_known", True)  # False: a wheel without JAX's test modules
            # torch_xla registers a lowering per op, not per dtype: ops declared with no pair listed.
            per_op = cover.get("ops", 0) and not cover.get("pairs", 0)
            row[f"{k} op x dtype"] = reason or ("not per dtype" if per_op else cover.get("pairs", 0) if dtypes_known
                                                else "not known")
        rows.append(row)
    counts = pd.DataFrame(rows, columns=["release", *(f"{k} {c}" for k in kinds for c in ("ops", "op x dtype"))])
    read = [(v, t) for v, t in tables.items() if t]
    steps = []
    for (a, ta), (b, tb) in zip(read, read[1:]):
        skipped = sweep.releases[sweep.releases.index(a) + 1:sweep.releases.index(b)]
        for k in kinds:
            if not (ta["devices"].get(k, {}).get("known") and tb["devices"].get(k, {}).get("known")):
                continue
            before, after = _declared_ops(ta, k), _declared_ops(tb, k)
            added, removed = sorted(after - before), sorted(before - after)
            steps.append({"from": a + (f" (no table for {', '.join(skipped)})" if skipped else ""), "to": b,
                          "device kind": k, "added": len(added), "added ops": first_of(added, SHOWN_NAMES) or "-",
                          "removed": len(removed), "removed ops": first_of(removed, SHOWN_NAMES) or "-"})
    return counts, pd.DataFrame(steps, columns=["from", "to", "device kind", "added", "added ops", "removed",
                                                "removed ops"])


def _declared_ops(table: dict, kind: str) -> set[str]:
    return {op for op, by_kind in table.get("ops", {}).items() if kind in by_kind}


# --- latency ------------------------------------------------------------------------------------------------

@dataclass
class Latency:
    levels: pd.DataFrame  # setup, function, cases, release -> level (seconds; NaN where not timed), change points
    points: pd.DataFrame  # one row per change point
    untimed: int  # functions timed in two or more releases with no case timed in all of them
    noise: dict[str, Optional[float]]  # setup -> the noise of one log level the penalty used (None: floor)
    shifts: pd.DataFrame  # setup, from, to, functions, median ratio: how the typical function moved
    basis: str  # "warm samples" or "per-case warm medians": what the p-values test


def latency(sweep: Sweep) -> Latency:
    """Per setup and function: its level in each release (median over the cases timed in every release it was
    timed in, of each case's median over repeats) and the change points of that series."""
    cases = sweep.cases
    timed = cases[(cases["outcome"] == "passed") & cases["warm_median_s"].notna() & ~cases["quick"].astype(bool)]
    samples = "warm_samples_s" in timed.columns
    level_rows, point_rows, shift_rows, noise, untimed = [], [], [], {}, 0
    for s, releases in sweep.setups.items():
        mine = timed[timed["setup"] == s]
        medians = mine.groupby(["function", "release", "case_id"])["warm_median_s"].median()
        series = {}
        for function, m in medians.groupby(level="function", sort=False):
            m = m.droplevel("function")
            present = [v for v in releases if v in m.index.get_level_values("release")]
            common = set.intersection(*(set(m[v].index) for v in present)) if present else set()
            if len(present) > 1 and not common:
                untimed += 1
            if common:
                series[function] = (present, sorted(common), [float(m[v][sorted(common)].median()) for v in present])
        diffs: dict[tuple[str, str], list[float]] = {}
        for present, _, levels in series.values():
            for a, b, la, lb in zip(present, present[1:], levels, levels[1:]):
                diffs.setdefault((a, b), []).append(np.log(lb / la))
        noise[s] = changepoints.pooled_noise(list(diffs.values()))
        shift_rows += [{"setup": s, "from": a, "to": b, "functions": len(d),
                        "median ratio": float(np.exp(np.median(d)))} for (a, b), d in diffs.items()]
        for function, (present, common, levels) in series.items():
            obs = mine[(mine["function"] == function) & mine["case_id"].isin(common)]
            points = changepoints.find(levels, _timings(obs, present, samples), noise[s]) if len(present) > 1 else []
            for p in points:
                point_rows.append({"setup": s, "function": function, "from": present[p.at - 1],
                                   "to": present[p.at], "before": view.format_seconds(p.before),
                                   "after": view.format_seconds(p.after), "ratio after/before": p.ratio,
                                   "p-value": p.p_value, "timings": f"{p.observations[0]} / {p.observations[1]}",
                                   "cases": len(common)})
            level_rows.append({"setup": s, "function": function, "cases": len(common),
                               **dict(zip(present, levels)),
                               "change points": "; ".join(f"{present[p.at]}: {p.ratio:.3g}x (p {p.p_value:.2g})"
                                                          for p in points)
                               or ("none" if len(present) > 1 else "timed in one release only")})
    columns = ["setup", "function", "from", "to", "before", "after", "ratio after/before", "p-value", "timings",
               "cases"]
    levels = pd.DataFrame(level_rows, columns=["setup", "function", "cases", *sweep.releases, "change points"])
    shifts = pd.DataFrame(shift_rows, columns=["setup", "from", "to", "functions", "median ratio"])
    return Latency(levels, pd.DataFrame(point_rows, columns=columns), untimed, noise, shifts,
                   "warm samples" if samples else "per-case warm medians")


def _timings(obs: pd.DataFrame, present: list[str], samples: bool) -> pd.DataFrame:
    """A function's timings for changepoints.find: its warm samples where they were loaded, else each record's
    warm median; `release` as the position in `present`."""
    position = obs["release"].map({v: i for i, v in enumerate(present)})
    if not samples:
        return pd.DataFrame({"release": position, "case": obs["case_id"], "seconds": obs["warm_median_s"]})
    t = pd.DataFrame({"release": position, "case": obs["case_id"], "seconds": obs["warm_samples_s"]})
    return t.explode("seconds").dropna(subset=["seconds"]).astype({"seconds": float})
