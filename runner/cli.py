"""`runner`: the host command. Thin: parses options and calls the library API (cell, catalog, summary)."""
from __future__ import annotations

import datetime
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
console = Console()
err = Console(stderr=True)


def project_root() -> Path:
    """The checkout holding matrix.toml: the current folder or one above it."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "matrix.toml").exists() and (folder / "curated").is_dir():
            matrix.load(folder / "matrix.toml")  # a malformed matrix is reported whatever the command
            return folder
    raise UserError("no matrix.toml with a curated/ folder here or above; run runner from the project checkout")


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
