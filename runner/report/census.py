"""The report's census section: every op x dtype of a framework's own test database, per framework and setup.

Built from `Results.census` (records whose header says task "census"; load.py keeps them out of every study
table): a summary per setup, the op x dtype support map (a figure of every op, and a table of the ops with
anything other than declared-and-passed), coverage per dtype, the declared pairs that failed with their
first failure, what changed between two setups of a framework (profiles, devices), and the cross-device
latency ratios of the census's timed samples.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from portability_harness.declared.dtypes import sort_key  # noqa: E402

from runner import census  # noqa: E402
from runner.report import figures, tables  # noqa: E402
from runner.report.blocks import Section, Table, counted  # noqa: E402
from runner.report.load import DEVICE_ORDER, Results  # noqa: E402
from runner.view import format_seconds  # noqa: E402

TITLE = "Census: the frameworks' own test databases"
COLORS = {
    "declared, passed": "#2e7d32",
    "declared, partial": "#f9a825",
    "declared, failed": "#c62828",
    "declared, failed as the database expects": "#f48fb1",
    "undeclared, passed": "#1565c0",
    "undeclared, failed": "#9e9e9e",
    "unknown, passed": "#80cbc4",
    "unknown, failed": "#6d4c41",
    "no input": "#e0e0e0",
}
FAILING = ("declared, failed", "declared, partial", "declared, failed as the database expects")
ROWS_PER_PANEL = 150


def _given(value: Any) -> bool:
    """A record's value that is there (not None, NaN or empty)."""
    return value is not None and value == value and value != ""


def anchor(framework: str, target: str, what: str) -> str:
    return "census-" + figures.slug(f"{framework} {target} {what}")


def section(r: Results, figure_dir: Path) -> Section:
    frame = r.census
    if frame.empty:  # one line on how to get it, not a heading over nothing
        return Section(TITLE, summary="No census in these records: `runner census --framework torch --out FOLDER` "
                                      "runs one (PyTorch's OpInfo database; jax and tensorflow too); report that "
                                      "folder beside this one.")
    blocks: list[Any] = [
        "Every op and dtype the frameworks' own test databases know (PyTorch's OpInfo database, JAX's primitive "
        "test harnesses; for TensorFlow, which ships none, its kernel registry with generated inputs), run through "
        "the same harness as the curated cases by `runner census`: one case per op x variant x dtype, its first "
        "sample timed, the rest run once and checked (on the CPU against the database's reference where it has "
        "one, on an accelerator against the same sample on the CPU). These records are not counted in any table "
        "above: the study's sample stays the curated one. Status of a case: declared (the database lists the dtype "
        "on the device) or not, and passed (every sample that ran passed), partial (some samples failed), failed, "
        "or failed as the database itself expects (its skip, expected failure or limitation covers it); no input: "
        "no input could be built (category_source generator or db), which is never counted as the framework's "
        "failure."]
    frame = _with_status(frame)
    if frame["quick"].any():
        blocks.append("Note: measured with --quick: the timed samples' latencies are indicative only.")
    summary = _summary(frame)

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column in ("declared, failed", "declared, partial", "failed as expected") and row[column]:
            return anchor(row["framework"], row["target"], "failing")
        return None

    blocks.append(Table(summary, "Per setup: the database, its op x dtype pairs (cases) and samples, and the "
                                 "support map's counts", link=link))
    blocks.append(Table(_coverage(frame), "Coverage per dtype: declared pairs that passed, of those declared "
                                          "(partial and failed pairs count as not passed)"))
    for (fw, target), g in _setups(frame):
        label = f"{fw} on {target}"
        blocks += _support_map(g, fw, target, figure_dir)
        odd = _odd_ops(g)
        blocks.append(Table(odd, f"{label}: the ops with a pair that is not declared-and-passed ({len(odd)} of "
                                 f"{g['op_key'].nunique()} ops); ok passed, partial, FAIL, xfail failed as the database "
                                 "expects, +ok passed though undeclared, - undeclared and failed, . no input")
                      if not odd.empty else f"{label}: every op x dtype pair that ran was declared and passed.")
        failing = _failing(g)
        blocks.append(Table(failing, f"{label}: declared pairs that failed ({len(failing)}), with the first failing "
                                     "sample", anchor=anchor(fw, target, "failing"))
                      if not failing.empty else f"{label}: no declared pair failed.")
        skipped = _no_input(g)
        if not skipped.empty:
            blocks.append(Table(skipped, f"{label}: pairs without an input that ran, by reason (not the framework's "
                                         "failures)"))
    blocks += _changes(frame)
    blocks += _latency(frame, figure_dir)
    statuses = frame["status"].value_counts()
    return Section(TITLE, blocks, summary=(
        f"{counted(len(frame), 'op x dtype case')} of {frame['op'].nunique()} ops on "
        f"{counted(len(frame.drop_duplicates(['framework', 'target'])), 'setup')}"
        ": " + ", ".join(f"{n} {status}" for status, n in statuses.items()) + "."))


# --- frames -------------------------------------------------------------------------------------------------

def _with_status(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame["status"] = [census.status(row, row["device"]) for row in frame.to_dict("records")]
    frame["op_key"] = [op + (f".{v}" if v else "") for op, v in zip(frame["op"].fillna(""), frame["variant"].fillna(""))]
    frame["dtype"] = frame["dtype"].fillna("?")
    return frame[frame["status"].notna()]


def _setups(frame: pd.DataFrame):
    order = frame.drop_duplicates(["framework", "target"]).assign(
        o=lambda f: f["device"].map(DEVICE_ORDER).fillna(9)).sort_values(["framework", "o"], kind="stable")
    for fw, target in zip(order["framework"], order["target"]):
        yield (fw, target), frame[(frame["framework"] == fw) & (frame["target"] == target)]


def _summary(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (fw, target), g in _setups(frame):
        counts = g["status"].value_counts()
        failed = g[g["outcome"] == "failed"]
        by_category = failed.groupby(["category"]).size().sort_values(ascending=False)
        skipped = g[g["outcome"] == "skipped"]
        rows.append({
            "framework": fw, "target": target,
            "database": f"{g['database'].iloc[0]} ({g['framework_version'].iloc[0]})",
            "ops": g["op_key"].nunique(), "pairs": len(g),
            "declared pairs": int(sum(bool(census.declared_on(x, d)) for x, d in zip(g.to_dict("records"), g["device"]))),
            "samples run": int(g["samples_run"].fillna(0).sum()), "samples failed": int(g["samples_failed"].fillna(0).sum()),
            "declared, passed": int(counts.get("declared, passed", 0)),
            "declared, partial": int(counts.get("declared, partial", 0)),
            "declared, failed": int(counts.get("declared, failed", 0)),
            "failed as expected": int(counts.get("declared, failed as the database expects", 0)),
            "undeclared, passed": int(counts.get("undeclared, passed", 0)),
            "undeclared, failed": int(counts.get("undeclared, failed", 0)),
            "no input": int(counts.get("no input", 0)),
            "failures by category": ", ".join(f"{c} {n}" for c, n in by_category.items()) or "-",
            "no input by source": ", ".join(f"{c} {n}" for c, n in skipped["category_source"].fillna("?")
                                            .value_counts().items()) or "-",
        })
    return pd.DataFrame(rows)


def _coverage(frame: pd.DataFrame) -> pd.DataFrame:
    """dtype rows, one column per setup: passed / declared (%)."""
    columns: dict[str, dict[str, str]] = {}
    dtypes: set[str] = set()
    for (fw, target), g in _setups(frame):
        declared = g[g["status"].str.startswith("declared")]
        cells = {}
        for dtype, d in declared.groupby("dtype"):
            passed = int((d["status"] == "declared, passed").sum())
            cells[dtype] = f"{passed}/{len(d)} ({100 * passed / len(d):.1f} %)"
            dtypes.add(dtype)
        columns[f"{fw} {target}"] = cells
    ordered = sorted(dtypes, key=sort_key)
    return pd.DataFrame([{"dtype": d, **{k: v.get(d, "-") for k, v in columns.items()}} for d in ordered])


def _odd_ops(g: pd.DataFrame) -> pd.DataFrame:
    wide = g.pivot_table(index="op_key", columns="dtype", values="status", aggfunc="first")
    wide = wide[sorted(wide.columns, key=sort_key)]
    odd = wide[(wide.notna() & (wide != "declared, passed")).any(axis=1)]
    shown = odd.apply(lambda col: col.map(lambda s: census.SHORT.get(s, "") if isinstance(s, str) else ""))
    shown = shown.reset_index().rename(columns={"op_key": "op"})
    shown.columns.name = None
    return shown


def _failing(g: pd.DataFrame) -> pd.DataFrame:
    f = g[g["status"].isin(FAILING)]
    f = f.assign(_order=f["dtype"].map(sort_key)).sort_values(["op_key", "_order"], kind="stable")
    if f.empty:
        return pd.DataFrame()

    def first(row: pd.Series) -> str:
        ff = row["first_failure"] if isinstance(row["first_failure"], dict) else {}
        where = f"sample {ff.get('sample')} ({ff.get('stage')}): " if ff else ""
        return where + str(ff.get("message") or (row["message"] if _given(row["message"]) else ""))

    return pd.DataFrame({
        "op": f["op_key"], "dtype": f["dtype"], "category": f["category"].fillna("-"),
        "source": f["category_source"].fillna("-"),
        # A case that killed its worker has no sample counts (the supervisor recorded it): "-".
        "samples failed": [f"{int(a)}/{int(b)}" if _given(a) and _given(b) else "-"
                           for a, b in zip(f["samples_failed"], f["samples_run"])],
        "first failure": [first(row) for _, row in f.iterrows()],
        "why": [str(a if _given(a) else b if _given(b) else "") for a, b in zip(f["annotation"], f["db_ruling"])],
    }).reset_index(drop=True)


def _no_input(g: pd.DataFrame) -> pd.DataFrame:
    s = g[g["status"] == "no input"]
    if s.empty:
        return pd.DataFrame()
    reasons = s["message"].fillna("").map(_reason)
    out = (s.assign(reason=reasons, source=s["category_source"].fillna("?"))
           .groupby(["source", "reason"]).agg(pairs=("case_id", "size"), example=("case_id", "first"))
           .reset_index().sort_values("pairs", ascending=False))
    return out.reset_index(drop=True)


def _reason(message: str) -> str:
    """A skip message without its instance details (the op's own words after the first colon pair)."""
    text = message.replace("Skipped: ", "")
    head, _, rest = text.partition(": ")
    kind = rest.split(":")[0] if rest else ""
    return f"{head}: {kind}"[:140] if kind else head[:140]


# --- the support map ---------------------------------------------------------------------------------------

def _support_map(g: pd.DataFrame, framework: str, target: str, out: Path) -> list[Any]:
    wide = g.pivot_table(index="op_key", columns="dtype", values="status", aggfunc="first")
    wide = wide[sorted(wide.columns, key=sort_key)].sort_index()
    codes = {s: i for i, s in enumerate(census.STATUSES)}
    values = wide.apply(lambda col: col.map(lambda s: codes.get(s, np.nan) if isinstance(s, str) else np.nan)).to_numpy(float)
    n = len(wide)
    panels = max(1, math.ceil(n / ROWS_PER_PANEL))
    rows = min(n, ROWS_PER_PANEL)
    width = 1.6 + 0.16 * len(wide.columns)
    fig, axes = plt.subplots(1, panels, figsize=(panels * width + 0.4, 1.2 + rows * 0.085), squeeze=False)
    cmap = ListedColormap([COLORS[s] for s in census.STATUSES]).with_extremes(bad="white")
    for p, ax in enumerate(axes[0]):
        chunk = values[p * ROWS_PER_PANEL:(p + 1) * ROWS_PER_PANEL]
        labels = list(wide.index[p * ROWS_PER_PANEL:(p + 1) * ROWS_PER_PANEL])
        ax.imshow(np.ma.masked_invalid(chunk), cmap=cmap, vmin=-0.5, vmax=len(census.STATUSES) - 0.5,
                  aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=3.2)
        ax.set_xticks(range(len(wide.columns)))
        ax.set_xticklabels(wide.columns, rotation=90, fontsize=5)
        ax.xaxis.tick_top()
        ax.tick_params(length=0, pad=1)
    shown = [s for s in census.STATUSES if (g["status"] == s).any()]
    fig.legend(handles=[Patch(color=COLORS[s], label=f"{s} ({int((g['status'] == s).sum())})") for s in shown],
               loc="upper center", ncol=min(3, len(shown)), fontsize=7, frameon=False, bbox_to_anchor=(0.5, 0))
    name = "census-map-" + figures.slug(f"{framework} {target}")
    caption = (f"{framework} on {target}: the support map, {n} ops x {len(wide.columns)} dtypes "
               f"({len(g)} pairs); white: not in the census")
    return [figures.save(fig, out, name, caption, dpi=140)]


# --- between setups ----------------------------------------------------------------------------------------

def _pairs(frame: pd.DataFrame, same_device: Optional[bool] = None):
    for fw, f in frame.groupby("framework", sort=True):
        targets = [t for (_, t), _ in _setups(f)]
        for a, b in itertools.combinations(targets, 2):
            ga, gb = f[f["target"] == a], f[f["target"] == b]
            if same_device is not None and (ga["device"].iloc[0] == gb["device"].iloc[0]) != same_device:
                continue
            yield fw, a, b, ga, gb


def _changes(frame: pd.DataFrame) -> list[Any]:

    blocks: list[Any] = []
    for fw, a, b, ga, gb in _pairs(frame):
        left = ga.set_index(["op_key", "dtype"])["status"]
        right = gb.set_index(["op_key", "dtype"])["status"]
        both = pd.concat([left.rename("a"), right.rename("b")], axis=1)
        changed = both[both["a"].fillna("not in census") != both["b"].fillna("not in census")].fillna("not in census")
        if changed.empty:
            blocks.append(f"{fw}: every op x dtype pair has the same status on {a} and {b}.")
            continue
        counts = changed.value_counts().reset_index(name="pairs").rename(columns={"a": f"on {a}", "b": f"on {b}"})
        blocks.append(Table(counts, f"{fw}: what changed from {a} to {b} ({len(changed)} of {len(both)} op x dtype "
                                    "pairs)"))
        detail = changed.reset_index().rename(columns={"op_key": "op", "a": f"on {a}", "b": f"on {b}"})
        detail = detail[~detail[f"on {a}"].eq("not in census") & ~detail[f"on {b}"].eq("not in census")]
        if not detail.empty:
            blocks.append(Table(detail.head(300), f"{fw}: pairs in both whose status changed from {a} to {b}"
                                + (f" (first 300 of {len(detail)})" if len(detail) > 300 else "")))
    if not blocks:
        blocks.append("Each framework's census ran on one setup here: with two (another profile, or another "
                      "device), this section lists the op x dtype pairs whose status changed between them.")
    return blocks


def _latency(frame: pd.DataFrame, out: Path) -> list[Any]:

    blocks: list[Any] = []
    rows, summaries = [], []
    for fw, a, b, ga, gb in _pairs(frame, same_device=False):
        cols = ["op_key", "dtype", "timed_sample", "warm_median_s"]
        ok_a = ga[(ga["outcome"] == "passed") & ga["warm_median_s"].notna()][cols]
        ok_b = gb[(gb["outcome"] == "passed") & gb["warm_median_s"].notna()][cols]
        # Only the same sample on both devices: a ratio of different inputs says nothing.
        m = ok_a.merge(ok_b, on=["op_key", "dtype", "timed_sample"], suffixes=(" a", " b"))
        if m.empty:
            continue
        ratio = m["warm_median_s b"] / m["warm_median_s a"]
        q1, med, q3 = np.quantile(ratio, [0.25, 0.5, 0.75])
        summaries.append({"framework": fw, "a": a, "b": b, "pairs timed on both": len(m), "median ratio b/a": med,
                          "q1 ratio": q1, "q3 ratio": q3,
                          "faster on b %": round(100 * float((ratio < 1 / tables.SIMILAR).mean()), 1),
                          "slower on b %": round(100 * float((ratio > tables.SIMILAR).mean()), 1)})
        m = m.assign(ratio=ratio, framework=fw, a=a, b=b)
        rows.append(m)
    if not summaries:
        return ["Cross-device latency: no framework's census ran on two device kinds here. With a CPU and an "
                "accelerator census of one framework, this section gives the ratio of the timed samples' warm "
                "medians (accelerator / CPU) for every pair that passed on both, timed on the same sample."]
    blocks.append(Table(pd.DataFrame(summaries), "Cross-device latency of the census's timed samples: warm median "
                                                 "b / a over the op x dtype pairs that passed on both (same sample)"))
    all_rows = pd.concat(rows)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for (fw, a, b), g in all_rows.groupby(["framework", "a", "b"], sort=False):
        ax.hist(np.log10(g["ratio"]), bins=40, alpha=0.6, label=f"{fw}: {b} / {a}")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("log10 of the warm-median ratio (b / a): right of 0 is slower on b")
    ax.set_ylabel("op x dtype pairs")
    ax.legend(fontsize=7)
    blocks.append(figures.save(fig, out, "census-latency-ratios", "Distribution of the cross-device ratios of the "
                                                                   "census's timed samples"))
    for (fw, a, b), g in all_rows.groupby(["framework", "a", "b"], sort=False):
        g = g.sort_values("ratio", ascending=False)
        shown = pd.concat([g.head(15), g.tail(15)]).drop_duplicates(["op_key", "dtype"])
        blocks.append(Table(pd.DataFrame({
            "op": shown["op_key"], "dtype": shown["dtype"], "sample": shown["timed_sample"],
            "warm on a": shown["warm_median_s a"].map(format_seconds),
            "warm on b": shown["warm_median_s b"].map(format_seconds), "ratio b/a": shown["ratio"]}).reset_index(drop=True),
            f"{fw}: the 15 largest slowdowns and speedups from {a} to {b}"))
    return blocks
