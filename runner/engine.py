"""Runs planned cells into a RunDir, one after another on this host (never side by side: a neighbour would
disturb the timings). Each repeat's harness is started by runner.scheduler, which owns what starts when (the
environments built ahead, the next repeat on standby, the compilers' caches); this records each cell's state; a
cell that fails is recorded and the run goes on with the next. A signal
(errors.Stopped) ends the harness in flight, which records its case as interrupted; the cell and the run
are marked interrupted and --resume continues them.
"""
from __future__ import annotations

import time
from contextlib import AbstractContextManager, closing
from typing import Callable, Protocol

from portability_harness.protocol import Event

from runner.backends.base import CellIncompatible
from runner.cell import Cell
from runner.errors import Stopped, UserError
from runner.project import Project
from runner.rundir import CellState, RunDir
from runner.scheduler import Scheduler


class Display(Protocol):
    """The live view of one cell repeat: takes its events and log lines."""

    def __call__(self, event: Event) -> None: ...

    def log(self, message: str) -> None: ...


# display(cell, repeat, index, total, remaining_s) -> a context manager giving the Display of that repeat;
# remaining_s: what the run is expected to take from the repeat's start on (runner.estimate)
DisplayFactory = Callable[[Cell, int, int, int, float], AbstractContextManager]
# after(cell, states): a cell ended; every cell's state as it stands
After = Callable[[Cell, list[CellState]], None]


def ignore(cell: Cell, states: list[CellState]) -> None:
    pass


def run(project: Project, cells: list[Cell], rundir: RunDir, resume: bool, display: DisplayFactory,
        on_error: Callable[[Cell, str], None] = lambda c, e: None,
        ahead: Callable[[str], None] = lambda message: None,
        after: After = ignore) -> dict:
    """Run the runnable cells of the plan; returns merged.json's record as it stands at the end. The later cells'
    environments are built while the first ones run (runner.scheduler), telling `ahead` how that goes; `after`
    is told of each cell that ended (done, failed or incompatible; not one a stop interrupted), with every
    cell's state."""
    with rundir.running(cells, resume) as run:
        with Scheduler(project, rundir, [s.cell for s in run.todo], ahead) as scheduler:
            _run_cells(scheduler, run.todo, run, rundir, display, on_error, after)
    return run.merged


def _run_cells(scheduler: Scheduler, todo: list[CellState], run, rundir: RunDir, display: DisplayFactory,
               on_error: Callable[[Cell, str], None], after: After) -> None:
    for index, state in enumerate(todo, 1):
        state.status, state.reason = "running", None
        state.expected_s, state.wall_s = scheduler.expected_s(state.cell), None
        rundir.save(run.states)
        started = time.monotonic()
        try:
            run_cell(scheduler, state, rundir, lambda repeat, begun: display(
                state.cell, repeat, index, len(todo), scheduler.remaining_s(state.cell, begun)))
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
            state.wall_s = round(time.monotonic() - started, 1)
            rundir.save(run.states)
            rundir.publish(run.states)
        after(state.cell, run.states)


def run_cell(scheduler: Scheduler, state: CellState, rundir: RunDir,
             display: Callable[[int, int], AbstractContextManager]) -> None:
    """Every repeat of one cell that has not finished in this folder yet, as the scheduler starts them; `display`
    (repeat, repeats begun before it in this run) gives each one's live view."""
    cell = state.cell
    for repeat in range(1, cell.repeats + 1):
        name = rundir.results_file(cell, repeat).name
        if name not in state.files:
            state.files.append(name)
    with scheduler.cell(cell) as repeats:
        for begun, (repeat, out) in enumerate(repeats):
            with display(repeat, begun) as d:
                # closing(): on a signal the harness is stopped at once and records its case as interrupted.
                with closing(repeats.events(repeat, out, d.log)) as events:
                    for event in events:
                        d(event)
