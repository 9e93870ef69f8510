"""`runner`: the host command. Thin: parses options and calls the library API (cell, catalog, summary)."""
from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from runner import catalog, cell, images, matrix
from runner.errors import UserError
from runner.frameworks import FRAMEWORKS
from runner.progress import CellProgress
from runner.report import summary

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


def _bench_one(root: Path, req: cell.CellRequest) -> Path:
    with CellProgress(console, f"{req.image} ({req.profile})") as progress:
        out = cell.run_cell(root, req, progress, log=lambda s: progress.console.print(f"[dim]{s}"))
    console.print(summary.table(out))
    return out


@app.command()
def bench(
    image: str = typer.Option(..., help="an image folder under images/, e.g. jax-cpu"),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    mode: str = typer.Option("steady", help="steady (warm-up, many samples) or paper (the 2023 method)"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    timeout: float = typer.Option(900.0, help="per-case timeout in seconds"),
    resume: bool = typer.Option(False, help="continue a killed run in the same --out"),
    backend: str = typer.Option("local", help="local (a venv built from the image spec)"),
) -> None:
    """Run one framework's curated cases on one device; write <out>/<framework>-<device>-<profile>.jsonl."""
    if mode not in ("steady", "paper"):
        raise UserError(f"unknown --mode {mode!r}; choose steady or paper")
    if backend != "local":
        raise UserError(f"unknown --backend {backend!r}; this version has the local backend only")
    root = project_root()
    run_id = out.name if out else new_run_id()
    req = cell.CellRequest(image=image, profile=profile, out_dir=out or root / "results" / run_id,
                           functions=functions or [], mode=mode, quick=quick, timeout_s=timeout, resume=resume,
                           run_id=run_id)
    path = _bench_one(root, req)
    console.print(f"results: {path}")


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
    quick: bool = typer.Option(False, help="few warm samples"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
) -> None:
    """Run every cell of matrix.toml on this host, one after another, then print a summary."""
    root = project_root()
    m = matrix.load(root / "matrix.toml")
    profiles = profile or m.matrix_profiles or ["current"]
    run_id = out.name if out else new_run_id()
    out_dir = out or root / "results" / run_id
    outcomes: list[tuple[str, str, str]] = []
    for p in profiles:
        for name in m.images:
            try:
                path = _bench_one(root, cell.CellRequest(image=name, profile=p, out_dir=out_dir, quick=quick,
                                                         run_id=run_id))
                outcomes.append((name, p, f"ran: {path.name}"))
            except UserError as e:  # one failed cell is recorded; the matrix goes on
                err.print(f"[red]{name} ({p}) did not run: {e}", soft_wrap=True)
                outcomes.append((name, p, f"not run: {e}"))
    t = Table(title=f"matrix run {run_id}")
    for col in ("image", "profile", "result"):
        t.add_column(col)
    for row in outcomes:
        t.add_row(*row)
    console.print(t)
    if not any(r[2].startswith("ran") for r in outcomes):
        raise UserError("no cell of the matrix could run; see the reasons above")


def main() -> None:
    try:
        app()
    except UserError as e:
        err.print(f"[red]error:[/] {e}", highlight=False, soft_wrap=True)
        sys.exit(e.code)


if __name__ == "__main__":
    main()
