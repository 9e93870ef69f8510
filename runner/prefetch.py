"""Environments built ahead: while one cell runs its cases (CPU-bound, on the worker's CPUs), the environments of
the cells after it are downloaded and installed (network- and disk-bound) in a thread on the CPUs the worker
leaves to the host, so that a fresh machine does not wait for each install in turn.

One cell at a time, in the run's order. A build that fails here is not reported: the cell's own preparation
builds it again and reports the installer's reason where the cell is recorded. Venv builds hold a file lock, so
a cell that reaches its preparation while its environment is still being built here waits for it.
"""
from __future__ import annotations

import os
import threading
from typing import Callable

from runner import backends
from runner.cell import Cell
from runner.project import Project
from runner.rundir import RunDir


class Prefetch:
    def __init__(self, project: Project, cells: list[Cell], rundir: RunDir, log: Callable[[str], None]):
        self.project, self.cells, self.rundir, self.log = project, cells, rundir, log
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="prefetch", daemon=True)

    def __enter__(self) -> "Prefetch":
        if self.cells:
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()  # an install in flight finishes (or dies with the run on Ctrl-C); no new one starts

    def _run(self) -> None:
        _to_host_cpus()
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


def _to_host_cpus() -> None:
    """This thread (and the installers it starts, which inherit its mask) on the first CPU, the one the workers
    leave to the host (protocol.Config.worker_cpus), where there are two or more."""
    if not hasattr(os, "sched_getaffinity"):
        return
    available = sorted(os.sched_getaffinity(0))
    if len(available) > 1:
        os.sched_setaffinity(0, {available[0]})  # 0: the calling thread
