"""`runner matrix --dry-run`: the cells a run would run, where (backend, lane), how many repeats (fewer where its
time budget leaves no room: runner.budget.fit) and what each is expected to take, and why any cannot run."""
from __future__ import annotations

from typing import Optional

from portability_harness import compat
from rich.table import Table

from runner import arrangement, backends, budget, estimate, prefetch
from runner import lanes as lanes_
from runner.cell import Cell
from runner.project import Project


def dry_run_table(project: Project, cells: list[Cell], lanes: int, cached_beside: Optional[bool],
                  address: Optional[str]) -> Table:
    by_lane, walls = arrangement.arrange(project, [c for c in cells if c.runnable], lanes, cached_beside)
    planned = {part.key: part for lane in by_lane for part in lane}  # with the repeats that fit the budget
    t = Table(title=f"{len(cells)} cells" + (f" on the Ray cluster at {address}" if address else ""),
              caption=arrangement.describe(by_lane, walls))
    for col in ("image", "profile", "device", "compiler", "needs" if address else "backend", "repeats", "will",
                "expected", "reason"):
        t.add_column(col, overflow="fold")
    for c in cells:
        where = f"a node with cell:{c.device}" if address else c.backend
        will, reason = ("run" if c.runnable else c.initial_status), c.reason or ""
        if c.runnable and backends.is_existing(c.backend) and not address:
            from runner.backends import existing

            reason = existing.versions(existing.interpreter(c.backend), c.framework, project.harness_dir)
        elif c.runnable and c.compiler == "compiled" and compat.compiler_reason(
                c.framework, c.profile.packages.get(c.framework)):
            will, reason = "incompatible", compat.compiler_reason(c.framework, c.profile.packages[c.framework])
        elif c.runnable and c.device == "cuda" and not address:
            will, reason = _compatibility(c, project)
        if will == "run" and not reason and not address and c.backend == "local" and not prefetch.ready(project, c):
            reason = "its venv is built first, a download the expected wall does not count"
        expected = arrangement.total(walls, c) if will == "run" else None
        fitted = planned.get(c.key, c)
        repeats = str(c.repeats) if fitted.planned == c.repeats or will != "run" else f"{fitted.planned} of {c.repeats}"
        cut = will == "run" and any(e.cut for e in arrangement.of_cell(walls, c))
        will += lanes_.where(c, by_lane) + budget.left_out(fitted) if will == "run" else ""
        will += " (cut short at the budget's end)" if cut else ""
        t.add_row(c.name, c.profile.name, c.device, c.compiler, where, repeats, will, estimate.format_wall(expected),
                  reason)
    return t


def _compatibility(cell: Cell, project: Project) -> tuple[str, str]:
    """A runnable cuda cell in a dry run: incompatible where its built venv's framework cannot run on this GPU."""
    from runner.backends import local

    later = "whether its build can run on this GPU is checked when the cell starts"
    if cell.backend != "local" or not local.venv_path(cell.image, cell.profile).exists():
        return "run", later
    known = local.known_incompatibility(cell, project.harness_dir)
    return ("incompatible", known) if known else ("run", "")
