"""Runs planned cells into a RunDir on this host: the timing cells one after another (never two on the same CPUs:
a neighbour there would disturb the timings), and with lanes the verdict cells (and the CPU cells' later repeats the
arrangement moves) beside them on CPUs of their own (runner.lanes). Each repeat's harness is started by
runner.scheduler, which owns what starts when (the environments built ahead, the next repeat on standby, the
compilers' caches, the lanes); this records each cell's state and wall; a cell that fails is recorded and the run
goes on with the next.
A signal (errors.Stopped) ends the harness in flight, which records its case as interrupted; the cell and the run
are marked interrupted and --resume continues them.
"""
from __future__ import annotations

import signal
import threading
import time
from contextlib import AbstractContextManager, closing
from itertools import chain
from typing import Callable, Optional, Protocol

from portability_harness.protocol import Event

from runner.backends.base import STOP_WAIT_S, CellIncompatible
from runner.cell import Cell
from runner.errors import Stopped, UserError
from runner.pace import Left
from runner.project import Project
from runner.rundir import CellState, RunDir
from runner.lanes import pin
from runner.scheduler import Scheduler


class Display(Protocol):
    """The live view of one cell repeat: takes its events and log lines."""

    def __call__(self, event: Event) -> None: ...

    def log(self, message: str) -> None: ...


# display(cell, repeat, index, total, left, lane) -> a context manager giving the Display of that repeat;
# left: what the run is expected to take from the repeat's start on, at its pace so far (runner.pace.Left);
# index and total count the cells of its lane (runner.lanes; 0: the timing cells)
DisplayFactory = Callable[[Cell, int, int, int, Left, int], AbstractContextManager]
# after(cell, states): a cell ended; every cell's state as it stands
After = Callable[[Cell, list[CellState]], None]


def ignore(cell: Cell, states: list[CellState]) -> None:
    pass


def run(project: Project, cells: list[Cell], rundir: RunDir, resume: bool, display: DisplayFactory,
        on_error: Callable[[Cell, str], None] = lambda c, e: None,
        ahead: Callable[[str], None] = lambda message: None,
        after: After = ignore, lanes: int = 1, cached_beside: Optional[bool] = None) -> dict:
    """Run the runnable cells of the plan; returns merged.json's record as it stands at the end. The later cells'
    environments are built while the first ones run (runner.scheduler), telling `ahead` how that goes; `after`
    is told of each cell that ended (done, failed or incompatible; not one a stop interrupted), with every
    cell's state. With `lanes` above 1, verdict cells (and compiled CPU cells' cached repeats, as
    `cached_beside` says: runner.arrangement.arrange) run beside the timing cells (runner.lanes)."""
    with rundir.running(cells, resume) as run:
        with Scheduler(project, rundir, [s.cell for s in run.todo], ahead, lanes, cached_beside) as scheduler:
            Lanes(scheduler, run, rundir, display, on_error, after).run()
    return run.merged


class Lanes:
    """The run's lanes: lane 0 in this thread, each other one in a thread of its own on its CPUs; the cells'
    states are saved by one lane at a time."""

    def __init__(self, scheduler: Scheduler, run, rundir: RunDir, display: DisplayFactory,
                 on_error: Callable[[Cell, str], None], after: After):
        self.scheduler, self.run_, self.rundir, self.display = scheduler, run, rundir, display
        self.on_error, self.after = on_error, after
        self.by_key = {s.cell.key: s for s in run.todo}
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def run(self) -> None:
        lanes = self.scheduler.lanes
        threads = [threading.Thread(target=self.lane, args=(i,), name=f"lane {i}", daemon=True)
                   for i in range(1, len(lanes)) if lanes[i]]
        main = pin(self.scheduler.cpus[0])
        for number in range(1, len(lanes)):  # starting now: lane 0's first header names them (a race else)
            if lanes[number] and not lanes[number][0].later_part and not self.scheduler.builds_beside(number):
                self.scheduler.running[number] = lanes[number][0].key  # (a later part waits for lane 0)
        try:
            for thread in threads:
                thread.start()
            self.lane(0)
            for thread in threads:
                thread.join()
        except Stopped:
            self.stopping.set()  # each lane stops its harness at its next event, which records the case in flight
            for thread in threads:
                thread.join(STOP_WAIT_S)
            raise
        finally:
            pin(main)

    def lane(self, number: int) -> None:
        """Lane `number`'s cells, then the verdict cells it takes from lanes that have not begun them (claim)."""
        pin(self.scheduler.cpus[number])
        if not self.scheduler.wait_for_builds(number, self.stopping):
            return
        own = (part for part in list(self.scheduler.lanes[number]) if self.scheduler.begin(part))
        taken = iter(lambda: None if self.stopping.is_set() else self.scheduler.claim(number), None)
        for index, part in enumerate(chain(own, taken), 1):  # a cell, or the part of it this lane runs (runner.lanes)
            todo = self.scheduler.lanes[number]
            if not self.scheduler.wait_for_first_part(part, self.stopping):
                if self.stopping.is_set():
                    return
                continue  # its first repeat failed: the cell is recorded so
            state = self.by_key[part.key]
            try:
                self.cell(state, part, lambda repeat, begun: self.display(  # part: the repeats that fit its budget
                    part, repeat, index, len(todo), self.scheduler.remaining(part, begun), number))
            except Stopped:
                if number == 0:
                    raise
                return

    def cell(self, state: CellState, part: Cell, display: Callable[[int, int], AbstractContextManager]) -> None:
        """Run `part` (the cell, or its repeats this lane runs) and record the cell's state; a cell whose later
        repeats another lane runs stays running until they end, its wall the sum of its parts'."""
        with self.lock:
            state.status, state.reason = "running", None
            state.expected_s = self.scheduler.expected_s(state.cell)
            state.wall_s = state.wall_s if part.later_part else None
            self.rundir.save(self.run_.states)
        started, before, ran = time.monotonic(), state.wall_s or 0.0, False
        try:
            run_cell(self.scheduler, state, part, self.rundir, display, self.stopping)
            ran = True
            if part.continued:
                return  # the finally below records its wall; the lane that runs the rest ends the cell
            state.status, state.reason = self.rundir.ended(state)
        except CellIncompatible as e:  # a verdict on the set-up: no case ran, and none will on --resume
            state.status, state.reason = "incompatible", str(e)
            state.files = [f for f in state.files if (self.rundir.path / f).exists()]  # none was written
        except UserError as e:  # one failed cell is recorded; the run goes on
            state.status, state.reason = "failed", str(e)
            self.on_error(state.cell, str(e))
        except Stopped:
            state.status, state.reason = "interrupted", "the run was stopped while this cell ran"
            raise
        finally:
            state.wall_s = round(before + time.monotonic() - started, 1)
            with self.lock:
                self.rundir.save(self.run_.states)
                self.rundir.publish(self.run_.states)
            if part.continued:  # recorded: the lane that runs the rest may go on (or skip it: it failed)
                self.scheduler.first_part_ended(part, ok=ran)
        self.after(state.cell, self.run_.states)


def run_cell(scheduler: Scheduler, state: CellState, part: Cell, rundir: RunDir,
             display: Callable[[int, int], AbstractContextManager],
             stopping: Optional[threading.Event] = None) -> None:
    """Every repeat of one cell (of `part`, the repeats of it this lane runs) that has not finished in this folder
    yet, as the scheduler starts them; `display` (repeat, repeats begun before it in this run) gives each one's
    live view."""
    cell = state.cell
    for repeat in range(1, cell.repeats + 1):
        name = rundir.results_file(cell, repeat).name
        if name not in state.files:
            state.files.append(name)
    with scheduler.cell(part) as repeats:
        for begun, (repeat, out) in enumerate(repeats):
            if not scheduler.room_for(part, begun, repeat):  # its cell says which repeats were not run
                scheduler.log(f"{cell.label}: repeat {repeat} and after left out: the run's budget is for the first "
                              "repeats still to come")
                break
            with display(repeat, begun) as d:
                # closing(): on a signal the harness is stopped at once and records its case as interrupted.
                with closing(repeats.events(repeat, out, d.log)) as events:
                    for event in events:
                        d(event)
                        if stopping is not None and stopping.is_set():  # another lane was stopped by a signal
                            raise Stopped(signal.SIGTERM)
