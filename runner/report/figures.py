"""The report's figures, one per file, drawn with matplotlib from the tables (never from typed-in numbers)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")  # files only; no display on a server or in a container
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import gaussian_kde  # noqa: E402

from runner.report.tables import Pair  # noqa: E402

COLORS = {"torch": "tab:red", "tensorflow": "tab:orange", "jax": "tab:blue"}
CATEGORY_COLORS = {"not_implemented": "tab:purple", "type": "tab:blue", "precision": "tab:green",
                   "memory": "tab:brown", "timeout": "tab:pink", "crash": "tab:red", "other": "tab:gray"}


@dataclass
class Figure:
    path: Path
    caption: str


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _save(fig: plt.Figure, out: Path, name: str, caption: str) -> Figure:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Figure(path, caption)


def _to_ms(seconds: pd.Series) -> pd.Series:
    return seconds * 1e3


def latency_scatter(pair_list: list[Pair], out: Path) -> list[Figure]:
    """Figure 1: per function, warm latency on one setup against another, log-log, with the diagonal."""
    figures = []
    by_setups: dict[tuple[str, str], list[Pair]] = {}
    for p in pair_list:
        by_setups.setdefault((p.a, p.b), []).append(p)
    for (a, b), group in by_setups.items():
        fig, ax = plt.subplots(figsize=(6, 5.5))
        lows, highs = [], []
        for p in group:
            t = p.table.dropna(subset=["warm a (s)", "warm b (s)"])
            x, y = _to_ms(t["warm a (s)"]), _to_ms(t["warm b (s)"])
            ax.scatter(x, y, s=18, alpha=0.75, color=COLORS.get(p.framework), label=f"{p.framework} ({len(t)})")
            lows += [x.min(), y.min()]
            highs += [x.max(), y.max()]
        if lows:
            lo, hi = np.nanmin(lows) / 2, np.nanmax(highs) * 2
            ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--", label="same latency")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"{a}: warm median (ms)")
        ax.set_ylabel(f"{b}: warm median (ms)")
        ax.set_title(f"Latency per function\n{b} against {a}", fontsize=11)
        ax.legend(fontsize=8)
        figures.append(_save(fig, out, f"latency-scatter-{slug(a)}-vs-{slug(b)}",
                             f"Warm median latency per function, {b} against {a} (points above the line are "
                             f"slower on {b})"))
    return figures


def _per_framework_lines(frame: pd.DataFrame, out: Path, name: str, caption: str,
                         draw: Callable[[plt.Axes, str, pd.DataFrame], bool], **axes: object) -> list[Figure]:
    """One figure per setup, one line per framework: `draw` plots a framework's rows (False: nothing to
    draw); `axes` are matplotlib Axes properties, strings formatted with {target}. Setups with no line get
    no figure."""
    figures = []
    for target, g in frame.groupby("target", sort=False):
        fig, ax = plt.subplots(figsize=(6.5, 4))
        drawn = [draw(ax, fw, h) for fw, h in g.groupby("framework", sort=False)]
        if not any(drawn):
            plt.close(fig)
            continue
        ax.set(**{k: v.format(target=target) if isinstance(v, str) else v for k, v in axes.items()})
        ax.legend(fontsize=8)
        figures.append(_save(fig, out, f"{name}-{slug(target)}", caption.format(target=target)))
    return figures


def latency_density(function_latency: pd.DataFrame, out: Path) -> list[Figure]:
    """Figure 2: the density of per-function warm latency, one curve per framework, one figure per setup."""
    def draw(ax: plt.Axes, fw: str, h: pd.DataFrame) -> bool:
        logs = np.log10(_to_ms(h["warm_median_s"]).to_numpy())
        if len(logs) < 2 or np.ptp(logs) == 0:  # a density needs spread
            return False
        grid = np.linspace(logs.min() - 0.5, logs.max() + 0.5, 200)
        ax.plot(10 ** grid, gaussian_kde(logs)(grid), color=COLORS.get(fw), label=f"{fw} ({len(logs)})")
        return True

    return _per_framework_lines(function_latency, out, "latency-density",
                                "Density of per-function warm latency on {target}", draw, xscale="log",
                                xlabel="warm median per function (ms)", ylabel="density (per decade)",
                                title="Latency density on {target}")


def failure_by_decile(deciles: pd.DataFrame, out: Path) -> list[Figure]:
    """Figure 4: failure rate by usage decile, one line per framework, one figure per setup."""
    def draw(ax: plt.Axes, fw: str, h: pd.DataFrame) -> bool:
        ax.plot(h["decile"], h["failure %"], marker="o", color=COLORS.get(fw), label=fw)
        return True

    return _per_framework_lines(deciles, out, "failure-by-decile",
                                "Share of functions failing per usage decile on {target}", draw,
                                xticks=range(10, 101, 10), ylim=(-2, 102),
                                xlabel="usage decile (100 = most used tenth)",
                                ylabel="functions failing (partial or complete) %",
                                title="Failure rate by usage decile on {target}")


def failure_top20(top20: pd.DataFrame, out: Path) -> list[Figure]:
    """Figure 5: failure rate of the 20 most used functions against all functions, per framework and setup."""
    if top20.empty:
        return []
    labels = [f"{fw}\n{t}" for fw, t in zip(top20["framework"], top20["target"])]
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(labels)), 4.2))
    ax.bar(x - 0.2, top20["top-20 failure %"].fillna(0), 0.4, label="top 20 functions", color="tab:red")
    ax.bar(x + 0.2, top20["all failure %"].fillna(0), 0.4, label="all functions", color="tab:gray")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("functions failing %")
    ax.set_title("Failure rate: top 20 functions against all")
    ax.legend(fontsize=8)
    return [_save(fig, out, "failure-top20", "Failure rate of the 20 most used functions against all functions")]


def failure_categories(categories: pd.DataFrame, out: Path) -> list[Figure]:
    """Figure 6: failing cases per category, stacked, per framework and setup."""
    names = [c for c in categories.columns if c not in ("framework", "target")]
    if categories.empty or not names:
        return []
    labels = [f"{fw}\n{t}" for fw, t in zip(categories["framework"], categories["target"])]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(labels)), 4.2))
    bottom = np.zeros(len(labels))
    for name in names:
        values = categories[name].to_numpy(dtype=float)
        ax.bar(labels, values, bottom=bottom, label=name, color=CATEGORY_COLORS.get(name))
        bottom += values
    ax.tick_params(axis="x", labelsize=8)
    ax.set_ylabel("failing cases")
    ax.set_title("Failure categories")
    ax.legend(fontsize=8)
    return [_save(fig, out, "failure-categories", "Failing cases per category (bugs in our own cases left out)")]
