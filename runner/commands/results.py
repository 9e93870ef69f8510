"""The commands that read finished runs: `runner report` (the study's tables and figures, or with --site the atlas
of many runs), `runner compare` (what changed between two runs, or from the published figures) and `runner keep` (a
run packed as a reference)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.markup import escape

from runner import archive, releases
from runner.commands.shared import console, err
from runner.errors import UserError
from runner.project import checkout
from runner.rundir import RunDir

if TYPE_CHECKING:
    from runner.report.compare import Comparison


def report(
    results: Optional[List[Path]] = typer.Argument(None, help="results folders or .jsonl files (default: the "
                                                   "latest run under results/)"),
    out: Optional[Path] = typer.Option(None, help="folder for report.md, report.html and figures/, or with --site "
                                       "for the site (default: the first results folder; with --site, its site/)"),
    site: bool = typer.Option(False, "--site", help="write the atlas instead: a static site of every run given "
                              "(folders of records, or of a records.tar.xz), readable from file:// or any web host"),
) -> None:
    """Tables and figures of the study, and what it never showed, from the records of one or more runs; with
    --site, the atlas of them: every function x setup, its cases, the study beside them."""
    from runner.report import load, render

    root = checkout()
    paths = results or [RunDir.latest((root or Path.cwd()) / "results").path]
    if site:
        return _site(paths, out, root)
    # A sweep's folder: its latency change points are tested on the warm samples (which cost memory: about
    # 90 MB more for a 6-release JAX sweep), elsewhere each case's median stands for it.
    sweep = any((p if p.is_dir() else p.parent).joinpath(releases.RECORD).exists() for p in paths)
    if out is None and archive.archived(paths[0]):
        # A kept folder's report.md and figures are the ones published with it; a new report goes elsewhere.
        raise UserError(f"{paths[0]} is a kept run (its records in {archive.ARCHIVE}) with its own report; pass "
                        "--out FOLDER to write a report of its records there")
    target = out or (paths[0] if paths[0].is_dir() else paths[0].parent)
    with archive.readable(paths) as readable:  # rendered inside: a report reads declared/ tables an archive holds
        r = load.load(readable.paths, curated_root=root / "curated" if root else None, samples=sweep)
        r.kept = readable.kept
        md, html, figures = render.write(r, target)
    for note in r.notes:
        err.print(f"[yellow]note:[/] {escape(readable.named(note))}", highlight=False, soft_wrap=True)
    console.print(f"report: {md}\n        {html}\nfigures: {len(figures)} in {target / 'figures'}", highlight=False)


def _site(paths: List[Path], out: Optional[Path], root: Optional[Path]) -> None:
    from runner.atlas import site

    target = out or (paths[0] if paths[0].is_dir() else paths[0].parent) / "site"
    built = site.build(paths, target, curated_root=root / "curated" if root else None)
    for s in built.atlas.sources:
        for line in s.warnings:
            err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)
        for note in s.notes:
            err.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    console.print(f"atlas: {target / 'index.html'} ({len(built.atlas.setups)} setups, {len(built.atlas.rows)} "
                  f"functions, {built.pages} pages)", highlight=False)


def compare(
    run_a: Path = typer.Argument(..., help="a results folder, a kept one (its records.tar.xz) or a .jsonl file"),
    run_b: Optional[Path] = typer.Argument(None, help="another results folder (or kept one) to compare with"),
    baseline: Optional[str] = typer.Option(None, help="compare with published figures instead: paper2023"),
    all_functions: bool = typer.Option(False, "--all", help="list every function compared, not only changes"),
) -> None:
    """What changed from run a to run b: setups, verdicts, and latency beyond 1.1x that the samples confirm; and where
    one run forecasts the TPU (a model cell) and the other measured it, the forecast against the measurement."""
    from runner.report import baseline as baselines, compare as comparing, load, render

    if (run_b is None) == (baseline is None):
        raise UserError("give either a second results folder or --baseline paper2023, not both or neither")
    root = checkout()
    curated_root = root / "curated" if root else None
    with archive.readable([run_a] + ([run_b] if run_b is not None else [])) as readable:
        a = load.load(readable.paths[:1], curated_root=curated_root, samples=run_b is not None)
        other = load.load(readable.paths[1:], curated_root=curated_root, samples=True) if run_b is not None else None
    notes = list(a.notes) + (other.notes if other is not None else [])
    if baseline is not None:
        b = baselines.compare(a, baseline)
        console.print(render.rich(b.portability, f"Portability: the study ({baseline}) and this run"))
        console.print(render.rich(b.top20, "Failure rate: top 20 functions against all"))
        if not b.ratios.empty:
            console.print(render.rich(b.ratios, "Latency ratio TPU / GPU per function: the study and this run"))
        notes += b.notes
    else:
        c = comparing.compare(a, other)
        if c.setups.empty and c.forecast.empty:
            raise UserError(f"{run_a} and {run_b} share no framework and device kind, and neither holds a TPU "
                            "forecast (an xla-cpu model cell) of a framework the other measured on a TPU; nothing "
                            "to compare")
        notes += c.unmatched
        if not c.setups.empty:  # a forecast set against a TPU alone has no setup of one device kind in both
            quick = [str(path) for path, res in ((run_a, a), (run_b, other)) if res.quick]
            notes += _changes(c, run_a, run_b, quick, all_functions)
        if not c.forecast.empty:
            console.print(render.rich(c.forecast, "Forecast against measured: the TPU model cell of one run against "
                                      "the TPU cell of the other"))
            for line in c.agreement:
                console.print(escape(line), highlight=False, soft_wrap=True)
    for note in notes:
        err.print(f"[yellow]note:[/] {escape(readable.named(note))}", highlight=False, soft_wrap=True)


def _changes(c: Comparison, run_a: Path, run_b: Path, quick: list[str], all_functions: bool) -> list[str]:
    """Print what changed between the setups of one device kind in both runs: verdicts, packages and latency
    the samples confirm; return the notes."""
    from runner.report import render

    console.print(render.rich(c.setups, f"Setups: a = {run_a}, b = {run_b}"))
    if not c.packages.empty:
        console.print(render.rich(c.packages, "Packages of the environments that differ (- : not installed)"))
    console.print(render.rich(c.verdicts, "Verdict changes") if not c.verdicts.empty else "No function changed verdict.")
    if quick:
        # A quick pass takes too few samples for a latency verdict; two quick runs once "confirmed" 14 changes.
        return [f"{' and '.join(quick)} measured with --quick: latency is not compared (too few samples for a "
                "verdict); rerun without --quick to compare latency"]
    console.print(render.rich(c.latency_summary(), "Latency: functions slower or faster on b by more than 1.1x, "
                              "confirmed by the samples"))
    shown = c.latency if all_functions else c.latency[c.latency["change"] != "no change"]
    if not shown.empty:
        console.print(render.rich(shown.sort_values("ratio", ascending=False), "Latency per function (b / a)"))
    return []


def keep(
    run: Path = typer.Argument(..., help="a run's results folder (results/<run-id>)"),
    dest: Path = typer.Argument(..., help="the folder to keep it in, e.g. results/reference/<name>"),
    log_max_kb: int = typer.Option(archive.LOG_MAX_BYTES // 1000, help="workers' logs larger than this are left "
                                   "out (and named)"),
) -> None:
    """Keep a run as a reference: DEST/records.tar.xz with every record of RUN, each case without its raw warm
    samples, and the workers' logs up to --log-max-kb. The dry run expects a new host's cells from the newest of
    these; write DEST/README.md yourself (what ran, on what, and what it found)."""
    if not run.is_dir():
        raise UserError(f"{run} is not a results folder; give a run's folder, e.g. results/<run-id>")
    if not any(run.glob("*.jsonl")):
        raise UserError(f"{run} holds no records (*.jsonl); give the folder of a run that ran")
    try:
        kept = archive.keep(run, dest, log_max_kb * 1000)
    except FileExistsError as e:
        raise UserError(f"{e} exists already and is not replaced; give another folder or move it away") from None
    except ValueError as e:
        raise UserError(f"{run}/{e}; mend or remove that line, then keep the run again") from None
    except OSError as e:
        raise UserError(f"cannot write {dest} ({e.strerror}); give a folder you can write") from None
    console.print(f"kept: {kept.path} ({kept.path.stat().st_size / 1e6:.1f} MB, {len(kept.kept)} files)",
                  highlight=False)
    for line in kept.left_out:
        err.print(f"[yellow]left out:[/] {escape(line)}", highlight=False, soft_wrap=True)
