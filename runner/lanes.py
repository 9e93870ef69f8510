"""Lanes (`runner matrix --lanes N`): verdict work beside the timing work, on CPUs the timing worker does not use.

Lane 0 runs the timing cells one after another, as a run without lanes does. Each other lane runs, at the same
time, cells whose product is a verdict rather than a latency: the TPU model's cells (device kind xla-cpu) and a
census; and, with --cached-beside, once their first repeat has run in lane 0, the later repeats of the compiled CPU
cells, which reuse the compilers' caches it filled (their compile time is not the cold one lane 0 measures). A side
lane runs its verdict cells first, then those later repeats, each waiting for its first repeat to end. Not by
default: on the 2-core machine, a cached repeat beside a timing cell raised that cell's latencies by about a fifth
(JAX eager's minima), where a verdict cell beside it had cost about 5 % (docs/benchmarks.md).

A lane is a set of the host's CPUs: the thread that runs a lane's cells is pinned to them, and so is every
harness it starts (a child inherits its thread's CPUs), whose worker then runs on them alone. Lane 0 keeps the
first CPUs (the first of them the host's, where environments are built ahead, its supervisor and this runner); the
other lanes share at most half of the CPUs, the last ones. On a host of two CPUs, where that would leave lane 0's
worker no CPU of its own, the other lane runs on the host's CPU instead, the one a timing worker never uses
(cpus = "all-but-one"). Either way the timing worker's CPUs are no other lane's: only lane 0 runs timing cells,
and its worker never runs on the host's CPU. A container (the docker backend) is not started by a pinned thread,
so its cells stay in lane 0.

Every header says which lane ran the repeat and what ran in the other lanes as it started (`engine`), and the
report flags a latency measured while another lane ran beside it (runner/report/load.py).
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional

from runner.cell import Cell
from runner.errors import UserError


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


def default_lanes(cpus: int) -> int:
    """Two lanes where there are two CPUs or more (on two, the verdict lane takes the host's CPU, which the timing
    worker leaves to its supervisor and this runner); one on a single CPU."""
    return 1 if cpus < 2 else 2


def verdict_cell(cell: Cell) -> bool:
    """A cell whose product is a verdict, which may run beside a timing cell."""
    return (cell.device == "xla-cpu" or cell.task == "census") and cell.backend != "docker"


def split(cpus: list[int], lanes: int) -> list[list[int]]:
    """The CPUs of each lane, lane 0 first."""
    if lanes < 1:
        raise UserError(f"--lanes {lanes}: give 1 (no side-by-side) or more")
    if lanes == 1:
        return [list(cpus)]
    if len(cpus) < lanes:
        raise UserError(f"--lanes {lanes} needs {lanes} CPUs, one a lane, and this host gives the run {len(cpus)}; "
                        f"pass --lanes {len(cpus)} or fewer")
    each = max(1, len(cpus) // 2 // (lanes - 1))
    main = len(cpus) - each * (lanes - 1)
    if main < 2:  # lane 0 would hold only its worker's CPU, the supervisor beside it: the others take the host's
        return [list(cpus)] + [[cpus[0]] for _ in range(lanes - 1)]
    return [list(cpus[:main])] + [list(cpus[main + i * each: main + (i + 1) * each]) for i in range(lanes - 1)]


def continued_later(cell: Cell) -> bool:
    """A compiled CPU cell whose repeats after its first may run beside lane 0: they reuse the caches the first one
    filled (compile_caches.served), and never share an accelerator with a timing worker (CPU only)."""
    return (cell.compiler == "compiled" and cell.device == "cpu" and cell.repeats > 1 and cell.task == "cases"
            and cell.backend != "docker")


def assign(cells: list[Cell], lanes: int, cached_beside: bool = False) -> list[list[Cell]]:
    """The cells of each lane, lane 0 first, each lane in the run's order: the verdict cells shared out among the
    lanes beside lane 0 in turn, then, with `cached_beside`, the later repeats of the compiled CPU cells
    (continued_later), whose first repeat stays in lane 0 (Cell.part)."""
    out: list[list[Cell]] = [[] for _ in range(max(lanes, 1))]
    later: list[Cell] = []
    side = 0
    for cell in cells:
        if lanes > 1 and verdict_cell(cell):
            out[1 + side % (lanes - 1)].append(cell)
            side += 1
        elif lanes > 1 and cached_beside and continued_later(cell):
            out[0].append(replace(cell, part=(1, 1)))
            later.append(replace(cell, part=(2, cell.repeats)))
        else:
            out[0].append(cell)
    for cell in later:
        min(out[1:], key=len).append(cell)
    return out


def where(cell: Cell, lanes: list[list[Cell]]) -> str:
    """Where a run's lanes run `cell`: "" for lane 0 alone, else " in lane N" or " (repeats 2-3 in lane N)"."""
    for number, lane in enumerate(lanes[1:], 1):
        for part in lane:
            if part == cell:
                return f" in lane {number}"
            if part.key == cell.key and part.part:
                return f" (repeats {part.part[0]}-{part.part[1]} in lane {number})"
    return ""


def pin(cpus: Optional[list[int]]) -> list[int]:
    """The calling thread (and what it starts from now on) onto `cpus` (None: left as it is); returns the CPUs it
    had, to pin it back."""
    before = available_cpus()
    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(cpus))  # 0: the calling thread
    return before
