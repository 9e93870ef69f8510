"""Repeats started ahead: once a repeat's cases run, the engine starts the repeat after it on standby (the cell's
next repeat, or after a cell's last repeat the first one of the next cell whose environment is ready), so that
its worker imports the framework and collects its cases on the CPU the running worker leaves to the host and
the repeat's wall begins at its first case (Environment.standby; the harness's --standby). Only one repeat runs
at a time: the one ahead waits, imported, until the engine tells it to go.

Where an environment cannot start a harness ahead (a container, a Ray node) or is not built yet (its venv still
being installed by runner.prefetch), nothing starts ahead and the repeat starts up in its own time, as before.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from portability_harness.protocol import Config

from runner import backends
from runner.backends.base import Environment, Standby
from runner.cell import Cell
from runner.project import Project
from runner.rundir import RunDir


def pending(rundir: RunDir, cell: Cell) -> list[tuple[int, Path]]:
    """The cell's repeats not finished in this folder yet (a resumed run skips the others), with their files."""
    files = [(repeat, rundir.results_file(cell, repeat)) for repeat in range(1, cell.repeats + 1)]
    return [(repeat, out) for repeat, out in files if not rundir.finished(out)]


def config(project: Project, rundir: RunDir, cell: Cell, environment: Environment, repeat: int,
           out: Path, filled: bool) -> Config:
    """The harness config of one repeat; `filled`: a repeat of the cell ran before it in this run, and left its
    compilers' caches (RunDir.caches) for this one."""
    return cell.config(out, project.curated_dir, repeat, rundir.run_id, resume=out.exists(),
                       environment=environment.description, git_commit=project.git_commit,
                       shared_caches=str(rundir.caches(cell).relative_to(out.parent)), caches_filled=filled)


@dataclass
class _Started:
    cell: Cell
    repeat: int
    environment: Environment  # the next cell's, which its run adopts; the running cell's own otherwise
    standby: Standby


class Ahead:
    """The one repeat started ahead, if any: started by `start`, taken by the repeat's run (`take`), discarded
    when that repeat will not run (`drop`: its cell failed before it; `close`: the run stopped)."""

    def __init__(self, project: Project, rundir: RunDir):
        self.project, self.rundir = project, rundir
        self.started: Optional[_Started] = None

    def start(self, cell: Cell, environment: Environment, repeat: int, out: Path, filled: bool = True) -> None:
        """The running cell's next repeat, in its environment (or with `filled` False, the next cell's first)."""
        standby = environment.standby(config(self.project, self.rundir, cell, environment, repeat, out, filled))
        if standby is not None:
            self.started = _Started(cell, repeat, environment, standby)

    def start_next(self, cell: Cell) -> None:
        """The first pending repeat of the cell after the running one, where its environment is ready now (a
        build is never waited for here: the running repeat's events are read meanwhile)."""
        backend = backends.get(cell.backend, self.project, cell.extra_env)
        todo = pending(self.rundir, cell) if backend.ready(cell) else []
        if not todo:
            return
        try:
            environment = backend.prepare(cell, lambda message: None, self.rundir.install_log(cell))
        except Exception:  # noqa: BLE001 - the cell's own preparation reports it where the cell is recorded
            return
        self.start(cell, environment, *todo[0], filled=False)
        if self.started is None:
            environment.close()

    def environment(self, cell: Cell) -> Optional[Environment]:
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

    def close(self) -> None:
        """The run ends: whatever was started ahead is discarded, and the next cell's environment closed."""
        started, self.started = self.started, None
        if started is not None:
            started.standby.discard()
            started.environment.close()
