"""The commands that run cells: `runner bench` (one image), `runner matrix` (every cell of matrix.toml) and
`runner census` (a framework's whole op database as one cell), here or on a Ray cluster's nodes, and the
tables they print as the cells finish."""
from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path
from typing import List, Optional

import typer
from portability_harness.protocol import COMPILERS, FRAMEWORKS, MODES, TPU_DTYPES
from portability_harness.records import store
from rich.markup import escape
from rich.table import Table

from runner import engine, estimate, images, view
from runner import lanes as lanes_
from runner.cell import Cell
from runner.commands.dry_run import dry_run_table
from runner.commands.shared import (BACKEND_HELP, CURATED_HELP, ENV_HELP, budget_option, checked_budget, console,
                                   err)
from runner.errors import Stopped, UserError
from runner.plan import Options, plan
from runner.progress import CellProgress, ClusterProgress, LaneProgress
from runner.project import Project, checkout
from runner.rundir import RunDir


def _display(cell: Cell, repeat: int, index: int, total: int, left: estimate.Left,
             lane: int) -> CellProgress | LaneProgress:
    label = cell.label + (f" repeat {repeat}/{cell.planned}" if cell.planned > 1 else "")
    if lane:
        return LaneProgress(console, label, lane)
    return CellProgress(console, label, overall=(index, total) if total > 1 else None, left=left)


def _cell_table(path: Path) -> Table:
    """A results file's functions: verdict (forward cases), backward verdict, forward cases, failures, warm median."""
    contents = store.read(str(path))
    header = contents.header or {}
    title = f"{header.get('framework', '?')} {header.get('framework_version', '')} on {header.get('device', '?')}"
    t = Table(title=f"{title} ({header.get('device_model', '')})",
              caption="; ".join([str(path), *contents.problems()]))
    for col in ("function", "verdict", "backward", "cases", "failed", "warm median"):
        t.add_column(col, justify="right" if col in ("cases", "failed", "warm median") else "left")
    for r in view.function_rows(contents.cases):
        back = f"[{_STYLE.get(r.backward, 'white')}]{r.backward}[/]" if r.backward else "-"
        t.add_row(r.function, f"[{_STYLE.get(r.verdict, 'white')}]{r.verdict}[/]", back, str(r.cases), str(r.failed),
                  view.format_seconds(r.warm_median_s))
    return t


_STYLE = {"pass": "green", "fallback": "cyan", "partial": "yellow", "complete": "red", "skipped": "dim", "missing": "magenta",
          "not_applicable": "dim", "case_error": "bold red", "cut short": "yellow", "interrupted": "yellow"}
_CELL_STYLE = {"done": "green", "cut_short": "yellow", "failed": "red", "incompatible": "magenta", "not_run": "dim",
               "excluded": "dim", "running": "yellow", "pending": "yellow"}


def _summary_table(merged: dict) -> Table:
    t = Table(title=f"run {merged['run_id']}", caption="runs: result files; verdicts count every run's cases")
    for col in view.CELL_COLUMNS:
        t.add_column(col, overflow="fold", ratio=3 if col == "reason" else 1)
    for r in view.cell_rows(merged):
        values = [escape(v) for v in view.cell_values(r)]  # reasons quote pip and the frameworks: no markup
        values[2] = f"[{_CELL_STYLE.get(r.status, 'white')}]{values[2]}[/]"
        t.add_row(*values)
    return t


def resume_command(rundir: RunDir) -> str:
    """The command line that continues this run: the one given, with --resume and --out RUNDIR."""
    args, skip = [], False
    for a in sys.argv[1:]:
        if skip:
            skip = False
        elif a == "--out":
            skip = True
        elif a != "--resume" and not a.startswith("--out="):
            args.append(a)
    return shlex.join(["runner", *args, "--resume", "--out", str(rundir.path)])


def _run(project: Project, cells: list[Cell], out: Optional[Path], resume: bool, address: Optional[str] = None,
         cell_table=_cell_table, after: engine.After = engine.ignore, lanes: int = 1,
         beside: Optional[bool] = None) -> None:
    """Run the cells here (engine.py) or, given a cluster's address, on its nodes (ray_engine.py); then print
    each results file with `cell_table` and the summary. `after` is told of each cell that ended here."""
    rundir = RunDir(out) if out else RunDir.new(project.root / "results")
    several = len(cells) > 1  # one cell's failure is the command's error line; a matrix reports each and goes on

    def on_error(c: Cell, e: str) -> None:
        if several:
            err.print(f"[red]{c.key} failed:[/] {escape(e)}", highlight=False, soft_wrap=True)

    try:
        if address is None:
            merged = engine.run(project, cells, rundir, resume, _display, on_error,
                                ahead=lambda message: console.print(f"[dim]{escape(message)}", highlight=False),
                                after=after, lanes=lanes, cached_beside=beside)
        else:
            from runner import ray_engine

            merged = ray_engine.run(project, cells, rundir, resume, address,
                                    lambda total: ClusterProgress(console, total), on_error)
    except Stopped as e:
        err.print(f"[yellow]stopped ({signal.Signals(e.signum).name}):[/] every finished case is kept in {rundir.path}; "
                  f"continue with: {escape(resume_command(rundir))}", highlight=False, soft_wrap=True)
        raise typer.Exit(128 + e.signum)
    for path in rundir.result_files():
        console.print(cell_table(path))
    console.print(_summary_table(merged))
    rows = view.cell_rows(merged)
    if any(r.quick for r in rows):
        console.print(f"[yellow]{view.QUICK}", highlight=False)
    for line in ([view.CUT_SHORT.replace("`", "")] if view.cut_short(rows) else []) + view.cut_short(rows):
        console.print(f"[yellow]{escape(line)}", highlight=False, soft_wrap=True)
    console.print(f"merged results: {rundir.path / RunDir.MERGED}\nsummary: {rundir.path / RunDir.SUMMARY}")
    failed = [c for c in merged["cells"] if c["status"] == "failed"]
    # An incompatible cell is a verdict (the build cannot run on this device), a result like a done one; so is the
    # part of a cell a quick run's budget let it measure.
    if not any(c["status"] in ("done", "incompatible", "cut_short") for c in merged["cells"]):
        raise UserError(failed[0]["reason"] if len(failed) == 1 else "no cell could run; see the reasons above", code=3)
    if failed:  # the last line and the exit status say it, so that no one takes the run for a complete one
        err.print(f"[red]finished with {escape(view.failed_cells(merged))}[/] (reasons above and in merged.json)",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(FAILED_CELLS)


FAILED_CELLS = 1  # the exit status of a run that finished with failed cells


def _image_help() -> str:
    """The images of the checkout the command runs in, so that `bench --help` lists them."""
    root = checkout()
    names = images.available(root / "images") if root else []
    return f"an image folder under images/: {', '.join(names)}" if names else "an image folder under images/"


_IMAGE_HELP = _image_help()
_ENGINES = ("local", "ray")
_ENGINE_HELP = "local (this host runs the cells, one after another) or ray (the nodes of a Ray cluster do)"
_ADDRESS_HELP = "--engine ray: the head node's HOST:PORT (default: $RAY_ADDRESS)"


def _engine_address(engine_name: str, address: Optional[str]) -> Optional[str]:
    """The cluster's address for --engine ray (None for local), or one line saying what is missing."""
    if engine_name not in _ENGINES:
        raise UserError(f"unknown --engine {engine_name!r}; choose one of {', '.join(_ENGINES)}")
    if engine_name == "local":
        if address:
            raise UserError("--address is for --engine ray; add --engine ray or leave --address out")
        return None
    from runner import ray_engine

    ray_engine.ray_module()  # installed, or one line saying how to install it
    address = address or os.environ.get("RAY_ADDRESS")
    if not address:
        raise UserError("--engine ray needs the cluster's --address HOST:PORT (or RAY_ADDRESS); `ray up "
                        "cluster/gcp.yaml` prints it")
    return address


_TPU_DTYPES_HELP = ("the TPU model's dtype rules (xla-cpu cells): current, or 2023 (float64 held as float32 and "
                    "complex128 as complex64, as torch_xla did on a TPU then)  [default: matrix.toml's tpu_dtypes]")


def bench(
    image: str = typer.Option(..., help=_IMAGE_HELP),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    mode: Optional[str] = typer.Option(None, help="steady (warm-up, samples until precise) or paper (the 2023 "
                                       "method: one call)  [default: matrix.toml's mode]"),
    compiler: str = typer.Option("eager", help="eager (the call as written) or compiled (jax.jit, "
                                 "tf.function(jit_compile=True), torch.compile)"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    budget: Optional[float] = budget_option(),
    tpu_dtypes: Optional[str] = typer.Option(None, help=_TPU_DTYPES_HELP),
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    repeats: int = typer.Option(1, help="run the cell this many times"),
    resume: bool = typer.Option(False, help="continue a killed run in the same --out"),
    backend: str = typer.Option("auto", help=BACKEND_HELP),
    env_names: Optional[List[str]] = typer.Option(None, "--env", help=ENV_HELP),
    base: Optional[str] = typer.Option(None, help="docker: the base image to build on (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    curated: Optional[Path] = typer.Option(None, help=CURATED_HELP),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Run one image's curated cases on its device; write <out>/<image>-<profile>.jsonl and merged.json."""
    if mode not in (None, *MODES):
        raise UserError(f"unknown --mode {mode!r}; choose steady or paper")
    compilers = _compilers(compiler, both=False)
    address = _engine_address(engine_name, address)
    project = Project.find(matrix_file, curated)
    spec = project.image(image)
    patterns = tuple(functions or ())
    for pattern in patterns:
        if pattern not in project.matching(spec.framework, (pattern,)):
            raise UserError(f"--functions {pattern!r} matches no curated {spec.framework} function; "
                            f"see `runner list --framework {spec.framework}`")
    (cell,) = plan(project, Options(profiles=(profile,), images=(image,), engine=engine_name, backend=backend,
                                    functions=patterns, quick=quick, budget_s=checked_budget(budget),
                                    mode=mode, timeout_s=timeout, repeats=repeats,
                                    base=base, extra_env=tuple(env_names or ()), compilers=compilers,
                                    tpu_dtypes=_tpu_dtypes(tpu_dtypes)))
    if address is not None:
        from runner import ray_engine

        (cell,) = ray_engine.plan_on(address, [cell])
    if not cell.runnable:
        raise UserError(f"{cell.label} cannot run {'on the cluster' if address else 'here'}: {cell.reason}", code=3)
    _run(project, [cell], out, resume, address)


def run_matrix(
    profile: Optional[List[str]] = typer.Option(None, "--profile", help="profiles to run (default: matrix.toml's)"),
    backend: str = typer.Option("auto", help=BACKEND_HELP),
    env_names: Optional[List[str]] = typer.Option(None, "--env", help=ENV_HELP),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    budget: Optional[float] = budget_option(),
    compiler: Optional[str] = typer.Option(None, help="eager, compiled or all (a cell each)  [default: "
                                           "matrix.toml's compiler]"),
    repeats: Optional[int] = typer.Option(None, help="repeats per cell (default: matrix.toml's)"),
    tpu_dtypes: Optional[str] = typer.Option(None, help=_TPU_DTYPES_HELP),
    include: Optional[List[str]] = typer.Option(None, help="an image beyond frameworks x devices to run too, beside "
                                                "matrix.toml's include; repeatable"),
    skip: Optional[List[str]] = typer.Option(None, help="an image to leave out of this run (e.g. torch-xla-cpu, "
                                             "hours on a small CPU); repeatable"),
    base: Optional[str] = typer.Option(None, help="docker: the base image of every cell (e.g. an offline one)"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    resume: bool = typer.Option(False, help="continue a killed matrix run in the same --out"),
    dry_run: bool = typer.Option(False, "--dry-run", help="list the cells, their backend and why any cannot run"),
    lanes: Optional[int] = typer.Option(None, help="run verdict cells (the TPU model's xla-cpu cells, a census) "
                                        "beside the timing cells in this many lanes of CPUs  [default: 2, or 1 on a "
                                        "single CPU]"),
    cached_beside: Optional[bool] = typer.Option(None, "--cached-beside/--no-cached-beside", help="run every "
                                                 "compiled CPU cell's cached repeats in a side lane, or no later "
                                                 "repeat there  [default: those that end the run sooner, then eager "
                                                 "CPU cells' later repeats where they end it a minute sooner]"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    curated: Optional[Path] = typer.Option(None, help=CURATED_HELP),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Run every cell of matrix.toml this host (or the cluster) can; merge into <out>/merged.json."""
    address = _engine_address(engine_name, address)
    project = Project.find(matrix_file, curated)
    project.matrix.include = [*project.matrix.include, *(include or ())]  # unknown names: cell_images' one line
    project.matrix.skip = list(skip or ())
    cells = plan(project, Options(profiles=tuple(profile or ()), engine=engine_name, backend=backend,
                                  functions=tuple(functions or ()), quick=quick, repeats=repeats, base=base,
                                  budget_s=checked_budget(budget),
                                  extra_env=tuple(env_names or ()), compilers=_compilers(compiler, both=True),
                                  tpu_dtypes=_tpu_dtypes(tpu_dtypes)))
    lanes_count = lanes_.default_lanes(len(lanes_.available_cpus())) if lanes is None else lanes
    lanes_.split(lanes_.available_cpus(), lanes_count)  # a lane count this host cannot give: one line, before anything
    if dry_run:
        if address is not None:
            from runner import ray_engine

            cells = ray_engine.plan_on(address, cells)
        console.print(dry_run_table(project, cells, lanes_count, cached_beside, address))
        return
    _run(project, cells, out, resume, address, lanes=lanes_count, beside=cached_beside)


def _tpu_dtypes(value: Optional[str]) -> Optional[str]:
    if value is not None and value not in TPU_DTYPES:
        raise UserError(f"unknown --tpu-dtypes {value!r}; choose one of {', '.join(TPU_DTYPES)}")
    return value


def _compilers(value: Optional[str], both: bool) -> tuple[str, ...]:
    """--compiler: one of COMPILERS, or (for a matrix) all of them; None leaves it to matrix.toml."""
    if value is None:
        return ()
    if both and value == "all":
        return COMPILERS
    if value not in COMPILERS:
        raise UserError(f"unknown --compiler {value!r}; choose " + ", ".join(COMPILERS + (("all",) if both else ())))
    return (value,)


def _census_table(path: Path) -> Table:
    """A census results file: its database, pairs, samples and the support map's counts."""
    from runner import census

    contents = store.read(str(path))
    header = contents.header or {}
    db = header.get("database") or {}
    s = census.summary(contents.cases, header.get("device", ""))
    t = Table(title=f"census of {header.get('framework', '?')} {header.get('framework_version', '')} on "
                    f"{header.get('device', '?')}: {db.get('name', '?')} ({db.get('module', '')})",
              caption="; ".join([str(path), *contents.problems()]))
    t.add_column("what")
    t.add_column("count", justify="right")
    for key in ("ops", "pairs", "declared pairs", "samples", "samples run", "samples failed", "samples rejected"):
        t.add_row(key, f"{s[key]:,}")
    for key in census.STATUSES:
        if s["statuses"].get(key):
            t.add_row(key, f"{s['statuses'][key]:,}")
    for key, n in sorted(s["categories"].items()):
        t.add_row(f"failed: {key}", f"{n:,}")
    for key, n in sorted(s["skipped"].items()):
        t.add_row(f"no input ({key})", f"{n:,}")
    return t


def run_census(
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    image: Optional[str] = typer.Option(None, help="the environment (and so the device) to run it in (default: the "
                                                   "framework's CPU image)"),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    ops: Optional[List[str]] = typer.Option(None, "--ops", help="glob over the database's op names (op, or "
                                            "op.variant); repeatable (default: all)"),
    dtypes: Optional[List[str]] = typer.Option(None, "--dtypes", help="dtypes to run, e.g. float32 (repeatable or "
                                               "comma-separated; default: all)"),
    undeclared: bool = typer.Option(False, help="also try the dtypes the device does not declare"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    quick: bool = typer.Option(False, help="few warm samples for the timed sample: checks, not for latency results"),
    budget: Optional[float] = budget_option(),
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    resume: bool = typer.Option(False, help="continue a killed census in the same --out"),
    backend: str = typer.Option("auto", help=BACKEND_HELP),
    env_names: Optional[List[str]] = typer.Option(None, "--env", help=ENV_HELP),
    base: Optional[str] = typer.Option(None, help="docker: the base image to build on (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Every op and dtype the framework's own test database knows (PyTorch's OpInfos, JAX's primitive harnesses,
    TensorFlow's kernel registry), run as one cell on the image's device; writes
    <out>/<image>-<profile>-census.jsonl and merged.json."""
    from portability_harness.declared.dtypes import CANONICAL

    if framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    names = tuple(d.strip() for given in (dtypes or ()) for d in given.split(",") if d.strip())
    unknown = [d for d in names if d not in CANONICAL]
    if unknown:
        raise UserError(f"--dtypes {', '.join(unknown)}: not a dtype name; use {', '.join(CANONICAL)}")
    address = _engine_address(engine_name, address)
    project = Project.find(matrix_file)
    spec = project.framework_image(framework, image)
    (cell,) = plan(project, Options(profiles=(profile,), images=(spec.name,), engine=engine_name, backend=backend,
                                    quick=quick, budget_s=checked_budget(budget), timeout_s=timeout, repeats=1,
                                    base=base, task="census",
                                    census_ops=tuple(ops or ()), census_dtypes=names, census_undeclared=undeclared,
                                    extra_env=tuple(env_names or ()), compilers=("eager",)))
    if address is not None:
        from runner import ray_engine

        (cell,) = ray_engine.plan_on(address, [cell])
    if not cell.runnable:
        raise UserError(f"{cell.label} cannot run {'on the cluster' if address else 'here'}: {cell.reason}", code=3)
    _run(project, [cell], out, resume, address, cell_table=_census_table)
