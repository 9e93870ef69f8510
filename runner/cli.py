"""`runner`: the host command. Thin: parses options and calls the library API (cell, catalog, summary)."""
from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from runner import catalog, cell, images, matrix, matrix_run
from runner.errors import UserError
from runner.frameworks import FRAMEWORKS
from runner.progress import CellProgress
from runner.report import summary
from runner.results import merge

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Measure which functions of TensorFlow, PyTorch and JAX run on which device, and how fast.")
# Rich folds tables to 80 columns when stdout is not a terminal, which breaks function names apart in
# a redirected `runner compare > file`; a set COLUMNS still decides.
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
err = Console(stderr=True)


def checkout() -> Optional[Path]:
    """The project checkout if the command runs inside one (the current folder or one above it holds
    matrix.toml and curated/); reading results needs none."""
    here = Path.cwd().resolve()
    return next((f for f in (here, *here.parents) if (f / "matrix.toml").exists() and (f / "curated").is_dir()), None)


def project_root() -> Path:
    """The checkout, for commands that run cells; a malformed matrix.toml is reported whatever the command."""
    root = checkout()
    if root is None:
        raise UserError("no matrix.toml with a curated/ folder here or above; run runner from the project checkout")
    matrix.load(root / "matrix.toml")
    return root


def latest_run(results: Path) -> Path:
    runs = [d for d in results.glob("*/") if any(d.glob("*.jsonl"))] if results.is_dir() else []
    if not runs:
        raise UserError(f"no run under {results}; run `make matrix` (or `runner bench`) first, or name a results folder")
    return max(runs, key=lambda d: max(f.stat().st_mtime for f in d.glob("*.jsonl")))


def new_run_id() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def load_matrix(root: Path, path: Optional[Path]) -> matrix.Matrix:
    return matrix.load(path.resolve() if path else root / "matrix.toml")


def _cell_display(cell: matrix_run.PlannedCell, repeat: int, index: int, total: int) -> CellProgress:
    label = f"{cell.image} ({cell.profile})" + (f" repeat {repeat}/{cell.repeats}" if cell.repeats > 1 else "")
    return CellProgress(console, label, overall=(index, total) if total > 1 else None)


def _run(root: Path, m: matrix.Matrix, cells: list[matrix_run.PlannedCell], out: Optional[Path],
         opts: matrix_run.Options, resume: bool) -> None:
    run_dir = (out or root / "results" / new_run_id()).resolve()
    if resume and not run_dir.exists():
        raise UserError(f"--resume: {run_dir} does not exist; pass the --out of the run to continue")
    several = len(cells) > 1  # one cell's failure is the command's error line; a matrix reports each and goes on
    merged = matrix_run.run(
        root, m, cells, run_dir, run_dir.name, opts, resume, _cell_display,
        on_error=lambda c, e: several and err.print(f"[red]{c.key} failed:[/] {e}", highlight=False, soft_wrap=True))
    for path in sorted(run_dir.glob("*.jsonl")):
        console.print(summary.table(path))
    console.print(summary.matrix_table(merged))
    console.print(f"merged results: {run_dir / merge.MERGED}\nsummary: {run_dir / 'summary.md'}")
    failed = [c for c in merged["cells"] if c["status"] == "failed"]
    if not any(c["status"] == "done" for c in merged["cells"]):
        raise UserError(failed[0]["reason"] if len(failed) == 1 else "no cell could run; see the reasons above", code=3)


_BACKEND_HELP = "docker, local (a venv from the image spec) or auto (docker when an engine answers)"


@app.command()
def bench(
    image: str = typer.Option(..., help="an image folder under images/, e.g. jax-cpu"),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    mode: Optional[str] = typer.Option(None, help="steady (warm-up, many samples) or paper (the 2023 method)"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    repeats: int = typer.Option(1, help="run the cell this many times"),
    resume: bool = typer.Option(False, help="continue a killed run in the same --out"),
    backend: str = typer.Option("auto", help=_BACKEND_HELP),
    base: Optional[str] = typer.Option(None, help="docker: the base image to build on (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
) -> None:
    """Run one image's curated cases on its device; write <out>/<framework>-<device>-<profile>.jsonl and merged.json."""
    if mode not in (None, *matrix.MODES):
        raise UserError(f"unknown --mode {mode!r}; choose steady or paper")
    root = project_root()
    m = load_matrix(root, matrix_file)
    opts = matrix_run.Options(backend=backend, quick=quick, functions=functions or [], base=base, mode=mode,
                              timeout_s=timeout, repeats=repeats)
    spec = images.load(root / "images", image)
    cell.check_functions(root, spec.framework, opts.functions)
    cells = matrix_run.plan(root, m, opts, [profile], only=[image])
    if cells[0].status != "pending":
        raise UserError(f"{image} ({profile}) cannot run here: {cells[0].reason}", code=3)
    _run(root, m, cells, out, opts, resume)


@app.command("list")
def list_functions(framework: Optional[str] = typer.Option(None, help="torch, tensorflow or jax")) -> None:
    """List the curated functions with their usage decile and top-20 flag."""
    if framework is not None and framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    root = project_root()
    found = catalog.curated(str(root / "curated"), framework)
    t = Table(title=f"curated functions ({len(found)})")
    for col in ("framework", "function", "decile", "top20", "paper label", "module"):
        t.add_column(col)
    for f in found:
        t.add_row(f.framework, f.name, str(f.decile), "yes" if f.top20 else "no", f.paper_label or "", f.module)
    console.print(t)


@app.command("matrix")
def run_matrix(
    profile: Optional[List[str]] = typer.Option(None, "--profile", help="profiles to run (default: matrix.toml's)"),
    backend: str = typer.Option("auto", help=_BACKEND_HELP),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    repeats: Optional[int] = typer.Option(None, help="repeats per cell (default: matrix.toml's)"),
    base: Optional[str] = typer.Option(None, help="docker: the base image of every cell (e.g. an offline one)"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    resume: bool = typer.Option(False, help="continue a killed matrix run in the same --out"),
    dry_run: bool = typer.Option(False, "--dry-run", help="list the cells, their backend and why any cannot run"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
) -> None:
    """Run every cell of matrix.toml this host can, one after another; merge into <out>/merged.json."""
    root = project_root()
    m = load_matrix(root, matrix_file)
    opts = matrix_run.Options(backend=backend, quick=quick, functions=functions or [], base=base, repeats=repeats)
    cells = matrix_run.plan(root, m, opts, profile)
    if dry_run:
        t = Table(title=f"{len(cells)} cells, backend {opts.backend}")
        for col in ("image", "profile", "device", "repeats", "will", "reason"):
            t.add_column(col, overflow="fold")
        for c in cells:
            t.add_row(c.image, c.profile, c.device, str(c.repeats), "run" if c.status == "pending" else c.status,
                      c.reason or "")
        console.print(t)
        return
    _run(root, m, cells, out, opts, resume)


@app.command()
def report(
    results: Optional[List[Path]] = typer.Argument(None, help="results folders or .jsonl files (default: the "
                                                   "latest run under results/)"),
    out: Optional[Path] = typer.Option(None, help="folder for report.md, report.html and figures/ (default: the "
                                       "first results folder)"),
) -> None:
    """Tables and figures of the study, and what it never showed, from the records of one or more runs."""
    from runner.report import load, render

    root = checkout()
    paths = results or [latest_run((root or Path.cwd()) / "results")]
    r = load.load(paths, curated_root=root / "curated" if root else None)
    target = out or (paths[0] if paths[0].is_dir() else paths[0].parent)
    md, html, figures = render.write(r, target)
    for note in r.notes:
        err.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    console.print(f"report: {md}\n        {html}\nfigures: {len(figures)} in {target / 'figures'}", highlight=False)


@app.command()
def compare(
    run_a: Path = typer.Argument(..., help="a results folder (or .jsonl file)"),
    run_b: Optional[Path] = typer.Argument(None, help="another results folder to compare with"),
    baseline: Optional[str] = typer.Option(None, help="compare with published figures instead: paper2023"),
    all_functions: bool = typer.Option(False, "--all", help="list every function compared, not only changes"),
) -> None:
    """What changed from run a to run b: setups, verdicts, and latency beyond 1.1x that the samples confirm."""
    from runner.report import baseline as baselines, compare as comparing, load, render

    if (run_b is None) == (baseline is None):
        raise UserError("give either a second results folder or --baseline paper2023, not both or neither")
    root = checkout()
    curated_root = root / "curated" if root else None
    a = load.load([run_a], curated_root=curated_root, samples=run_b is not None)
    notes = list(a.notes)
    if baseline is not None:
        b = baselines.compare(a, baseline)
        console.print(render.rich(b.portability, f"Portability: the study ({baseline}) and this run"))
        console.print(render.rich(b.top20, "Failure rate: top 20 functions against all"))
        if not b.ratios.empty:
            console.print(render.rich(b.ratios, "Latency ratio TPU / GPU per function: the study and this run"))
        notes += b.notes
    else:
        other = load.load([run_b], curated_root=curated_root, samples=True)
        notes += other.notes
        c = comparing.compare(a, other)
        notes += c.unmatched
        if c.setups.empty:
            raise UserError(f"{run_a} and {run_b} share no framework and device kind; nothing to compare")
        console.print(render.rich(c.setups, f"Setups: a = {run_a}, b = {run_b}"))
        console.print(render.rich(c.verdicts, "Verdict changes") if not c.verdicts.empty
                      else "No function changed verdict.")
        console.print(render.rich(c.latency_summary(), "Latency: functions slower or faster on b by more than "
                                  "1.1x, confirmed by the samples"))
        shown = c.latency if all_functions else c.latency[c.latency["change"] != "no change"]
        if not shown.empty:
            console.print(render.rich(shown.sort_values("ratio", ascending=False), "Latency per function (b / a)"))
    for note in notes:
        err.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)


images_app = typer.Typer(no_args_is_help=True, help="Build the Docker images of images/ for matrix.toml's profiles.")
app.add_typer(images_app, name="images")


@images_app.command("build")
def images_build(
    image: Optional[List[str]] = typer.Option(None, "--image", help="images to build (default: the matrix's cells)"),
    profile: Optional[List[str]] = typer.Option(None, "--profile", help="profiles (default: matrix.toml's)"),
    base: Optional[str] = typer.Option(None, help="the base image instead of the profile's (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
) -> None:
    """Build (or reuse) each image for each profile; the tag names image, profile and a hash of its inputs."""
    from runner.backends import docker_engine

    root = project_root()
    m = load_matrix(root, matrix_file)
    c = docker_engine.client()
    todo = [(name, p) for p in profile or m.matrix_profiles for name in image or matrix_run.cell_images(root, m)]
    failures = []
    for name, p in todo:
        spec = images.load(root / "images", name)
        settings = m.settings(spec.name, spec.framework, spec.device, p)
        if settings.excluded:
            console.print(f"[dim]{name} ({p}): excluded: {settings.excluded}")
            continue
        try:
            built = docker_engine.ensure_image(root, spec, settings.profile,
                                               base or settings.base or settings.profile.base_for(spec.device),
                                               log=lambda s: console.print(f"[dim]{s}", highlight=False), c=c)
            console.print(f"{name} ({p}): {built.tag} {'(up to date)' if built.reused else '(built)'}")
        except UserError as e:  # the other images still build
            if len(todo) == 1:
                raise
            failures.append(e)
            err.print(f"[red]{e}", highlight=False, soft_wrap=True)
    if failures:
        raise UserError(f"{len(failures)} of {len(todo)} images failed to build; see above", code=3)


def main() -> None:
    try:
        app()
    except UserError as e:
        err.print(f"[red]error:[/] {e}", highlight=False, soft_wrap=True)
        sys.exit(e.code)


if __name__ == "__main__":
    main()
