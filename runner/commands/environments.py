"""The commands that work in or on the cells' environments without running cases: `runner declared` (what a
framework version declares, read inside its environment) and `runner images build` (the Docker images)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from portability_harness.protocol import FRAMEWORKS
from rich.markup import escape
from rich.table import Table

from runner.commands.shared import BACKEND_HELP, console, err
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project


def declared_support(
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    image: Optional[str] = typer.Option(None, help="the environment to read it in (default: the framework's CPU "
                                                   "image)"),
    backend: str = typer.Option("auto", help=BACKEND_HELP),
    out: Optional[Path] = typer.Option(None, help="folder for the table (default results/declared)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
) -> None:
    """What the framework version declares each device kind supports, per op and dtype, read from the framework
    itself in its cell's environment; writes <out>/<framework>-<version>.json.gz and prints its coverage."""
    from portability_harness import declared as tables

    from runner import declared

    if framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    project = Project.find(matrix_file)
    folder = (out or project.root / "results" / declared.FOLDER).resolve()
    path = declared.read_in_environment(project, framework, profile, image, backend, folder,
                                        log=lambda s: console.print(f"[dim]{escape(s)}", highlight=False))
    table = tables.load(str(path))
    t = Table(title=f"{table['framework']} {table['framework_version']}: declared support ({path})")
    for col in ("device", "known", "ops", "op x dtype pairs", "not knowable here", "source note"):
        t.add_column(col, overflow="fold")
    for kind, info in table["devices"].items():
        cov = table["coverage"].get(kind, {"ops": 0, "pairs": 0})
        t.add_row(kind, "yes" if info.get("known") else "no", str(cov["ops"]), str(cov["pairs"]),
                  str(len(table["unknowable"].get(kind, ()))), escape(info.get("note", "")))
    console.print(t)
    console.print(f"[dim]{escape(table['source'])}", highlight=False)


def images_build(
    image: Optional[List[str]] = typer.Option(None, "--image", help="images to build (default: the matrix's cells)"),
    profile: Optional[List[str]] = typer.Option(None, "--profile", help="profiles (default: matrix.toml's)"),
    base: Optional[str] = typer.Option(None, help="the base image instead of the profile's (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
) -> None:
    """Build (or reuse) each image for each profile; the tag names image, profile and a hash of its inputs."""
    from runner.backends import docker_engine

    project = Project.find(matrix_file)
    c = docker_engine.client()
    cells = plan(project, Options(profiles=tuple(profile or ()), images=tuple(image or ()), backend="docker",
                                  base=base, compilers=("eager",)))  # an image serves both compilers
    failures = []
    for cell in cells:
        if cell.excluded:
            console.print(f"[dim]{cell.label}: excluded: {cell.excluded}")
            continue
        try:
            built = docker_engine.ensure_image(project.images_dir, project.harness_dir, cell.image, cell.profile,
                                               cell.base, log=lambda s: console.print(f"[dim]{s}", highlight=False),
                                               c=c)
            console.print(f"{cell.label}: {built.tag} {'(up to date)' if built.reused else '(built)'}")
        except UserError as e:  # the other images still build
            if len(cells) == 1:
                raise
            failures.append(e)
            err.print(f"[red]{escape(str(e))}", highlight=False, soft_wrap=True)
    if failures:
        raise UserError(f"{len(failures)} of {len(cells)} images failed to build; see above", code=3)
