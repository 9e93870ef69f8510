"""Environments built ahead: while one cell runs its cases (CPU-bound, on the worker's CPUs), the environments of
the cells after it are downloaded and installed (network- and disk-bound) in a thread on the CPUs the worker
leaves to the host, so that a fresh machine does not wait for each install in turn.

One cell at a time, in the run's order. A build that fails here is not reported: the cell's own preparation
builds it again and reports the installer's reason where the cell is recorded. Venv builds hold a file lock, so
a cell that reaches its preparation while its environment is still being built here waits for it. A lane whose
CPUs include the builds' one waits for them to end (runner.scheduler.Scheduler.wait_for_builds).
"""
from __future__ import annotations

import os
import threading
from typing import Callable, Optional

from runner import backends
from runner.cell import Cell
from runner.project import Project
from runner.rundir import RunDir


class Prefetch:
    def __init__(self, project: Project, cells: list[Cell], rundir: RunDir, log: Callable[[str], None]):
        self.project, self.cells, self.rundir, self.log = project, cells, rundir, log
        self.stopped = threading.Event()
        self.done = threading.Event()  # every build it was to make has ended (or it was stopped)
        self.thread = threading.Thread(target=self._run, name="prefetch", daemon=True)
        self.to_build = any(not ready(project, c) for c in cells)  # read before the builds start
        self.cpu = host_cpu()  # read before any lane pins its thread

    def __enter__(self) -> "Prefetch":
        if self.cells:
            self.thread.start()
        else:
            self.done.set()
        return self

    def builds_on(self, cpus: Optional[list[int]]) -> bool:
        """Whether environments are still to be built on any of `cpus` (None: every CPU)."""
        return self.to_build and not self.done.is_set() and (cpus is None or self.cpu is None or self.cpu in cpus)

    def __exit__(self, *exc) -> None:
        self.stopped.set()  # an install in flight finishes (or dies with the run on Ctrl-C); no new one starts

    def _run(self) -> None:
        try:
            self._build()
        finally:
            self.done.set()

    def _build(self) -> None:
        if self.cpu is not None:  # this thread, and the installers it starts, which inherit its mask
            os.sched_setaffinity(0, {self.cpu})  # 0: the calling thread
        seen = set()
        for cell in self.cells:
            # images that share a venv (ImageSpec.packages_of) are one environment for a venv; Docker builds each image
            key = (cell.backend, cell.image.venv_name if cell.backend == "local" else cell.image.name, cell.profile.name)
            if self.stopped.is_set():
                return
            if key in seen:
                continue  # the same environment under another mode or compiler
            seen.add(key)
            label = f"{cell.image.name} ({cell.profile.name})"
            try:
                backend = backends.get(cell.backend, self.project, cell.extra_env)
                backend.prefetch(cell, lambda message: self.log(f"ahead, {label}: {message}"),
                                 self.rundir.install_log(cell))
            except Exception:  # noqa: BLE001 - the cell's own preparation reports it
                continue


def ready(project: Project, cell: Cell) -> bool:
    """Whether the cell's environment is built (its backend's `ready`); False where the backend cannot tell."""
    try:
        return backends.get(cell.backend, project, cell.extra_env).ready(cell)
    except Exception:  # noqa: BLE001 - a backend that cannot tell: as if it builds
        return False


def host_cpu() -> Optional[int]:
    """The CPU the builds run on: the first, the one the workers leave to the host (protocol.Config.worker_cpus),
    where there are two or more; None on one CPU, where everything shares it."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    available = sorted(os.sched_getaffinity(0))
    return available[0] if len(available) > 1 else None
