"""What starts when, for the cells a run executes on this host: the engine asks this module for each repeat's events
and runs them (engine -> scheduler -> backend -> harness); everything started beside the running repeat is
started, and ended, here:

- the later cells' environments, built ahead while a cell runs its cases (runner.prefetch's thread, on the CPU the
  worker leaves to the host), so that a fresh machine does not wait for each install in turn;
- the next repeat on standby: once a repeat's cases run, the repeat after it (the cell's next, or after a cell's
  last the first one of the next cell whose environment is ready) starts its harness, whose worker imports the
  framework and collects its cases on that CPU and then waits until told to go (Environment.standby), so that a
  repeat's wall begins at its first case. Where an environment cannot start a harness ahead (a container, a Ray
  node) or is not built yet, the repeat starts up in its own time;
- the compilers' caches a cell's repeats share (RunDir.caches): its first repeat in the run compiles from empty
  ones and fills them, the later ones reuse them (the harness's compile_caches.py); removed with the cell;
- the lanes (runner.lanes): which cells run beside the timing cells, on which CPUs; a CPU cell's later repeats
  moved to a side lane wait there for its first one (lane 0's) to end, and its caches are removed after the last;
- and it runs the arrangement made before the run starts (runner.arrangement): the lanes and what each repeat is
  expected to take.

Only one repeat runs at a time on lane 0's CPUs: a repeat started ahead waits, imported, until its turn.
"""
from __future__ import annotations

import shutil
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

from portability_harness.protocol import Config, Event, Finished, Plan

from runner import arrangement, backends, pace
from runner.backends.base import Environment, Standby
from runner.cell import Cell
from runner.lanes import available_cpus, claimable, split
from runner.prefetch import Prefetch
from runner.project import Project
from runner.rundir import RunDir

Log = Callable[[str], None]


def config(project: Project, rundir: RunDir, cell: Cell, environment: Environment, repeat: int, out: Path,
           filled: bool) -> Config:
    """The harness config of one repeat; `filled`: a repeat of the cell ran before it in this run and left its
    compilers' caches for this one."""
    return cell.config(out, project.curated_dir, repeat, rundir.run_id, resume=out.exists(),
                       environment=environment.description, git_commit=project.git_commit,
                       shared_caches=str(rundir.caches(cell).relative_to(out.parent)), caches_filled=filled)


@dataclass
class _Started:
    cell: Cell
    repeat: int
    environment: Environment  # the next cell's, which its run adopts; the running cell's own otherwise
    standby: Standby


class Scheduler:
    """The run's cells, in order, in `lanes` (runner.lanes: lane 0 the timing cells, the others verdict cells and
    the later repeats moved beside them): `cell(c)` runs one of them; entered, the later cells' environments are
    built ahead; left, whatever was started ahead is ended."""

    def __init__(self, project: Project, rundir: RunDir, cells: list[Cell], log: Log, lanes: int = 1,
                 cached_beside: Optional[bool] = None):
        self.project, self.rundir, self.log = project, rundir, log
        self.cpus: list[Optional[list[int]]] = list(split(available_cpus(), lanes)) if lanes > 1 else [None]
        self.lanes, self.expected = arrangement.arrange(project, cells, len(self.cpus), cached_beside, rundir)
        self.cells = self.lanes[0]  # the timing cells, one after another, each repeat's successor started ahead
        firsts = {lane[0].key for lane in self.lanes if lane}
        self.prefetch = Prefetch(project, [c for lane in self.lanes for c in lane if c.key not in firsts], rundir, log)
        self.started: Optional[_Started] = None  # the one repeat started ahead, if any
        self.pace = pace.Pace()  # the ended repeats' walls against these expectations
        self.running: dict[int, str] = {}  # lane -> the key of the cell it runs
        self.began = time.monotonic()
        self.filled: set[str] = set()  # the cells a repeat of which began in this run, filling its caches
        # A cell whose later repeats run in another lane: set when its first part ends; in `failed` if it failed.
        self.firsts_ended = {c.key: threading.Event() for c in self.cells if c.continued}
        self.failed: set[str] = set()
        self.begun: set[str] = set()  # the cell parts a lane has begun (begin), each by one lane only
        self.turns = threading.RLock()  # begun, the lanes' lists and the repeat started ahead, between lanes

    def begin(self, part: Cell) -> bool:
        """Whether `part`, of the calling lane's list, is still its to run (no other lane took it: claim)."""
        with self.turns:
            fresh = part.part_key not in self.begun
            self.begun.add(part.part_key)
            return fresh

    def claim(self, lane: int) -> Optional[Cell]:
        """For `lane`, done with its own cells: another lane's verdict cell not begun (lanes.claimable), moved to
        `lane` (whose number its header gives), a repeat of it started ahead ended; None where there is none."""
        with self.turns:
            cell = claimable(self.lanes, self.begun, lane, self.expected)
            if cell is not None:
                self.log(f"lane {lane} takes {cell.label} from lane {self.lane_of(cell)}, which has not begun it")
                self.lanes[self.lane_of(cell)].remove(cell)
                self.lanes[lane].append(cell)
                self.begun.add(cell.part_key)
                if self.started is not None and self.started.cell.key == cell.key:
                    self.end_started()
            return cell

    def lane_of(self, cell: Cell) -> int:
        return next((i for i, lane in enumerate(self.lanes) if cell in lane), 0)

    def first_part_ended(self, cell: Cell, ok: bool) -> None:
        if not ok:
            self.failed.add(cell.key)
        self.firsts_ended[cell.key].set()

    def wait_for_first_part(self, cell: Cell, stopping: threading.Event) -> bool:
        """For a later part of a cell (runner.lanes): wait until its first repeat has ended in lane 0; whether it
        is to run (not where the first part failed, was incompatible, or the run is stopping)."""
        ended = self.firsts_ended.get(cell.key) if cell.later_part else None
        while ended is not None and not ended.wait(0.5):
            if stopping.is_set():
                return False
        return cell.key not in self.failed and not stopping.is_set()

    def builds_beside(self, lane: int) -> bool:
        """Whether side lane `lane` is to wait for the environments built ahead: its CPUs include theirs. Its cells'
        cases waited for the CPU 38 % of their time beside torch-xla-cpu's 4 GB being installed (tf-xla-cpu, a
        fresh clone's `make matrix`, against 13 % with nothing built), and their walls ran 1.7 times expected."""
        return lane > 0 and self.prefetch.builds_on(self.cpus[lane])

    def wait_for_builds(self, lane: int, stopping: threading.Event) -> bool:
        """For side lane `lane`: wait until no environment is being built on its CPUs; whether it is to go on."""
        if self.builds_beside(lane):
            self.log(f"lane {lane} waits for the environments being built on its CPU")
            while not self.prefetch.done.wait(0.5):
                if stopping.is_set():
                    return False
        return not stopping.is_set()

    def config(self, cell: Cell, environment: Environment, repeat: int, out: Path, filled: bool) -> Config:
        """The repeat's config; with lanes, its header says which lane ran it, on which CPUs, and what the other
        lanes ran as it started."""
        cfg = config(self.project, self.rundir, cell, environment, repeat, out, filled)
        if len(self.lanes) > 1:
            lane = self.lane_of(cell)
            cfg.engine = {"name": "local", "lane": lane, "lanes": len(self.lanes), "cpus": self.cpus[lane],
                          "beside": sorted(key for other, key in self.running.items() if other != lane)}
        return cfg

    def expected_s(self, cell: Cell) -> Optional[float]:
        """The cell's pending repeats' expected wall."""
        return arrangement.total(self.expected, cell) if arrangement.of_cell(self.expected, cell) else None

    def remaining(self, cell: Cell, begun: int) -> pace.Left:
        """What the run is expected to take from the start of `cell`'s repeat after its `begun` first ones on: its
        lane's rest, or another lane's where that one is expected to end later; at the pace of the repeats that have
        ended in this run (runner.pace)."""
        lane = self.lane_of(cell)
        keys = [c.part_key for c in self.lanes[lane]]
        later = keys[keys.index(cell.part_key) + 1:] if cell.part_key in keys else []
        own = self.pace.seconds([*self.expected.get(cell.part_key, [])[begun:],
                                 *(e for key in later for e in self.expected.get(key, []))])
        elapsed = time.monotonic() - self.began
        others = [self.pace.seconds(e for c in cells for e in self.expected.get(c.part_key, [])) - elapsed
                  for i, cells in enumerate(self.lanes) if i != lane]
        return pace.Left(max([own, *others]), self.pace.overall())

    def room_for(self, part: Cell, begun: int, repeat: int) -> bool:
        """Whether `part`'s repeat `repeat` (the `begun`th it runs in this run) is still to start under the run's
        budget. The plan gave every cell's first repeat its time before any later one (runner.budget.fit); where the
        run goes slower than expected, a later repeat is left out (its cell says so) once what it is expected to
        take, at the run's pace so far, would leave the first repeats still to come in its lane less time than they
        are expected to need. (A whole make matrix with an hour's budget on a slow day, 2026-11-29: JAX eager's
        second repeat ran into the budget's end and JAX compiled's first never started.)"""
        if part.stop_at is None or repeat == 1:
            return True
        lane = self.lanes[self.lane_of(part)]
        keys = [c.part_key for c in lane]
        after = lane[keys.index(part.part_key) + 1:] if part.part_key in keys else []
        firsts = [self.expected[c.part_key][0].whole for c in after if not c.later_part and self.expected.get(
            c.part_key) and [r for r, _ in self.rundir.pending(c)][:1] == [1]]
        own = [e.whole for e in self.expected.get(part.part_key, [])[begun:begun + 1]]
        return not firsts or self.pace.seconds(own + firsts) <= part.stop_at - time.time()

    def repeat_ended(self, cell: Cell, begun: int, wall_s: float) -> None:
        """`cell`'s repeat after its `begun` first ones in this run ended, after `wall_s` (its environment's build
        not counted, as in its expectation)."""
        walls = self.expected.get(cell.part_key, [])
        if begun < len(walls):
            self.pace.ended_repeat(walls[begun], wall_s)

    def __enter__(self) -> "Scheduler":
        self.log(arrangement.describe(self.lanes, self.expected))
        self.prefetch.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.prefetch.__exit__(*exc)
        self.end_started()
        shutil.rmtree(self.rundir.path / RunDir.CACHES, ignore_errors=True)  # and what a killed run left there

    def cell(self, cell: Cell) -> "CellRun":
        return CellRun(self, cell)

    def following(self, cell: Cell) -> Optional[Cell]:
        """The cell that runs after `cell`, if any."""
        keys = [c.key for c in self.cells]
        index = keys.index(cell.key) + 1 if cell.key in keys else len(keys)
        return self.cells[index] if index < len(keys) else None

    # --- the repeat started ahead -------------------------------------------------------------------------------

    def start(self, cell: Cell, environment: Environment, repeat: int, out: Path, filled: bool) -> None:
        standby = environment.standby(self.config(cell, environment, repeat, out, filled))
        if standby is not None:
            self.started = _Started(cell, repeat, environment, standby)

    def end_started(self) -> None:
        """The repeat started ahead, if any, is not needed: it ends, and so does the environment it was started in."""
        started, self.started = self.started, None
        if started is not None:
            started.standby.discard()
            started.environment.close()

    def start_next(self, running: Cell) -> None:
        """Lane 0's cell after `running`, if any: its first pending repeat, where its environment is ready now (a
        build is never waited for here: the running repeat's events are read meanwhile); no lane takes the cell
        meanwhile (claim)."""
        with self.turns:
            cell = self.following(running)
            backend = backends.get(cell.backend, self.project, cell.extra_env) if cell else None
            todo = self.rundir.pending(cell) if cell and backend and backend.ready(cell) else []
            if not todo:
                return
            try:
                environment = backend.prepare(cell, lambda message: None, self.rundir.install_log(cell))
            except Exception:  # noqa: BLE001 - the cell's own preparation reports it where the cell is recorded
                return
            self.start(cell, environment, *todo[0], filled=False)
            if self.started is None:
                environment.close()

    def adopt(self, cell: Cell) -> Optional[Environment]:
        """The environment a repeat of `cell` was started ahead in, which the cell's run adopts (and closes)."""
        return self.started.environment if self.started and self.started.cell.key == cell.key else None

    def take(self, cell: Cell, repeat: int) -> Optional[Standby]:
        """The standby of this repeat, if it was started ahead (one of another repeat of the cell is discarded;
        the next cell's is kept for it)."""
        started = self.started
        if started is not None and started.cell.key == cell.key and started.repeat == repeat:
            self.started = None
            return started.standby
        self.drop(cell)
        return None

    def drop(self, cell: Cell) -> None:
        """A repeat of `cell` started ahead is not needed (the cell ended early); its environment is the cell's."""
        if self.started is not None and self.started.cell.key == cell.key:
            self.started.standby.discard()
            self.started = None


class CellRun:
    """Every repeat of one cell that has not finished in the folder yet: iterate for (repeat, results file), and
    `events` runs one; as a context manager, what the cell started is ended when it ends."""

    def __init__(self, scheduler: Scheduler, cell: Cell):
        self.s, self.cell = scheduler, cell
        self.backend = backends.get(cell.backend, scheduler.project, cell.extra_env)
        self.todo = scheduler.rundir.pending(cell)
        self.environment: Optional[Environment] = None
        self.lane = scheduler.lane_of(cell)

    def __enter__(self) -> "CellRun":
        self.s.running[self.lane] = self.cell.key
        self.environment = self.s.adopt(self.cell) if self.lane == 0 else None
        return self

    def __exit__(self, *exc) -> None:
        self.s.running.pop(self.lane, None)
        if self.lane == 0:
            self.s.drop(self.cell)  # this cell's next repeat, where this one failed or was stopped
        if self.environment is not None:
            self.environment.close()
        if not self.cell.continued:  # else its later repeats, in another lane, reuse its caches
            shutil.rmtree(self.s.rundir.caches(self.cell), ignore_errors=True)

    def __iter__(self) -> Iterator[tuple[int, Path]]:
        return iter(list(self.todo))

    def events(self, repeat: int, out: Path, log: Log) -> Iterator[Event]:
        """The events of one repeat, from its harness started ahead or started now; once its cases run, the
        repeat after it is started ahead. Closing it early stops the harness (which records its case in flight)."""
        s, cell = self.s, self.cell
        self.environment = self.environment or self.backend.prepare(cell, log, s.rundir.install_log(cell))
        began, finished = time.monotonic(), False
        filled = cell.key in s.filled  # a repeat before it in this run (in either lane) filled the caches
        s.filled.add(cell.key)
        standby = s.take(cell, repeat) if self.lane == 0 else None
        run = standby.events() if standby else self.environment.run(s.config(cell, self.environment, repeat, out,
                                                                              filled))
        # Only lane 0 starts a repeat ahead: the other lanes' few CPUs have none to spare.
        after = [r for r in self.todo if r[0] > repeat] if self.lane == 0 else []
        with closing(run) as events:
            for event in events:
                yield event
                finished = finished or isinstance(event, Finished)
                if isinstance(event, Plan) and after:
                    s.start(cell, self.environment, *after[0], filled=True)
                elif isinstance(event, Plan) and self.lane == 0:
                    s.start_next(cell)
        if finished:  # a repeat that ended early (failed, stopped) says nothing of the run's pace
            s.repeat_ended(cell, [r for r, _ in self.todo].index(repeat), time.monotonic() - began)
