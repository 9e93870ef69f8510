"""Lanes (`runner matrix --lanes N`): verdict work beside the timing work, on CPUs the timing worker does not use.

Lane 0 runs the timing cells one after another, as a run without lanes does. Each other lane runs, at the same
time, cells whose product is a verdict rather than a latency: the TPU model's cells (device kind xla-cpu) and a
census; and, once their first repeat has run in lane 0, the later repeats of compiled CPU cells, which reuse the
compilers' caches it filled (their compile time is not the cold one lane 0 measures). A side lane runs its verdict
cells first, then those later repeats, each waiting for its first repeat to end, which lane 0 runs before its other
cells, in the run's order or shortest first, whichever ends the run sooner. Which cells' later repeats move is the
arrangement's choice (runner.arrangement.arrange): by default those that end the run sooner by what each repeat is
expected to take; all of them with --cached-beside, none with --no-cached-beside. On the 2-core machine, on a calm
day, a compiled repeat on the side lane's CPU moved a JAX eager repeat's medians in lane 0 by -0.6 to +1.2 %, within
what two repeats alone differ by (docs/benchmarks.md, A neighbour in another lane).

By default an eager CPU cell's later repeats may move too, tried after every compiled cell's and kept only where
they end the run at least TIMING_MOVE_S sooner: timing work, on the side lane's CPUs, so that two timing workers
then run at once, each on CPUs of its own, never on the same ones (issue 46's rule). On the 2-core machine lane 0's
timing repeats alone took 60.5 minutes of the whole matrix's 61.4 (2026-12-07), torch.compile's cold one 28 of them:
no placement of verdict work alone ends it within the hour. --no-cached-beside keeps every timing repeat in lane 0.

A lane is a set of the host's CPUs: the thread that runs a lane's cells is pinned to them, and so is every
harness it starts (a child inherits its thread's CPUs), whose worker then runs on them alone. Lane 0 keeps the
first CPUs (the first of them the host's, where environments are built ahead, its supervisor and this runner); the
other lanes share at most half of the CPUs, the last ones. On a host of two CPUs, where that would leave lane 0's
worker no CPU of its own, the other lane runs on the host's CPU instead, the one lane 0's worker never uses
(cpus = "all-but-one"). Either way lane 0's worker's CPUs are no other lane's, and it never runs on the host's
CPU; an eager cell's later repeats moved to a side lane are timed on that lane's CPUs (on two CPUs the host's,
beside the supervisors and this runner, whose time on it each case's cpu_wait_s records). A container (the docker
backend) is not started by a pinned thread, so its cells stay in lane 0.

A lane that has begun every cell of its own takes a verdict cell another lane has not begun (claimable): the plan
comes from expected walls, and a lane that ends sooner than expected would otherwise sit idle beside queued work.

Every header says which lane ran the repeat and what ran in the other lanes as it started (`engine`), and the
report flags a latency measured while another lane ran beside it (runner/report/load.py).
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Collection, Dict, List, Mapping, Optional

from runner.cell import Cell
from runner.estimate import Expected
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
    """A CPU cell whose repeats after its first may run beside lane 0, in a side lane, once its first has ended
    there: a compiled cell's reuse the caches the first one filled (compile_caches.served); an eager cell's are
    timing repeats on the side lane's CPUs, which lane 0's worker never uses (the module's doc). CPU cells only: a
    repeat on an accelerator never shares it with a timing worker."""
    return cell.device == "cpu" and cell.planned > 1 and cell.task == "cases" and cell.backend != "docker"


def movable(cells: list[Cell], lanes: int, eager: bool = True) -> list[str]:
    """The keys of the cells whose later repeats a run in `lanes` lanes may move beside lane 0 (continued_later), in
    the order the arrangement tries them: the compiled cells' cached repeats in the run's order, then (with `eager`)
    the eager cells' timing repeats, so that a timing repeat leaves lane 0 only where moving verdict work did not end
    the run as soon."""
    if lanes < 2:
        return []
    later = [c for c in cells if continued_later(c)]
    return [c.key for c in later if c.compiler == "compiled"] + [c.key for c in later if eager and
                                                                  c.compiler != "compiled"]


def assign(cells: list[Cell], lanes: int, beside: Collection[str] = (), kept: Collection[str] = (),
           firsts: Optional[Mapping[str, float]] = None) -> list[list[Cell]]:
    """The cells of each lane, lane 0 first, each lane in the run's order: the verdict cells shared out among the
    lanes beside lane 0 in turn, but those whose keys are in `kept`, which run in lane 0 after its timing cells;
    then the later repeats of the cells whose keys are in `beside` (of `movable`), each in the side lane with the
    fewest cells. Their first repeats stay in lane 0 (Cell.part), ahead of its other cells, so that the side lane
    can start the later ones while lane 0 goes on: run in the matrix's order, JAX's cold compiled repeat ended lane 0
    and its cached ones could only have run after it (2026-12-07: lane 1 idle for the last 16 of 64 minutes). With
    `firsts` (each moved cell's first repeat's expected wall, by key) those first repeats run shortest first, and the
    side lanes take the later ones in the same order, each as soon as its first has ended."""
    out: list[list[Cell]] = [[] for _ in range(max(lanes, 1))]
    first: list[Cell] = []
    later: list[Cell] = []
    last: list[Cell] = []
    side = 0
    for cell in cells:
        if lanes > 1 and verdict_cell(cell) and cell.key in kept:
            last.append(cell)
        elif lanes > 1 and verdict_cell(cell):
            out[1 + side % (lanes - 1)].append(cell)
            side += 1
        elif lanes > 1 and cell.key in beside and continued_later(cell):
            first.append(replace(cell, part=(1, 1)))
            later.append(replace(cell, part=(2, cell.planned)))
        else:
            out[0].append(cell)
    if firsts is not None:  # sorted is stable: equal walls keep the run's order
        first.sort(key=lambda c: firsts.get(c.key, 0.0))
        later.sort(key=lambda c: firsts.get(c.key, 0.0))
    out[0] = first + out[0] + last
    for cell in later:
        min(out[1:], key=len).append(cell)
    return out


Walls = Dict[str, List[Expected]]  # per cell part (Cell.part_key): each repeat's expected wall
# An eager cell's later repeats are timing work: they leave lane 0 only for a gain above the expectations' own noise
# (a host's calibration varies by about 6 % from one moment to the next, docs/benchmarks.md), not for seconds.
TIMING_MOVE_S = 60.0


def balance(cells: list[Cell], lanes: int, candidates: list[str], walls_of: Callable[[list[list[Cell]]], Walls],
            choose: bool = True, budget_s: Optional[float] = None) -> tuple[list[list[Cell]], Walls]:
    """runner.arrangement.arrange's lanes, each move kept where the run's expected end (the last of lane_ends, from
    `walls_of` the lanes) comes sooner with it: the candidates' later repeats moved beside lane 0 one by one (with
    `choose` False, every candidate moved, untried), an eager cell's timing repeats only where they end it at
    least TIMING_MOVE_S sooner; then the verdict cells, in the run's order, each kept in lane 0 after its timing
    cells. The first fill the side lane where lane 0 is the longer (the whole matrix on two
    cores); the second fill lane 0 where a side lane is (the eager matrix: the TPU model's TensorFlow and JAX cells
    after the timing cells, beside torch-xla-cpu's), but not past a time budget (`budget_s`): where the budget's
    end cuts the run anyway, a verdict cell in lane 0 would be cut in its place, with lane 1's cells the same.
    All of it twice, the moved cells' first repeats in the run's order and shortest first (assign's `firsts`),
    the sooner end kept (the run's order where they tie): shortest first, the side lane's later repeats wait less
    for their first. In the whole matrix of 2026-12-07 afternoon lane 1 waited 4.2 minutes for torch.compile's cold
    repeat, which lane 0 ran before TensorFlow's eager first repeat, whose later ones queued behind it."""
    shortest: dict[str, float] = {}  # a moved cell's first repeat's expected wall, by key
    if len(candidates) > 1:  # one or none: nothing to reorder
        everything = assign(cells, lanes, beside=candidates)
        first_walls = walls_of(everything)
        shortest = {c.key: wall(c, first_walls) for c in everything[0] if c.continued}
    tries = [("beside", key) for key in candidates if choose]
    tries += [("kept", c.key) for c in cells if lanes > 1 and verdict_cell(c)]
    timing = {c.key for c in cells if c.compiler != "compiled"}

    def moved_one_by_one(firsts: Optional[Mapping[str, float]]) -> tuple[float, list[list[Cell]], Walls]:
        moves: dict[str, list[str]] = {"beside": [] if choose else list(candidates), "kept": []}
        by_lane = assign(cells, lanes, **moves, firsts=firsts)
        walls = walls_of(by_lane)
        end = max(lane_ends(by_lane, walls))
        for kind, key in tries:
            moved = dict(moves, **{kind: [*moves[kind], key]})
            trial = assign(cells, lanes, **moved, firsts=firsts)
            trial_walls = walls_of(trial)
            trial_end = max(lane_ends(trial, trial_walls))
            gain = TIMING_MOVE_S if kind == "beside" and key in timing else 0.0
            if trial_end < end - gain and (kind == "beside" or budget_s is None or trial_end <= budget_s):
                moves, by_lane, walls, end = moved, trial, trial_walls, trial_end
        return end, by_lane, walls

    in_order = moved_one_by_one(None)
    quickest = moved_one_by_one(shortest) if shortest else in_order
    _, by_lane, walls = quickest if quickest[0] < in_order[0] else in_order
    return by_lane, walls


def wall(cell: Cell, walls: Walls) -> float:
    """What this lane's part of `cell` is expected to take: its repeats' walls one after another."""
    return sum(e.seconds for e in walls.get(cell.part_key, []))


def lane_ends(lanes: list[list[Cell]], walls: Walls) -> list[float]:
    """When each lane is expected to end, from the run's start: its cells one after another, a cell's later part
    (runner.lanes) not before its first part has ended in lane 0."""
    ends: list[float] = []
    firsts: dict[str, float] = {}  # a continued cell's key -> when its first part ends
    for cells in lanes:
        clock = 0.0
        for cell in cells:
            if cell.later_part:
                clock = max(clock, firsts.get(cell.key, 0.0))
            clock += wall(cell, walls)
            if cell.continued:
                firsts[cell.key] = clock
        ends.append(clock)
    return ends


def claimable(lanes: list[list[Cell]], begun: Collection[str], lane: int, walls: Walls) -> Optional[Cell]:
    """For `lane`, which has begun every cell of its own: a verdict cell that another lane has not begun (a whole
    one, not a compiled cell's later repeats, which wait for their first), the last of the lane with the most
    expected time in cells not begun; None where there is none. The lanes were shared out by expected walls, and a
    lane that ends sooner than expected would otherwise sit idle beside queued verdict work: in make matrix
    COMPILER=eager of 2026-12-07, torch-xla-cpu took 19 of the 23 minutes expected and lane 1 sat idle for the last
    5 while lane 0 ran jax-xla-cpu after its timing cells. Taken from another lane, a cell begins no later than
    that lane would have begun it, and never on a timing cell's CPUs while one runs: lane 0 takes one only once its
    own cells, the timing ones among them, have ended."""
    def waiting(cells: list[Cell]) -> list[Cell]:
        return [c for c in cells if c.part_key not in begun]

    others = [cells for number, cells in enumerate(lanes) if number != lane and
              any(verdict_cell(c) and not c.part for c in waiting(cells))]
    if not others:
        return None
    most = max(others, key=lambda cells: sum(wall(c, walls) for c in waiting(cells)))
    return [c for c in waiting(most) if verdict_cell(c) and not c.part][-1]


def where(cell: Cell, lanes: list[list[Cell]]) -> str:
    """Where a run's lanes run `cell`: "" for lane 0 alone, else " in lane N" or " (repeats 2-3 in lane N)"."""
    for number, lane in enumerate(lanes[1:], 1):
        for part in lane:
            if part.key == cell.key and not part.part:
                return f" in lane {number}"
            if part.key == cell.key and part.part:
                first, last = part.own_repeats[0], part.own_repeats[-1]
                return f" (repeat{f's {first}-{last}' if last > first else f' {first}'} in lane {number})"
    return ""


def pin(cpus: Optional[list[int]]) -> list[int]:
    """The calling thread (and what it starts from now on) onto `cpus` (None: left as it is); returns the CPUs it
    had, to pin it back."""
    before = available_cpus()
    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(cpus))  # 0: the calling thread
    return before
