"""Runs planned cells into a RunDir, one after another on this host (never side by side: a neighbour would
disturb the timings). Each cell's environment is prepared by its backend once, then each repeat runs the
harness on its own config, the next repeat's worker starting up ahead while one runs (runner.ahead); a cell
that fails is recorded and the run goes on with the next. A signal
(errors.Stopped) ends the harness in flight, which records its case as interrupted; the cell and the run
are marked interrupted and --resume continues them.
"""
from __future__ import annotations

from contextlib import AbstractContextManager, closing
from typing import Callable, Optional, Protocol

from portability_harness.protocol import Event, Plan

from runner import backends
from runner.ahead import Ahead, config, pending
from runner.backends.base import CellIncompatible
from runner.cell import Cell
from runner.errors import Stopped, UserError
from runner.prefetch import Prefetch
from runner.project import Project
from runner.rundir import CellState, RunDir


class Display(Protocol):
    """The live view of one cell repeat: takes its events and log lines."""

    def __call__(self, event: Event) -> None: ...

    def log(self, message: str) -> None: ...


# display(cell, repeat, index, total) -> a context manager giving the Display of that repeat
DisplayFactory = Callable[[Cell, int, int, int], AbstractContextManager]
# after(cell, states): a cell ended; every cell's state as it stands
After = Callable[[Cell, list[CellState]], None]


def ignore(cell: Cell, states: list[CellState]) -> None:
    pass


def run(project: Project, cells: list[Cell], rundir: RunDir, resume: bool, display: DisplayFactory,
        on_error: Callable[[Cell, str], None] = lambda c, e: None,
        ahead: Callable[[str], None] = lambda message: None,
        after: After = ignore) -> dict:
    """Run the runnable cells of the plan; returns merged.json's record as it stands at the end. The later cells'
    environments are built while the first ones run (runner.prefetch), telling `ahead` how that goes; `after`
    is told of each cell that ended (done, failed or incompatible; not one a stop interrupted), with every
    cell's state."""
    with rundir.running(cells, resume) as run:
        todo = run.todo
        with Prefetch(project, [s.cell for s in todo[1:]], rundir, ahead):
            _run_cells(project, todo, run, rundir, display, on_error, after)
    return run.merged


def _run_cells(project: Project, todo: list[CellState], run, rundir: RunDir, display: DisplayFactory,
               on_error: Callable[[Cell, str], None], after: After) -> None:
    ahead = Ahead(project, rundir)
    try:
        for index, state in enumerate(todo, 1):
            state.status, state.reason = "running", None
            rundir.save(run.states)
            following = todo[index].cell if index < len(todo) else None
            try:
                run_cell(project, state, rundir, lambda repeat: display(state.cell, repeat, index, len(todo)), ahead,
                         following)
                state.status, state.reason = rundir.ended(state)
            except CellIncompatible as e:  # a verdict on the set-up: no case ran, and none will on --resume
                state.status, state.reason = "incompatible", str(e)
                state.files = [f for f in state.files if (rundir.path / f).exists()]  # none was written
            except UserError as e:  # one failed cell is recorded; the run goes on
                state.status, state.reason = "failed", str(e)
                on_error(state.cell, str(e))
            except Stopped:
                state.status, state.reason = "interrupted", "the run was stopped while this cell ran"
                raise
            finally:
                rundir.save(run.states)
                rundir.publish(run.states)
            after(state.cell, run.states)
    finally:
        ahead.close()


def run_cell(project: Project, state: CellState, rundir: RunDir, display: Callable[[int], AbstractContextManager],
             ahead: Ahead, following: Optional[Cell] = None) -> None:
    """Every repeat of one cell that has not finished in this folder yet. Once a repeat's cases run, the repeat
    after it (this cell's next, or the first of `following`) is started ahead (runner.ahead)."""
    cell = state.cell
    backend = backends.get(cell.backend, project, cell.extra_env)
    for repeat in range(1, cell.repeats + 1):
        name = rundir.results_file(cell, repeat).name
        if name not in state.files:
            state.files.append(name)
    todo = pending(rundir, cell)
    environment = ahead.environment(cell)
    try:
        for index, (repeat, out) in enumerate(todo):
            with display(repeat) as d:
                environment = environment or backend.prepare(cell, d.log, rundir.install_log(cell))
                standby = ahead.take(cell, repeat)
                run = standby.events() if standby else environment.run(config(project, rundir, cell, environment,
                                                                               repeat, out))
                # closing(): on a signal the harness is stopped at once and records its case as interrupted.
                with closing(run) as events:
                    for event in events:
                        d(event)
                        if isinstance(event, Plan) and index + 1 < len(todo):
                            ahead.start(cell, environment, *todo[index + 1])
                        elif isinstance(event, Plan) and following is not None:
                            ahead.start_next(following)
    finally:
        ahead.drop(cell)  # this cell's next repeat, where this one failed or was stopped
        if environment is not None:
            environment.close()
