"""The commands about the curated functions: `runner list` (the study's sample and your own) and `runner new`
(a first module for a function of your own)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from portability_harness.protocol import FRAMEWORKS
from rich.markup import escape
from rich.table import Table

from runner import upstream_table
from runner.commands.shared import CURATED_HELP, console, err
from runner.errors import UserError
from runner.project import Project


def list_functions(framework: Optional[str] = typer.Option(None, help="torch, tensorflow or jax"),
                   curated: Optional[Path] = typer.Option(None, help=CURATED_HELP),
                   coverage: bool = typer.Option(False, "--coverage", help="per function, the upstream test methods "
                                                 "its module cites: what represents each, or why it is left out")) \
        -> None:
    """List the curated functions: the study's sample with its usage decile and top-20 flag, and your own."""
    if framework is not None and framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    found = [f for f in Project.find(curated=curated).catalog if framework in (None, f.framework)]
    if coverage:
        _coverage(found)
        return
    t = Table(title=f"curated functions ({len(found)}, {sum(f.in_study for f in found)} of the study's sample)")
    for col in ("framework", "function", "decile", "top20", "paper label", "module"):
        t.add_column(col, overflow="fold")  # folded, never cut: a name must be readable whole
    for f in found:
        t.add_row(f.framework, escape(f.name), str(f.decile) if f.in_study else "-",
                  ("yes" if f.top20 else "no") if f.in_study else "-", f.paper_label or "", f.module)
    console.print(t)
    for f in found:
        if f.error:  # its cases run as case_error records until it is fixed
            err.print(f"[red]{f.module}: cannot be read: {escape(f.error)}", highlight=False, soft_wrap=True)


def _coverage(found: list) -> None:
    entries = [(f.framework, f.name, f.backward, f.upstream) for f in found if not f.error]
    t = Table(title="upstream coverage (docs/curated-cases.md): " + upstream_table.summary(entries).replace("\n", "; "))
    rows = [row for entry in entries for row in upstream_table.rows(*entry)]
    widest = max((len(r["upstream test"]) for r in rows), default=0)
    for col in upstream_table.COLUMNS:
        # A method's name is what a reader searches for: whole on its line where the terminal allows.
        t.add_column(col, overflow="fold", min_width=min(widest, 110) if col == "upstream test" else None)
    for row in rows:
        t.add_row(*(escape(row[c]) for c in upstream_table.COLUMNS))
    console.print(t, crop=False)  # wider than the terminal rather than a reason cut off


def new_module(
    function: str = typer.Argument(..., help="the function's public name, e.g. jax.nn.softmax"),
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    curated: Optional[Path] = typer.Option(None, help=CURATED_HELP),
) -> None:
    """Write a first curated module for a function of your own: the marker, the fixtures, cases to adapt."""
    from runner.scaffold import write_module

    project = Project.find(curated=curated)
    path = write_module(project.curated_dir, framework, function)
    console.print(f"wrote {path}\nnext: adapt its TODOs, then `runner bench --image <{framework} image> "
                  f"--functions {function}`" + (f" --curated {curated}" if curated else ""), highlight=False)
