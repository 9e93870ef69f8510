"""`runner`: the host command. Thin: parses options and calls the library (project, plan, engine, report)."""
from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path
from typing import List, Optional

import typer
from portability_harness.protocol import FRAMEWORKS, MODES
from portability_harness.records import store
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from runner import engine, images, view
from runner.errors import Stopped, UserError
from runner.plan import Cell, Options, plan
from runner.progress import CellProgress, ClusterProgress
from runner.project import Project, checkout
from runner.rundir import RunDir

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Measure which functions of TensorFlow, PyTorch and JAX run on which device, and how fast.")
# Rich folds tables to 80 columns when stdout is not a terminal, which breaks function names apart in
# a redirected `runner compare > file`; a set COLUMNS still decides.
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
err = Console(stderr=True)


def _display(cell: Cell, repeat: int, index: int, total: int) -> CellProgress:
    label = cell.label + (f" repeat {repeat}/{cell.repeats}" if cell.repeats > 1 else "")
    return CellProgress(console, label, overall=(index, total) if total > 1 else None)


def _cell_table(path: Path) -> Table:
    """A results file's functions: verdict, cases, failures and warm median."""
    contents = store.read(str(path))
    header = contents.header or {}
    title = f"{header.get('framework', '?')} {header.get('framework_version', '')} on {header.get('device', '?')}"
    t = Table(title=f"{title} ({header.get('device_model', '')})",
              caption="; ".join([str(path), *contents.problems()]))
    for col in ("function", "verdict", "cases", "failed", "warm median"):
        t.add_column(col, justify="right" if col in ("cases", "failed", "warm median") else "left")
    for r in view.function_rows(contents.cases):
        t.add_row(r.function, f"[{_STYLE[r.verdict]}]{r.verdict}[/]", str(r.cases), str(r.failed),
                  view.format_seconds(r.warm_median_s))
    return t


_STYLE = {"pass": "green", "partial": "yellow", "complete": "red", "skipped": "dim", "missing": "magenta",
          "case_error": "bold red"}
_CELL_STYLE = {"done": "green", "failed": "red", "not_run": "dim", "excluded": "dim", "running": "yellow",
               "pending": "yellow"}


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
         cell_table=_cell_table) -> None:
    """Run the cells here (engine.py) or, given a cluster's address, on its nodes (ray_engine.py); then print
    each results file with `cell_table` and the summary."""
    rundir = RunDir(out) if out else RunDir.new(project.root / "results")
    several = len(cells) > 1  # one cell's failure is the command's error line; a matrix reports each and goes on

    def on_error(c: Cell, e: str) -> None:
        if several:
            err.print(f"[red]{c.key} failed:[/] {escape(e)}", highlight=False, soft_wrap=True)

    try:
        if address is None:
            merged = engine.run(project, cells, rundir, resume, _display, on_error)
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
    if any(r.quick for r in view.cell_rows(merged)):
        console.print(f"[yellow]{view.QUICK}", highlight=False)
    console.print(f"merged results: {rundir.path / RunDir.MERGED}\nsummary: {rundir.path / RunDir.SUMMARY}")
    failed = [c for c in merged["cells"] if c["status"] == "failed"]
    if not any(c["status"] == "done" for c in merged["cells"]):
        raise UserError(failed[0]["reason"] if len(failed) == 1 else "no cell could run; see the reasons above", code=3)
    if failed:  # the last line and the exit status say it, so that no one takes the run for a complete one
        err.print(f"[red]finished with {escape(view.failed_cells(merged))}[/] (reasons above and in merged.json)",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(FAILED_CELLS)


FAILED_CELLS = 1  # the exit status of a run that finished with failed cells
_BACKEND_HELP = "docker, local (a venv from the image spec) or auto (docker when an engine answers)"


def _image_help() -> str:
    """The images of the checkout the command runs in, so that `bench --help` lists them."""
    root = checkout()
    names = images.available(root / "images") if root else []
    return f"an image folder under images/: {', '.join(names)}" if names else "an image folder under images/"


_IMAGE_HELP = _image_help()
_CURATED_HELP = ("a folder of curated modules (<folder>/<framework>/test_*.py) instead of the checkout's curated/ "
                 "(default: $RUNNER_CURATED)")
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


@app.command()
def bench(
    image: str = typer.Option(..., help=_IMAGE_HELP),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    functions: Optional[List[str]] = typer.Option(None, "--functions", help="glob over sampled names; repeatable"),
    out: Optional[Path] = typer.Option(None, help="results folder (default results/<run-id>)"),
    mode: Optional[str] = typer.Option(None, help="steady (warm-up, samples until precise) or paper (the 2023 "
                                       "method: one call)  [default: matrix.toml's mode]"),
    quick: bool = typer.Option(False, help="few warm samples: checks cases, not for results"),
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    repeats: int = typer.Option(1, help="run the cell this many times"),
    resume: bool = typer.Option(False, help="continue a killed run in the same --out"),
    backend: str = typer.Option("auto", help=_BACKEND_HELP),
    base: Optional[str] = typer.Option(None, help="docker: the base image to build on (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    curated: Optional[Path] = typer.Option(None, help=_CURATED_HELP),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Run one image's curated cases on its device; write <out>/<framework>-<device>-<profile>.jsonl and merged.json."""
    if mode not in (None, *MODES):
        raise UserError(f"unknown --mode {mode!r}; choose steady or paper")
    address = _engine_address(engine_name, address)
    project = Project.find(matrix_file, curated)
    spec = project.image(image)
    patterns = tuple(functions or ())
    for pattern in patterns:
        if pattern not in project.matching(spec.framework, (pattern,)):
            raise UserError(f"--functions {pattern!r} matches no curated {spec.framework} function; "
                            f"see `runner list --framework {spec.framework}`")
    (cell,) = plan(project, Options(profiles=(profile,), images=(image,), engine=engine_name, backend=backend,
                                    functions=patterns, quick=quick, mode=mode, timeout_s=timeout, repeats=repeats,
                                    base=base))
    if address is not None:
        from runner import ray_engine

        (cell,) = ray_engine.plan_on(address, [cell])
    if not cell.runnable:
        raise UserError(f"{cell.label} cannot run {'on the cluster' if address else 'here'}: {cell.reason}", code=3)
    _run(project, [cell], out, resume, address)


@app.command("list")
def list_functions(framework: Optional[str] = typer.Option(None, help="torch, tensorflow or jax"),
                   curated: Optional[Path] = typer.Option(None, help=_CURATED_HELP)) -> None:
    """List the curated functions: the study's sample with its usage decile and top-20 flag, and your own."""
    if framework is not None and framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    found = [f for f in Project.find(curated=curated).catalog if framework in (None, f.framework)]
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


@app.command("new")
def new_module(
    function: str = typer.Argument(..., help="the function's public name, e.g. jax.nn.softmax"),
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    curated: Optional[Path] = typer.Option(None, help=_CURATED_HELP),
) -> None:
    """Write a first curated module for a function of your own: the marker, the fixtures, cases to adapt."""
    from runner.scaffold import write_module

    project = Project.find(curated=curated)
    path = write_module(project.curated_dir, framework, function)
    console.print(f"wrote {path}\nnext: adapt its TODOs, then `runner bench --image <{framework} image> "
                  f"--functions {function}`" + (f" --curated {curated}" if curated else ""), highlight=False)


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
    curated: Optional[Path] = typer.Option(None, help=_CURATED_HELP),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Run every cell of matrix.toml this host (or the cluster) can; merge into <out>/merged.json."""
    address = _engine_address(engine_name, address)
    project = Project.find(matrix_file, curated)
    cells = plan(project, Options(profiles=tuple(profile or ()), engine=engine_name, backend=backend,
                                  functions=tuple(functions or ()), quick=quick, repeats=repeats, base=base))
    if dry_run:
        if address is not None:
            from runner import ray_engine

            cells = ray_engine.plan_on(address, cells)
        t = Table(title=f"{len(cells)} cells" + (f" on the Ray cluster at {address}" if address else ""))
        for col in ("image", "profile", "device", "needs" if address else "backend", "repeats", "will", "reason"):
            t.add_column(col, overflow="fold")
        for c in cells:
            where = f"a node with cell:{c.device}" if address else c.backend
            t.add_row(c.name, c.profile.name, c.device, where, str(c.repeats),
                      "run" if c.runnable else c.initial_status, c.reason or "")
        console.print(t)
        return
    _run(project, cells, out, resume, address)


@app.command("declared")
def declared_support(
    framework: str = typer.Option(..., help="torch, tensorflow or jax"),
    profile: str = typer.Option("current", help="a version profile of matrix.toml"),
    image: Optional[str] = typer.Option(None, help="the environment to read it in (default: the framework's CPU "
                                                   "image)"),
    backend: str = typer.Option("auto", help=_BACKEND_HELP),
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


@app.command("census")
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
    timeout: Optional[float] = typer.Option(None, help="per-case timeout in seconds (default: matrix.toml's)"),
    resume: bool = typer.Option(False, help="continue a killed census in the same --out"),
    backend: str = typer.Option("auto", help=_BACKEND_HELP),
    base: Optional[str] = typer.Option(None, help="docker: the base image to build on (e.g. an offline one)"),
    matrix_file: Optional[Path] = typer.Option(None, "--matrix", help="another matrix.toml"),
    engine_name: str = typer.Option("local", "--engine", help=_ENGINE_HELP),
    address: Optional[str] = typer.Option(None, help=_ADDRESS_HELP),
) -> None:
    """Every op and dtype the framework's own test database knows (PyTorch's OpInfos, JAX's primitive harnesses,
    TensorFlow's kernel registry), run as one cell on the image's device; writes
    <out>/<framework>-<device>-<profile>-census.jsonl and merged.json."""
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
                                    quick=quick, timeout_s=timeout, repeats=1, base=base, task="census",
                                    census_ops=tuple(ops or ()), census_dtypes=names, census_undeclared=undeclared))
    if address is not None:
        from runner import ray_engine

        (cell,) = ray_engine.plan_on(address, [cell])
    if not cell.runnable:
        raise UserError(f"{cell.label} cannot run {'on the cluster' if address else 'here'}: {cell.reason}", code=3)
    _run(project, [cell], out, resume, address, cell_table=_census_table)


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
    paths = results or [RunDir.latest((root or Path.cwd()) / "results").path]
    r = load.load(paths, curated_root=root / "curated" if root else None)
    target = out or (paths[0] if paths[0].is_dir() else paths[0].parent)
    md, html, figures = render.write(r, target)
    for note in r.notes:
        err.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
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
        quick = [str(path) for path, res in ((run_a, a), (run_b, other)) if res.quick]
        if quick:
            # A quick pass takes too few samples for a latency verdict; two quick runs once "confirmed" 14 changes.
            notes.append(f"{' and '.join(quick)} measured with --quick: latency is not compared (too few samples "
                         "for a verdict); rerun without --quick to compare latency")
        else:
            console.print(render.rich(c.latency_summary(), "Latency: functions slower or faster on b by more than "
                                      "1.1x, confirmed by the samples"))
            shown = c.latency if all_functions else c.latency[c.latency["change"] != "no change"]
            if not shown.empty:
                console.print(render.rich(shown.sort_values("ratio", ascending=False), "Latency per function (b / a)"))
    for note in notes:
        err.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)


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

    project = Project.find(matrix_file)
    c = docker_engine.client()
    cells = plan(project, Options(profiles=tuple(profile or ()), images=tuple(image or ()), backend="docker",
                                  base=base))
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


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


def main() -> None:
    # Ctrl-C and a SIGTERM stop a run the same way: what is in flight is recorded as interrupted.
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        app()
    except UserError as e:
        err.print(f"[red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
        sys.exit(e.code)
    except Stopped as e:  # outside a run: nothing to keep
        sys.exit(128 + e.signum)
    except OSError as e:  # a file-system failure not foreseen above: still one line, no traceback
        err.print(f"[red]error:[/] {escape(str(e.filename or ''))}: {escape(str(e.strerror or e))}", highlight=False,
                  soft_wrap=True)
        sys.exit(4)


if __name__ == "__main__":
    main()
