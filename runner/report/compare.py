"""What changed between two runs: setups, per-function verdicts and per-function latency; and where one run holds a
model cell and the other a TPU cell of the same framework, the TPU forecast against the measured TPU.

A latency change counts only when it is both large (beyond 1.1x) and real: large by the ratio of the two runs'
minimum warm samples of a case (a host's slow stretches only add time, so the minimum holds still where the
median moves with them; the medians where a record lacks its minimum), and real when their raw warm samples
differ by a Mann-Whitney U test, or, where samples are few (or only the merged statistics are at hand), their
quartile ranges do not overlap. A function changes when its median case ratio is beyond
1.1x and most of its compared cases changed the same way.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from portability_harness.stats import mann_whitney_p, quartiles

from runner.report import tables, tpu_tables
from runner.report.load import SETUP_FIELDS, Results

ALPHA = 0.01
MIN_SAMPLES = 8  # below this a rank test has little power: compare quartiles instead
MATCH_KEYS = ("device_model", "profile", "mode", "compiler", "tpu_dtypes")


@dataclass
class Match:
    framework: str
    device: str
    a: str  # target label in run a
    b: str  # target label in run b

    @property
    def label(self) -> str:
        return self.a if self.a == self.b else f"{self.a} -> {self.b}"


@dataclass
class Comparison:
    setups: pd.DataFrame  # one row per matched setup: what each run measured and which facts changed
    verdicts: pd.DataFrame  # functions whose verdict differs
    latency: pd.DataFrame  # every function compared, with its ratio and change
    unmatched: list[str] = field(default_factory=list)
    packages: pd.DataFrame = field(default_factory=pd.DataFrame)  # packages whose version differs, per setup
    forecast: pd.DataFrame = field(default_factory=pd.DataFrame)  # a run's TPU forecast against the other's TPU
    agreement: list[str] = field(default_factory=list)  # per forecast set against a TPU: how often they agree

    def latency_summary(self) -> pd.DataFrame:
        if self.latency.empty:
            return pd.DataFrame(columns=["framework", "setup", "functions", "slower", "faster", "no change"])
        counts = pd.crosstab([self.latency["framework"], self.latency["setup"]],
                             self.latency["change"]).reindex(columns=["slower", "faster", "no change"], fill_value=0)
        counts.insert(0, "functions", counts.sum(axis=1))
        counts.columns.name = None
        return counts.reset_index()


def _facts(r: Results) -> dict[tuple[str, str], dict[str, str]]:
    """Per (framework, setup): the header facts of its records, read once, and the host CPU's identity."""
    return {key: {**{k: tables.joined(rows[k]) for k in (*SETUP_FIELDS, "packages_fingerprint")},
                  "cpu": tables.joined(filter(None, (_cpu(r.headers.get(f)) for f in rows["file"].unique())))}
            for key, rows in r.cases.groupby(["framework", "target"], sort=False)}


def _cpu(header: dict | None) -> str:
    """The CPU a record's host named by family and model (harness host_cpu): two CPUs of one name ("AMD EPYC" of
    families 25 and 26) timed the same calls 1.3-1.5 times apart, which must not read as a latency change."""
    cpu = (header or {}).get("host_cpu") or {}
    return f"family {cpu['family']} model {cpu['model']}" if cpu.get("family") and cpu.get("model") else ""


def matches(a: Results, b: Results, fa: dict, fb: dict) -> tuple[list[Match], list[str]]:
    """Pair each setup of run a with the setup of run b on the same framework and device kind: the one with the
    same model, profile and mode when there are several, else the only one. fa, fb: each run's _facts."""
    found, unmatched = [], []
    for fw in dict.fromkeys(a.cases["framework"]):
        for device in dict.fromkeys(a.cases.loc[a.cases["framework"] == fw, "device"]):
            ta = [t for t in a.targets(fw) if fa[(fw, t)]["device"] == device]
            tb = [t for t in b.targets(fw) if fb[(fw, t)]["device"] == device]
            if len(ta) == 1 and len(tb) == 1:
                found.append(Match(fw, device, ta[0], tb[0]))
                continue
            for t in ta:
                key = [fa[(fw, t)][k] for k in MATCH_KEYS]
                same = [u for u in tb if [fb[(fw, u)][k] for k in MATCH_KEYS] == key]
                if len(same) == 1:
                    found.append(Match(fw, device, t, same[0]))
                else:
                    unmatched.append(f"{fw} on {t}: {'no' if not tb else 'no single'} matching setup in the other run")
    return found, unmatched


def compare(a: Results, b: Results) -> Comparison:
    facts_a, facts_b = _facts(a), _facts(b)
    found, unmatched = matches(a, b, facts_a, facts_b)
    setups, verdicts, latency, packages = [], [], [], []
    va, vb = tables.functions(a), tables.functions(b)
    shown = ("framework_version", "profile", "mode", "device_model")
    for m in found:
        fa, fb = facts_a[(m.framework, m.a)], facts_b[(m.framework, m.b)]
        cpu_changed = bool(fa["cpu"] and fb["cpu"] and fa["cpu"] != fb["cpu"])  # unknown on one side: not a change
        setups.append({"framework": m.framework, "setup": m.label, **{
                           side: ", ".join(f[k] for k in shown) + (f" ({f['cpu']})" if f["cpu"] else "")
                           for side, f in (("a", fa), ("b", fb))},
                       "changed": ", ".join([*(k for k in SETUP_FIELDS if fa[k] != fb[k]), *(["cpu"] * cpu_changed),
                                            *(["packages"] if _package_changes(a, b, fa, fb) else [])]) or "nothing"})
        packages += [{"framework": m.framework, "setup": m.label, **row} for row in _package_changes(a, b, fa, fb)]
        verdicts.append(_verdict_changes(va, vb, m, a.cut_short, b.cut_short))
        latency.append(_latency_changes(a, b, m))
    forecast, agreement = forecast_against_measured(a, b)
    return Comparison(pd.DataFrame(setups), _concat(verdicts), _concat(latency), unmatched, pd.DataFrame(packages),
                      forecast, agreement)


def forecast_against_measured(a: Results, b: Results) -> tuple[pd.DataFrame, list[str]]:
    """Where one run holds a framework's model cell (the TPU forecast, tpu_tables) and the other a real TPU cell of
    the same framework (of the same profile where it has several): per function, the forecast beside the measured
    verdict, both ways round. A run holding both is set against itself in its report (The TPU column, forecast)."""
    frames, lines = [], []
    for (fr, name), (mr, other) in (((a, "a"), (b, "b")), ((b, "b"), (a, "a"))):
        measured_verdicts = tables.function_verdicts(mr)
        for fw, model in tpu_tables.model_targets(fr):
            tpu = tpu_tables.tpu_target(mr, fw, tpu_tables.profile_of(fr, model))
            if tpu is None:
                continue
            v = measured_verdicts[(measured_verdicts["framework"] == fw) & (measured_verdicts["target"] == tpu)]
            table = tpu_tables.agreement(tpu_tables.forecasts(fr, fw, model), v.set_index("function")["verdict"])
            setup = f"{name} {model} -> {other} {tpu}"
            frames.append(table.assign(framework=fw, setup=setup)[["framework", "setup", *tpu_tables.AGREEMENT]])
            versions = [tables.joined(x.cases.loc[(x.cases["framework"] == fw) & (x.cases["target"] == t),
                                                  "framework_version"]) for x, t in ((fr, model), (mr, tpu))]
            lines.append(f"{fw} ({setup}; {' against '.join(versions)}): forecast and measured "
                         f"{tpu_tables.agreement_text(table)}")
    return _concat(frames), lines


def _package_changes(a: Results, b: Results, fa: dict, fb: dict) -> list[dict[str, str]]:
    """The packages whose version differs between the environments two setups ran in (added or removed: "-"), where
    both headers carry the environment's package list; none where the fingerprints agree."""
    la, lb = a.packages.get(fa["packages_fingerprint"]), b.packages.get(fb["packages_fingerprint"])
    if la is None or lb is None or fa["packages_fingerprint"] == fb["packages_fingerprint"]:
        return []
    va, vb = (dict(p.split("==", 1) for p in listed) for listed in (la, lb))
    return [{"package": n, "a": va.get(n, "-"), "b": vb.get(n, "-")} for n in sorted(set(va) | set(vb))
            if va.get(n) != vb.get(n)]


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _verdict_changes(va: pd.DataFrame, vb: pd.DataFrame, m: Match, cut_a: Collection,
                     cut_b: Collection) -> pd.DataFrame:
    """Functions whose verdict changed, forward (the study's) or backward (training, records.verdicts): a function
    that still infers but no longer trains is a change a reader must see. Cases a time budget cut short in one run
    (`cut_a`, `cut_b`: Results.cut_short) have no verdict there: shown as "cut short", never as a change."""
    cols = ["function", "verdict", "backward"]
    left = va[(va["framework"] == m.framework) & (va["target"] == m.a)][cols]
    right = vb[(vb["framework"] == m.framework) & (vb["target"] == m.b)][cols]
    both = left.merge(right, on="function", how="outer", suffixes=(" a", " b"), indicator=True)
    for side, present in (("a", "right_only"), ("b", "left_only")):  # a function one run lacks was not run there
        both.loc[both["_merge"] == present, [f"verdict {side}", f"backward {side}"]] = "not run"
    both = both.drop(columns="_merge").fillna("-")  # backward "-": the function has no backward cases there
    for side, cut, target in (("a", cut_a, m.a), ("b", cut_b, m.b)):
        for column, kind in (("verdict", "forward"), ("backward", "backward")):
            unmeasured = both[f"{column} {side}"].isin(["-", "not run"]) & both["function"].map(
                lambda f: (m.framework, target, f, kind) in cut)
            both.loc[unmeasured, f"{column} {side}"] = "cut short"

    def differ(column: str) -> pd.Series:
        x, y = both[f"{column} a"], both[f"{column} b"]
        return (x != y) & (x != "cut short") & (y != "cut short")

    changed = both[differ("verdict") | differ("backward")]
    return changed.assign(framework=m.framework, setup=m.label)[
        ["framework", "setup", "function", "verdict a", "verdict b", "backward a", "backward b"]].sort_values("function")


def _case_samples(r: Results, fw: str, target: str) -> pd.DataFrame:
    """Per passed case: every repeat's raw warm samples pooled, and the medians over repeats of the recorded
    quartiles and minimum."""
    c = r.cases[(r.cases["framework"] == fw) & (r.cases["target"] == target) & (r.cases["outcome"] == "passed")
                & r.cases["warm_median_s"].notna()]
    if "warm_samples_s" not in c.columns:
        c = c.assign(warm_samples_s=[[] for _ in range(len(c))])
    return c.groupby(["function", "case_id"], sort=False).agg(
        samples=("warm_samples_s", lambda s: np.concatenate([np.asarray(x, float) for x in s]) if len(s) else []),
        median=("warm_median_s", "median"), q1=("warm_q1_s", "median"), q3=("warm_q3_s", "median"),
        minimum=("warm_min_s", "median")).reset_index()


def case_change(x: pd.Series, y: pd.Series) -> tuple[float, str]:
    """(ratio y / x of the minima, 'slower' | 'faster' | 'no change') for one case measured in two runs."""
    sx, sy = np.asarray(x["samples"], float), np.asarray(y["samples"], float)
    if len(sx) >= MIN_SAMPLES and len(sy) >= MIN_SAMPLES:
        ratio = float(np.median(sy) / np.median(sx))
        differ = mann_whitney_p(sx.tolist(), sy.tolist()) < ALPHA
    else:
        if len(sx) and len(sy):
            (x1, xm, x3), (y1, ym, y3) = quartiles(sorted(sx.tolist())), quartiles(sorted(sy.tolist()))
        else:
            (x1, xm, x3), (y1, ym, y3) = (x["q1"], x["median"], x["q3"]), (y["q1"], y["median"], y["q3"])
        ratio = float(ym / xm)
        differ = bool(y1 > x3 or y3 < x1)
    if pd.notna(x.get("minimum")) and pd.notna(y.get("minimum")) and x["minimum"] > 0:
        ratio = float(y["minimum"] / x["minimum"])
    if differ and ratio > tables.SIMILAR:
        return ratio, "slower"
    if differ and ratio < 1 / tables.SIMILAR:
        return ratio, "faster"
    return ratio, "no change"


def _latency_changes(a: Results, b: Results, m: Match) -> pd.DataFrame:
    both = _case_samples(a, m.framework, m.a).merge(_case_samples(b, m.framework, m.b), on=["function", "case_id"],
                                                    suffixes=("_a", "_b"))
    rows = []
    for fn, g in both.groupby("function", sort=False):
        changes = [case_change(_side(row, "_a"), _side(row, "_b")) for _, row in g.iterrows()]
        ratios = np.array([c[0] for c in changes])
        kinds = [c[1] for c in changes]
        ratio = float(np.median(ratios))
        change = "no change"
        if ratio > tables.SIMILAR and kinds.count("slower") * 2 > len(kinds):
            change = "slower"
        elif ratio < 1 / tables.SIMILAR and kinds.count("faster") * 2 > len(kinds):
            change = "faster"
        rows.append({"framework": m.framework, "setup": m.label, "function": fn, "cases": len(g),
                     "warm a": float(g["median_a"].median()), "warm b": float(g["median_b"].median()),
                     "ratio": ratio, "cases slower": kinds.count("slower"), "cases faster": kinds.count("faster"),
                     "change": change})
    return pd.DataFrame(rows)


def _side(row: pd.Series, suffix: str) -> pd.Series:
    return pd.Series({k: row[k + suffix] for k in ("samples", "median", "q1", "q3", "minimum")})
