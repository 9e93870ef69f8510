"""The report's figures, one per file, drawn with matplotlib from the tables (never from typed-in numbers)."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")  # files only; no display on a server or in a container
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
from PIL import Image  # noqa: E402  (matplotlib's own dependency)
from scipy.stats import gaussian_kde  # noqa: E402

from runner.report.latency_tables import Pair  # noqa: E402
from runner.view import format_seconds  # noqa: E402

COLORS = {"torch": "tab:red", "tensorflow": "tab:orange", "jax": "tab:blue"}
CATEGORY_COLORS = {"not_implemented": "tab:purple", "type": "tab:blue", "precision": "tab:green",
                   "memory": "tab:brown", "timeout": "tab:pink", "crash": "tab:red", "not_compilable": "tab:olive",
                   "other": "tab:gray"}


@dataclass
class Figure:
    path: Path
    caption: str


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def save(fig: plt.Figure, out: Path, name: str, caption: str, dpi: int = 110) -> Figure:
    """Write the figure as out/name.png and close it. The PNG is stored with a palette of 256 colours: a chart's
    few flat colours survive it, and the report, which embeds every figure, is about a third the size."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=dpi, bbox_inches="tight")  # "tight": keeps a legend placed outside the axes
    plt.close(fig)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)
    return Figure(path, caption)


def _to_ms(seconds: pd.Series) -> pd.Series:
    return seconds * 1e3


# Log axes in milliseconds label their decades as durations (1 µs, 10 ms) rather than as powers of ten of ms.
_MS_TICKS = FuncFormatter(lambda ms, _: format_seconds(ms / 1e3))


def _bar_groups(ax: plt.Axes, n: int) -> None:
    """Keep one or two groups of bars from stretching over the whole figure."""
    ax.set_xlim(-0.5 - max(0.0, (3 - n) / 2), n - 0.5 + max(0.0, (3 - n) / 2))


_LEGEND_WIDTH = 2.0  # inches a figure gains for a legend outside its axes, so the plot keeps its width


def _legend_outside(ax: plt.Axes) -> None:
    """The legend right of the plot, where it never hides a bar."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def latency_scatter(pair_list: list[Pair], out: Path) -> list[Figure]:
    """Figure 1: per function, warm latency on one setup against another, log-log, with the diagonal."""
    figures = []
    by_setups: dict[tuple[str, str], list[Pair]] = {}
    for p in pair_list:
        by_setups.setdefault((p.a, p.b), []).append(p)
    for (a, b), group in by_setups.items():
        timed = [(p, p.table.dropna(subset=["warm a", "warm b"])) for p in group]
        if not any(len(t) for _, t in timed):
            continue  # no function timed on both (every compiled case failed, say): nothing to plot
        fig, ax = plt.subplots(figsize=(6, 5.5))
        lows, highs = [], []
        for p, t in timed:
            x, y = _to_ms(t["warm a"]), _to_ms(t["warm b"])
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
        ax.xaxis.set_major_formatter(_MS_TICKS)
        ax.yaxis.set_major_formatter(_MS_TICKS)
        ax.set_xlabel(f"{a}: warm median")
        ax.set_ylabel(f"{b}: warm median")
        ax.set_title(f"Latency per function\n{b} against {a}", fontsize=11)
        ax.legend(fontsize=8)
        figures.append(save(fig, out, f"latency-scatter-{slug(a)}-vs-{slug(b)}",
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
        if axes.get("xscale") == "log":
            ax.xaxis.set_major_formatter(_MS_TICKS)
        ax.legend(fontsize=8)
        figures.append(save(fig, out, f"{name}-{slug(target)}", caption.format(target=target)))
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
                                xlabel="warm median per function", ylabel="density (per decade)",
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
    return [save(top20_chart(top20), out, "failure-top20", "Failure rate of the 20 most used functions against "
                                                              "all functions of the study's sample")]


def top20_chart(top20: pd.DataFrame) -> plt.Figure:
    """Figure 5's bars, each labelled with its rate; a setup where no top-20 function ran gets no red bar and
    says so. The axis starts at 0 (a rate is never negative) and reaches at least 10 %."""
    labels = [f"{fw}\n{t}" for fw, t in zip(top20["framework"], top20["target"])]
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(_LEGEND_WIDTH + max(6, 1.4 * len(labels)), 4.2))
    for offset, column, label, color in ((-0.2, "top-20 failure %", "top 20 functions", "tab:red"),
                                         (0.2, "all failure %", "all functions of the sample", "tab:gray")):
        values = top20[column]
        bars = ax.bar(x + offset, values.fillna(0), 0.4, label=label, color=color)
        ax.bar_label(bars, ["none ran" if np.isnan(v) else f"{v:.1f} %" for v in values], fontsize=8, padding=2)
    _bar_groups(ax, len(labels))
    ax.set_xticks(x, labels, fontsize=8)
    highest = float(top20[["top-20 failure %", "all failure %"]].fillna(0).to_numpy().max())
    ax.set_ylim(0, max(10.0, highest * 1.15))  # room above the tallest bar for its label
    ax.set_ylabel("functions failing %")
    ax.set_title("Failure rate: top 20 functions against all")
    _legend_outside(ax)
    return fig


def failure_categories(categories: pd.DataFrame, out: Path) -> list[Figure]:
    """Figure 6: failing cases per category, stacked, per framework and setup."""
    names = [c for c in categories.columns if c not in ("framework", "target")]
    if categories.empty or not names:
        return []
    labels = [f"{fw}\n{t}" for fw, t in zip(categories["framework"], categories["target"])]
    fig, ax = plt.subplots(figsize=(_LEGEND_WIDTH + max(6, 1.4 * len(labels)), 4.2))
    bottom = np.zeros(len(labels))
    for name in names:
        values = categories[name].to_numpy(dtype=float)
        ax.bar(labels, values, 0.6, bottom=bottom, label=name, color=CATEGORY_COLORS.get(name))
        bottom += values
    _bar_groups(ax, len(labels))
    ax.tick_params(axis="x", labelsize=8)
    ax.set_ylabel("failing cases")
    ax.set_title("Failure categories")
    _legend_outside(ax)
    return [save(fig, out, "failure-categories", "Failing cases per category (bugs in our own cases left out)")]


def host_speed(cases: pd.DataFrame, out: Path) -> list[Figure]:
    """The host-speed calibration timed before every case, in the order the cases ran, one line per results
    file, one panel per setup, all in one figure: a step or a slope is the host changing speed during the run.
    (A figure per setup cost the page 35-45 KB each, six of them a third of a report's size.)"""
    c = cases[cases["calibration_s"].notna()]
    setups = list(c.groupby(["framework", "target"], sort=False))
    if not setups:
        return []
    columns = 2 if len(setups) > 1 else 1
    rows = -(-len(setups) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 2.2 * rows), squeeze=False, sharey=True)
    for ax, ((fw, target), g) in zip(axes.flat, setups):
        for f, h in g.groupby("file", sort=False):
            h = h.sort_values("position")
            # a rolling median: the calibration of one case is noisy, the host's speed is what moves
            ax.plot(h["position"], h["calibration_s"].rolling(25, min_periods=1, center=True).median() * 1e6,
                    lw=1.0, label=f"repeat {int(h['repeat'].iloc[0])}")
        ax.set_title(f"{fw} on {target}", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.legend(fontsize=7, loc="upper right")
    for ax in axes.flat[len(setups):]:
        ax.set_visible(False)
    fig.supxlabel("case, in the order run", fontsize=9)
    fig.supylabel("calibration (µs, lower is faster)", fontsize=9)
    return [save(fig, out, "host-speed", "Host speed during each setup's runs: a fixed workload timed before each "
                 "case (rolling median of 25), one line per repeat", dpi=90)]
