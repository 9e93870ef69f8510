"""The report's section "Over releases": one framework measured in several of its releases (`runner sweep`),
what changed from release to release: verdicts, declared support, latency, and the pass rate as a figure."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from runner.report import changepoints, figures, release_tables
from runner.report.blocks import Block, Section, Table, counted, first_of
from runner.report.load import Results
from runner.view import format_seconds

TITLE = "Over releases"
SWEEP = "runner sweep --framework jax --releases 0.10.2,0.11.2"
SIGNIFICANT = 0.05  # the p-value under which the summary counts a change point as confident


def section(r: Results, out: Path) -> Section:
    from runner import declared

    found, others = release_tables.sweeps(r)
    if not found:
        return Section(TITLE, [f"Measured: {'; '.join(others)}."] if others else [], summary=(
            f"No framework here was measured in two or more releases on the same setup: `{SWEEP}` measures one "
            "framework over several of its releases (each a version profile of its own); report its folder."))
    blocks: list[Block] = [
        "One framework measured in several of its releases, each setup (device, compiler, mode) a series of its "
        "own, releases in version order. Verdicts are the report's (Portability): pass, fallback, partial, "
        "complete (every case failed), missing (the name does not exist in that release), skipped, case_error; "
        f"\"{release_tables.NOT_RUN}\": the release ran on the setup without the function; "
        f"\"{release_tables.ABSENT}\": the setup was not measured in that release. A regression: the function "
        "passed in an earlier release and fails (partial, complete) or is missing in a later one."]
    if others:
        blocks.append("Not over releases (one release per setup): " + "; ".join(others) + ".")
    summaries = []
    for sweep in found:
        text, framework_blocks = _framework(sweep, out, declared.report_folders(r))
        summaries.append(text)
        blocks += framework_blocks
    return Section(TITLE, blocks, summary="; ".join(summaries) + ".")


def _framework(sweep: release_tables.Sweep, out: Path, where: list[Path]) -> tuple[str, list[Block]]:
    fw = sweep.framework
    v = release_tables.verdicts(sweep)
    table = release_tables.verdict_table(sweep, v)
    changed = table[table["changed"]].drop(columns="changed")
    regressed = changed[changed["regressions"] != ""]
    lat = release_tables.latency(sweep)
    confident = int((lat.points["p-value"] < SIGNIFICANT).sum())
    setups = "; ".join(f"{s}: {', '.join(rel)}" for s, rel in sweep.setups.items())
    blocks: list[Block] = [f"{fw} over releases, per setup: {setups}."]
    blocks += [f"Note: {fw} on {s}: the releases ran on different machines ({m}); latency differences mix the "
               "machine with the release." for s, m in sweep.models.items()]
    unchanged = len(table) - len(changed)
    if len(changed):
        blocks.append(Table(changed, f"{fw}: functions whose verdict changed between releases ({len(changed)} of "
                                     f"{len(table)} per setup; the {unchanged} unchanged are not listed)"))
    else:
        blocks.append(f"{fw}: every one of the {counted(unchanged, 'function')} kept its verdict in every release.")
    blocks += _pass_rate(sweep, v, out)
    blocks += _declared(sweep, where)
    blocks += _latency(sweep, lat)
    text = (f"{fw} ({', '.join(sweep.releases)}): {counted(len(changed), 'function')} changed verdict, "
            f"{counted(len(regressed), 'regression')}"
            + (f" ({first_of(sorted(set(regressed['function'])), 3)})" if len(regressed) else "")
            + f", {counted(len(lat.points), 'latency change point')} ({confident} with p < {SIGNIFICANT})")
    return text, blocks


def _pass_rate(sweep: release_tables.Sweep, v: pd.DataFrame, out: Path) -> list[Block]:
    rates = release_tables.pass_rates(sweep, v)
    if rates.empty:
        return [f"{sweep.framework}: no function ran in any release, so there is no pass rate to show."]
    wide = rates.assign(text=[f"{p:.1f} % ({k}/{n})" for p, k, n in zip(rates["pass %"], rates["passed"],
                                                                      rates["ran"])])
    wide = wide.pivot(index="setup", columns="release", values="text").reindex(columns=sweep.releases)
    wide = wide.fillna(release_tables.ABSENT).reset_index()
    wide.columns.name = None
    return [Table(wide, f"{sweep.framework}: functions passing, % of those that ran (pass / ran)"),
            pass_rate_figure(sweep, rates, out)]


def pass_rate_figure(sweep: release_tables.Sweep, rates: pd.DataFrame, out: Path) -> figures.Figure:
    """Pass rate over the framework's releases, one line per setup, releases evenly spaced in version order."""
    position = {v: i for i, v in enumerate(sweep.releases)}
    # A Figure of its own (not pyplot's): figures.save closes it all the same.
    fig = Figure(figsize=(max(6.0, 0.9 * len(sweep.releases) + 3), 4))
    ax = fig.subplots()
    for setup, g in rates.groupby("setup", sort=False):
        ax.plot(g["release"].map(position), g["pass %"], marker="o", label=setup)
    ax.set_xticks(range(len(sweep.releases)), sweep.releases, rotation=30 if len(sweep.releases) > 6 else 0)
    ax.set(xlim=(-0.5, len(sweep.releases) - 0.5), ylim=(-2, 102), xlabel=f"{sweep.framework} release",
           ylabel="functions passing (% of those that ran)", title=f"{sweep.framework}: pass rate over releases")
    ax.legend(fontsize=8)
    return figures.save(fig, out, f"pass-rate-over-releases-{figures.slug(sweep.framework)}",
                        f"{sweep.framework}: share of the functions that ran which pass, per release and setup")


def _declared(sweep: release_tables.Sweep, where: list[Path]) -> list[Block]:
    counts, steps = release_tables.declared_tables(sweep, where)
    fw = sweep.framework
    blocks: list[Block] = [
        f"What each {fw} release declares per device kind (its declared-support table, `runner declared`; what "
        "\"declared\" means is the table's own): ops declared, and op x dtype pairs listed. \"no table\": none "
        "was read for that release (a sweep reads one per release unless --no-declared; `runner declared "
        f"--framework {fw} --profile P` reads one for a profile P of that release). \"not known\": the table's "
        "environment could not tell what that device kind supports (PyTorch's tpu: torch_xla is not installed there; "
        "`runner sweep --device xla-cpu` reads each release's table with the torch_xla of its line). \"not per "
        "dtype\": ops declared without dtypes (an XLA lowering is registered per op)."]
    if len(counts.columns) == 1:  # no release has a table: no device kind to make columns of
        return blocks + [f"No {fw} release here has a declared-support table: "
                         f"{', '.join(sweep.releases)} have none."]
    blocks.append(Table(counts, f"{fw}: declared support per release and device kind"))
    if len(steps):
        blocks.append(Table(steps, f"{fw}: ops declared on a device kind that one release adds or removes against "
                                   "the previous release with a table"))
    else:
        blocks.append(f"{fw}: fewer than two releases have a table (or none knows the same device kind), so no "
                      "ops added or removed can be shown.")
    return blocks


def _latency(sweep: release_tables.Sweep, lat: release_tables.Latency) -> list[Block]:
    fw = sweep.framework
    noise = "; ".join(f"{s}: {_noise(n)}" for s, n in lat.noise.items())
    blocks: list[Block] = [
        f"{fw} latency per function and release: the median over the cases timed (passed) in every release the "
        "function was timed in, of each case's warm median over repeats. Change points: ruptures (Pelt, l2 "
        "cost) on the log of these levels, with a penalty of "
        f"{changepoints.PENALTY_SIGMAS:g} standard deviations of the difference of two unchanged "
        "levels; that noise is estimated from all functions' release-to-release differences on the setup (their "
        f"robust spread about the setup's median change), {noise}. Ratio: level after / before the step. p-value: "
        f"two-sided Mann-Whitney U (scipy) on the {lat.basis} of the releases before the step against those "
        "after it, each case's timings divided by its own median"
        + (" (the samples are loaded for a sweep's folder, the one with sweep.json; here each case counts once "
           "per repeat and release, and few cases give large p-values)" if lat.basis != "warm samples" else
           "; a release's samples come from its own runs, so a small p-value says its timings differ, and a "
           "host that ran slower during one release's run differs too: the step's size against the setup's "
           "noise, and a step shared by most functions (below), tell those apart") + "."]
    if len(lat.shifts):
        moves = "; ".join(f"{row['setup']} {row['from']} to {row['to']} {row['median ratio']:.3g}x over "
                          f"{counted(row['functions'], 'function')}" for _, row in lat.shifts.iterrows())
        blocks.append("The typical function moved (median of the functions' ratios, later / earlier release): "
                      + moves
            + ". Each function's series is searched on its own: where every function moved alike (a slower "
            "release, or another machine) by more than the noise, each of them shows the step.")
    if sweep.cases["quick"].astype(bool).any():
        blocks.append(f"Note: {fw}: quick records' latencies are left out of the levels (they are not results).")
    if lat.untimed:
        blocks.append(f"Note: {fw}: {counted(lat.untimed, 'function')} timed in two or more releases had no case "
                      "timed in all of them, so no level over releases; they are left out of the latency tables.")
    if len(lat.points):
        blocks.append(Table(lat.points.sort_values("p-value", kind="stable").reset_index(drop=True),
                            f"{fw}: latency change points, most confident first"))
    else:
        blocks.append(f"{fw}: no latency change point on any setup.")
    if len(lat.levels):
        levels = lat.levels.copy()
        for release in sweep.releases:
            levels[release] = levels[release].map(lambda s: format_seconds(s) if pd.notna(s) else "-")
        blocks.append(Table(levels, f"{fw}: warm latency per function and release (- : not timed)"))
    return blocks


def _noise(sigma: float | None) -> str:
    if sigma is None:
        return "too few functions to estimate it, so the floor (a 1.1x step) was used"
    return f"a release's log level varies by {sigma:.3f} (about {100 * sigma:.0f} %)"
