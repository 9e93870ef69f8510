"""A run's time budget (`--budget-s`, `make matrix BUDGET_S=S`, a --quick run's 1800 s): which repeats fit it
before the run starts (fit: every cell's first repeat, then the second ones, ...), and what the repeats the budget's
end will cut are expected to take (within_budget). Once the run is under way, runner.scheduler (Scheduler.room_for)
leaves out a later repeat that would leave the first ones still to come too little time, and the harness stops at
the budget's end (Config.stop_at), recording the cases not run as cut short.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, List, Optional, Tuple

from runner import estimate
from runner.cell import Cell
from runner.lanes import Walls, lane_ends, wall


Arrangement = Tuple[List[List[Cell]], Walls]  # the cells of each lane and what each repeat is expected to take


def fit(cells: list[Cell], budget_s: float, arrange: Callable[[list[Cell], Optional[float]], Arrangement]
        ) -> Arrangement:
    """The repeats of a run with a time budget (`runner matrix --budget-s`), breadth first: every cell's first
    repeat (each cell's verdicts and cold start), then the cells' second ones in the run's order (the first
    agreement of two repeats), then their third, and so on. A repeat is kept where no lane is then expected to end
    past the budget that did not already (lane_ends, from `arrange`: the lanes of the cells as fitted so far, given
    the budget): a lane whose first repeats alone run past it (torch-xla-cpu's, on two cores) is cut at the
    budget's end anyway, and leaves the other lanes their room. A first repeat is never left out: the budget's end
    cuts it short, its unmeasured cases recorded as such. Cells whose every repeat fits are returned unchanged; a
    lane still expected past the budget runs shortest first (shortest_first)."""
    fits = {c.key: 1 for c in cells}

    def fitted() -> list[Cell]:
        return [c if fits[c.key] >= c.repeats else replace(c, fits=fits[c.key]) for c in cells]

    best = arrange(fitted(), budget_s)
    ends = lane_ends(*best)
    for repeat in range(2, max((c.repeats for c in cells), default=1) + 1):
        for cell in (c for c in cells if c.repeats >= repeat):
            fits[cell.key] = repeat
            trial = arrange(fitted(), budget_s)
            trial_ends = lane_ends(*trial)
            if all(end <= max(budget_s, before) for end, before in zip(trial_ends, ends)):
                best, ends = trial, trial_ends
            else:
                fits[cell.key] = repeat - 1
    return shortest_first(best, budget_s)


def shortest_first(arrangement: Arrangement, budget_s: float) -> Arrangement:
    """A lane expected to run past the budget runs its cells shortest first: the order that finishes the most of
    them before its end (in the matrix's order, a 15-minute whole matrix spent lane 0 on torch eager and half of
    torch.compile's cold repeat, TensorFlow's and JAX's cells none: docs/benchmarks.md). A lane that fits keeps its
    order, and so does one holding a cell's parts (runner.lanes), whose later part waits for its first."""
    by_lane, walls = arrangement
    ordered = []
    for lane, end in zip(by_lane, lane_ends(by_lane, walls)):
        if end > budget_s and not any(c.part for c in lane):
            lane = sorted(lane, key=lambda c: wall(c, walls))
        ordered.append(lane)
    return ordered, walls


def left_out(cell: Cell) -> str:
    """" (repeats 2-3 do not fit the budget)" for a cell the budget cuts to fewer repeats (fit), else ""."""
    if cell.planned >= cell.repeats:
        return ""
    first, last = cell.planned + 1, cell.repeats
    return f" (repeat{'s' * (last > first)} {first}{f'-{last}' * (last > first)} do{'es' * (last == first)} not " \
           "fit the budget)"


def budget_left(cells: list[Cell]) -> Optional[float]:
    """The seconds left of the run's time budget (the cells' stop_at: `--budget-s`), or None without one."""
    ends = [c.stop_at for c in cells if c.stop_at is not None]
    return max(0.0, min(ends) - time.time()) if ends else None


def within_budget(cells: list[Cell], walls: dict[str, list[estimate.Expected]]) -> dict[str, list[estimate.Expected]]:
    """A run's budget (the cells' shared stop_at) ends the run: the repeats expected past it are cut to the time
    left then, the ones after to nothing, as the harness cuts their cases short."""
    left = budget_left([c for c in cells if c.part_key in walls])
    if left is None:
        return walls
    capped: dict[str, list[estimate.Expected]] = {}
    for key, repeats in walls.items():  # in the run's order
        capped[key] = []
        for wall in repeats:
            seconds = min(wall.seconds, left)
            left -= seconds
            capped[key].append(replace(wall, seconds=seconds, whole_s=wall.seconds if seconds < wall.seconds else None))
    return capped


