"""A run's arrangement, made once before it starts (and by `runner matrix --dry-run`): which lane runs each cell
(runner.lanes, within a time budget runner.budget) and what each repeat is expected to take (runner.estimate, from
this host's earlier runs, else the reference runs scaled by this host's speed). runner.scheduler runs it."""
from __future__ import annotations

from typing import Callable, Optional

from runner import estimate, harness_dist, host_speed
from runner.budget import Arrangement, budget_left, fit, within_budget
from runner.cell import Cell
from runner.lanes import Walls, balance, lane_ends, movable
from runner.project import Project
from runner.rundir import RunDir

Sources = tuple[estimate.History, Callable[[], float]]


def sources(project: Project) -> Sources:
    """Where expectations come from: this host's earlier runs and the reference runs, and this host's speed (timed
    once, where a reference run's wall is scaled by it)."""
    return (estimate.History(project.root / "results", harness_dist.cache_dir() / "estimates.json"),
            host_speed.calibration_when_needed())


def expected(project: Project, lanes: list[list[Cell]], rundir: Optional[RunDir], known: Sources,
             capped: bool = True) -> Walls:
    """Per runnable cell (by key) of each lane (runner.lanes, lane 0 first): the expected wall of each repeat it
    will run (those not finished in `rundir`), from this host's earlier runs, else the reference runs scaled by this
    host's speed (runner.estimate; `known`: sources()). Every repeat of lane 0 but its first starts up on standby
    while the one before runs, where its backend can (not in a container): its start-up is left out of its wall.
    `capped`: a run's budget cuts the repeats expected past its end (within_budget)."""
    history, calibration = known
    out: dict[str, list[estimate.Expected]] = {}
    for number, cells in enumerate(lanes):
        walls: dict[str, list[estimate.Expected]] = {}
        begun = 0  # repeats of the lane before this one
        for cell in (c for c in cells if c.runnable):
            repeats = [r for r, _ in rundir.pending(cell)] if rundir else list(cell.own_repeats)
            names = estimate.selected(project.functions(cell.framework), cell.functions) \
                if cell.task == "cases" else None
            ahead = number == 0 and cell.backend != "docker"
            walls[cell.part_key] = [history.expect(estimate.setup(  # a later part (runner.lanes) starts cached
                cell.name, cell.profile.name, cell.framework, cell.device, cell.compiler, cell.mode, cell.quick,
                cell.task, later=i > 0 or cell.later_part, standby=ahead and begun + i > 0,
                timeout_s=cell.timeout_s), names,
                calibration)
                for i in range(len(repeats))]
            begun += len(repeats)
        out.update(within_budget(cells, walls) if capped else walls)  # the lanes spend the budget side by side
    return out


def arrange(project: Project, cells: list[Cell], lanes: int, cached_beside: Optional[bool] = None,
            rundir: Optional[RunDir] = None) -> tuple[list[list[Cell]], Walls]:
    """The cells of each lane (runner.lanes.assign) and what each repeat is expected to take (expected). Which CPU
    cells run their later repeats beside lane 0: every compiled one's and no eager one's (`cached_beside` True), none
    (False), or by default, in the run's order, each compiled cell whose move ends the run sooner than without it,
    by the lanes' expected ends, and after them the eager cells' likewise, each where it ends the run a minute sooner
    (lanes.balance). (On the 2-core machine: torch.compile's, TensorFlow's and, where torch-xla-cpu leaves lane 1 the
    time, JAX's, so that the lanes end within minutes of each other; lanes.assign runs their first repeats first,
    shortest first where that ends the run sooner.) Then
    the verdict cells, each kept in lane 0 after its timing cells where that ends the run sooner (lanes.balance).
    With a time budget (the cells' stop_at), the repeats that fit it (runner.budget.fit: every cell's first, then
    the second ones, ...), the cells of the others carrying `fits`."""
    known = sources(project)

    def walls_of(by_lane: list[list[Cell]]) -> Walls:  # uncapped: a budget's cut would hide what does not fit
        return expected(project, by_lane, rundir, known, capped=False)

    def lanes_of(these: list[Cell], budget_s: Optional[float] = None) -> Arrangement:
        candidates = movable(these, lanes, eager=cached_beside is None) if cached_beside is not False else []
        return balance(these, lanes, candidates, walls_of, choose=cached_beside is None, budget_s=budget_s)

    left = budget_left(cells)
    by_lane, _ = lanes_of(cells) if left is None else fit(cells, left, lanes_of)
    return by_lane, expected(project, by_lane, rundir, known)


def describe(lanes: list[list[Cell]], walls: dict[str, list[estimate.Expected]]) -> str:
    """The expected total of the run's repeats (estimate.describe) and, with lanes side by side, its wall: the
    longest lane's."""
    text = estimate.describe([e for repeats in walls.values() for e in repeats])
    per_lane = lane_ends(lanes, walls)
    if sum(1 for seconds in per_lane if seconds) > 1:
        text += (f"; in {len(lanes)} lanes side by side, about {estimate.format_wall(max(per_lane))} "
                 f"(the longest lane)")
    left = budget_left([c for lane in lanes for c in lane])
    if left is not None:
        text += (f"; a budget of {estimate.format_wall(left)} from the command's start: every cell's first repeat, "
                 "then later ones as they fit, and the run stops at its end (the cases not run recorded as cut "
                 "short; --resume runs them and the repeats left out)")
    return text


def of_cell(walls: dict[str, list[estimate.Expected]], cell: Cell) -> list[estimate.Expected]:
    """The expected walls of `cell`'s pending repeats, in whichever lanes they run (Cell.part_key)."""
    return [e for key, repeats in walls.items() if key.split("#")[0] == cell.key for e in repeats]


def total(walls: dict[str, list[estimate.Expected]], cell: Cell) -> float:
    return sum(e.seconds for e in of_cell(walls, cell))
