"""`runner sweep`: one framework over a list or range of its releases, each release a version profile of its own
(runner/releases.py), run as the cells of a matrix run (so resumable, in parallel with environment builds), then
each release's declared support into <out>/declared/. <out>/sweep.json records how every release was installed,
or why it could not be."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer
from rich.markup import escape
from rich.table import Table

from runner import declared, releases
from runner.backends import local
from runner.cell import Cell
from runner.commands.run import _compilers, _run
from runner.commands.shared import BACKEND_HELP, CURATED_HELP, budget_option, checked_budget, console, err
from runner.errors import UserError
from runner.images import ImageSpec, available, canonical
from runner.matrix import Exclude, Rule
from runner.plan import Options, plan
from runner.project import Project
from runner.rundir import CellState, RunDir


def sweep(
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    release_specs: Optional[List[str]] = typer.Option(None, "--releases", help='versions "0.10.2,0.11.2", or every '
                                                      'release of a range "0.4.13..0.10.2" (either end may be left '
                                                      'open); repeatable'),
    pick: Optional[int] = typer.Option(None, help="of the releases named, run this many spread evenly (first and "
                                       "last included)"),
    devices: Optional[List[str]] = typer.Option(None, "--device", help="device kinds to run (default cpu); "
                                                "repeatable"),
    base_profile: Optional[str] = typer.Option(None, "--base-profile", help="the matrix.toml profile each "
                                               "release's other pins come from  [default: current]"),
    resolve_pins: bool = typer.Option(True, "--resolve/--no-resolve", help="choose each release's Python and "
                                      "NumPy/SciPy from PyPI's dates (default), or keep the base profile's"),
    compiler: str = typer.Option("all", help="eager, compiled or all (a cell each)"),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    budget: Optional[float] = budget_option(),
    repeats: int = typer.Option(1, help="repeats per release and cell"),
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    with_declared: bool = typer.Option(True, "--declared/--no-declared", help="read each release's declared "
                                       "support too"),
    cases: bool = typer.Option(True, "--cases/--no-cases", help="run the curated cases (--no-cases: only the "
                               "declared support, and the census if asked)"),
    census: bool = typer.Option(False, help="run each release's census too (every op x dtype of its test database)"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    resume: bool = typer.Option(False, help="continue a killed sweep in the same --out"),
    backend: str = typer.Option("local", help=BACKEND_HELP),
    base_image: Optional[str] = typer.Option(None, "--base", help="docker: the base image of every release's "
                                             "image instead of the profile's (e.g. an offline one; it brings its "
                                             "own Python)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="list the releases, how each would be installed, and stop"),
    prune: bool = typer.Option(False, help="delete the cached environments of swept releases (after the sweep, or "
                               "alone without --releases); the matrix's own profiles are kept"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    curated: Optional[Path] = typer.Option(None, help=CURATED_HELP),
) -> None:
    """Run one framework's curated cases (and declared support) over several of its releases; `runner report OUT`
    then shows what changed, when (section "Over releases")."""
    if framework not in releases.BINARY:
        raise UserError(f"unknown --framework {framework!r}; choose {', '.join(releases.BINARY)}")
    project = Project.find(matrix_file, curated)
    table = project.matrix.sweeps.get(framework, {})  # [sweep.<framework>] of matrix.toml: the defaults
    release_specs = release_specs or ([table["releases"]] if table and not prune else None)
    pick, devices = pick or table.get("pick"), devices or table.get("devices")
    base_profile = base_profile or table.get("base_profile", "current")
    if not release_specs:
        if prune:
            _prune(framework)
            return
        raise UserError(f'name the releases: --releases 0.10.2,0.11.2 or --releases 0.4.13..0.10.2, or a '
                        f'[sweep.{framework}] table in matrix.toml (`pip index versions {framework}` lists them)')
    base = project.matrix.profile(base_profile)
    specs = [project.image(n) for n in available(project.images_dir)]
    wanted = tuple(devices or ("cpu",))
    images = [s for s in specs if s.framework == framework and s.device in wanted]
    unknown = set(wanted) - {s.device for s in images}
    if unknown:
        raise UserError(f"no {framework} image for {', '.join(sorted(unknown))} under images/; "
                        f"choose from {', '.join(sorted({s.device for s in specs if s.framework == framework}))}")
    versions = releases.pick(list(dict.fromkeys(v for s in release_specs for v in releases.versions(framework, s))),
                             pick)
    swept = [releases.resolve(framework, v, base, images, resolve_pins) for v in versions]
    for r in swept:
        project.matrix.profiles[r.profile.name] = r.profile
        # An image the release cannot be installed in (no torch_xla of its line) is a cell listed with the reason.
        project.matrix.excludes += [Exclude(Rule(image=image, profile=r.profile.name), why)
                                    for image, why in r.unavailable]
    options = Options(profiles=tuple(r.profile.name for r in swept), images=tuple(s.name for s in images),
                      backend=backend, base=base_image, functions=tuple(functions or ()), quick=quick, repeats=repeats,
                      budget_s=checked_budget(budget), timeout_s=timeout, compilers=_compilers(compiler, both=True))
    cells = plan(project, options) if cases else []
    if census:
        cells += plan(project, replace(options, task="census", compilers=("eager",)))
    if dry_run:
        console.print(_releases_table(framework, swept, len(cells)))
        return
    rundir = RunDir(out) if out else RunDir.new(project.root / "results")
    rundir.path.mkdir(parents=True, exist_ok=True)
    _write_record(rundir.path, framework, swept)
    console.print(_releases_table(framework, swept, len(cells)))
    failed_cells: Optional[typer.Exit] = None
    by_profile = {r.profile.name: r for r in swept}
    WAITING = ("pending", "running", "interrupted")  # a cell of this run still to end

    def after(cell: Cell, states: list[CellState]) -> None:
        # A release's declared support is read as soon as its last cell ends, so that a sweep stopped later
        # keeps it; the reading after the run catches releases whose cells an earlier run had done (--resume).
        name = cell.profile.name
        if with_declared and name in by_profile and \
                not any(s.status in WAITING for s in states if s.cell.profile.name == name):
            _read_declared(project, framework, [by_profile[name]], images, backend, base_image, rundir.path)

    try:
        if cells:
            _run(project, cells, rundir.path, resume, after=after)
    except typer.Exit as e:  # some cells failed (a release that would not install): the others still count
        failed_cells = e
    if with_declared:
        _read_declared(project, framework, swept, images, backend, base_image, rundir.path)
    if prune:
        _prune(framework)
    if cases:
        console.print(f"report: runner report {rundir.path}")
    else:  # a report needs case records: declared tables join a case sweep's folder (--out it --resume)
        console.print(f"declared support: {rundir.path / declared.FOLDER}; `runner report` shows it beside the "
                      f"cases of a sweep into the same --out (--resume)")
    if failed_cells is not None:
        raise failed_cells


def _releases_table(framework: str, swept: list[releases.Release], cells: int) -> Table:
    t = Table(title=f"{framework}: {len(swept)} releases, {cells} cells")
    for col in ("release", "published", "python", "pins", "how chosen"):
        t.add_column(col, overflow="fold")
    for r in swept:
        pins = ", ".join(v if v.startswith(k) else f"{k} {v}" for k, v in r.profile.packages.items()
                         if k in (framework, *releases.COMPANIONS[framework], *releases.FOLLOWERS.get(framework, ()),
                                  *releases.DATED))
        t.add_row(r.version, r.date or "", r.profile.python, pins, "; ".join(r.notes))
    return t


def _write_record(folder: Path, framework: str, swept: list[releases.Release]) -> None:
    """sweep.json: the releases of this sweep, merged with those of an earlier run into the same folder."""
    path = folder / releases.RECORD
    before = {}
    if path.exists():
        try:
            before = {r["version"]: r for r in json.loads(path.read_text()).get("releases", [])}
        except (ValueError, AttributeError, KeyError, TypeError):
            raise UserError(f"{path} is damaged; move it away or sweep into another --out", code=2)
    merged = {**before, **{r.version: r.record() for r in swept}}
    path.write_text(json.dumps({"framework": framework, "releases": list(merged.values())}, indent=1) + "\n")


def _read_declared(project: Project, framework: str, swept: list[releases.Release], images: list[ImageSpec],
                   backend: str, base_image: Optional[str], folder: Path) -> None:
    """Each release's declared support, read in the environment that can tell the most: an image of the sweep that
    installs a follower of the framework (torch_xla: the tpu column) where the release has one, else the CPU
    image. A table an earlier run read is kept, unless it left a device kind unknown that this environment tells."""
    where = folder / declared.FOLDER
    followers = set(map(canonical, releases.FOLLOWERS.get(framework, ())))
    for r in swept:
        blocked = {image for image, _ in r.unavailable}
        image = next((s.name for s in images if s.name not in blocked and followers & s.names), None)
        before = declared.table_for(framework, r.version, [where])
        if before and (image is None or all(d.get("known") for d in before.get("devices", {}).values())):
            continue  # read by an earlier run into this folder (--resume)
        for reader in dict.fromkeys((image, None)):
            try:
                path = declared.read_in_environment(project, framework, r.profile.name, reader, backend, where,
                                                    base=base_image)
                console.print(f"declared support of {framework} {r.version}: {path}")
                break
            except UserError as e:
                err.print(f"[yellow]{framework} {r.version}: no declared support read in "
                          f"{reader or 'the CPU image'}:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
            if before:
                break  # the CPU image's table is there already


def _prune(framework: str) -> None:
    """Delete the cached venvs of sweep profiles (<image>-<framework>-<version>-<hash>)."""
    removed, kept, freed = [], [], 0
    for venv in sorted(local.cache_dir().glob(f"*-{framework}-*")):
        stem, _, digest = venv.name.rpartition("-")
        profile = stem[stem.find(f"-{framework}-") + 1:]
        if not venv.is_dir() or not re.fullmatch(r"[0-9a-f]+", digest) or \
                releases.release_of_profile(profile, framework) is None:
            continue
        size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file() and not f.is_symlink())
        if local.remove_venv(venv):
            removed.append(venv.name)
            freed += size
        else:
            kept.append(venv.name)
    console.print(f"pruned {len(removed)} {framework} release environments ({freed / 2**30:.1f} GiB)"
                  + (f"; in use, kept: {', '.join(kept)}" if kept else ""))
