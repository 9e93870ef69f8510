"""A run's time budget (`runner matrix --budget-s S`, `make matrix BUDGET_S=S`): the repeats that fit it, breadth
first (runner.budget.fit: every cell's first repeat, then the second ones, ...), the dry run saying which do not, and a
run that stops at its end with every case so far kept, the rest recorded as cut short, the repeats left out named in
the cell's reason; --resume runs them."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import ROOT, runner_cli, small_matrix

from portability_harness.records import store
from runner import budget, lanes, matrix
from runner.estimate import Expected
from runner.plan import Options, plan
from runner.project import Project

# Minutes a repeat of each CPU cell in the whole `make matrix` of 2026-11-28 (results/reference/matrix-cpu-2026-11-28/,
# tf-xla-cpu from the eager reference): the first repeat cold, the later ones served by its caches.
MINUTES = {("torch-cpu", "eager"): [0.5, 0.4, 0.4], ("torch-cpu", "compiled"): [20.6, 3.0, 3.0],
           ("tf-cpu", "eager"): [1.3, 1.2, 1.2], ("tf-cpu", "compiled"): [3.7, 3.7, 3.7],
           ("jax-cpu", "eager"): [5.4, 2.6, 2.6], ("jax-cpu", "compiled"): [7.1, 2.8, 2.9],
           ("tf-xla-cpu", "eager"): [1.7], ("jax-xla-cpu", "eager"): [4.8], ("torch-xla-cpu", "eager"): [30.8]}


def _cells(compilers: tuple[str, ...]):
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    return [c for c in plan(project, Options(backend="local", compilers=compilers)) if c.runnable]


def _walls_of(by_lane):
    return {c.part_key: [Expected(round(60 * MINUTES[c.name, c.compiler][r - 1]), "default") for r in c.own_repeats]
            for lane in by_lane for c in lane}


def _arrange(cells, budget_s=None):
    return lanes.balance(cells, 2, lanes.movable(cells, 2), _walls_of, budget_s=budget_s)


def _planned(by_lane) -> dict[str, int]:
    return {c.name + "/" + c.compiler: c.planned for lane in by_lane for c in lane}


def test_a_budget_keeps_every_first_repeat_then_adds_the_later_ones_that_fit():
    eager = _cells(("eager",))
    by_lane, _ = budget.fit(eager, 8 * 60, _arrange)
    # Lane 0's first repeats take 7.2 min: torch's second repeat (0.4) fits in what is left, TensorFlow's (1.2) and
    # JAX's (2.6) do not, and torch's third does (8.0 min). Lane 1 runs past the budget with torch-xla-cpu's first
    # repeat alone (30.8 min), which the budget's end cuts short: that leaves lane 0 its room.
    assert _planned(by_lane) == {"torch-cpu/eager": 3, "tf-cpu/eager": 1, "jax-cpu/eager": 1, "tf-xla-cpu/eager": 1,
                                 "jax-xla-cpu/eager": 1, "torch-xla-cpu/eager": 1}
    ends = lanes.lane_ends(by_lane, _walls_of(by_lane))
    assert ends[0] == 480 and ends[1] > 480
    assert [budget.left_out(c) for c in by_lane[0]] == ["", " (repeats 2-3 do not fit the budget)",
                                                       " (repeats 2-3 do not fit the budget)"]
    # Breadth first: with 9.8 min, every second repeat fits (7.2 + 0.4 + 1.2 ... = 11.4 would not); the third ones
    # come only after every second one.
    by_lane, _ = budget.fit(eager, 9.8 * 60, _arrange)
    assert {k: v for k, v in _planned(by_lane).items() if "xla" not in k} == {
        "torch-cpu/eager": 3, "tf-cpu/eager": 2, "jax-cpu/eager": 1}


def test_no_lane_that_fits_ends_past_the_budget_and_no_further_repeat_would_fit():
    cells = _cells(("eager", "compiled"))
    for minutes in (10, 30, 45, 60):
        budget_s = minutes * 60
        by_lane, _ = budget.fit(cells, budget_s, _arrange)
        firsts = budget.fit(cells, 0, _arrange)[0]  # no room: the first repeats alone
        assert all(c.planned == 1 for lane in firsts for c in lane)
        before = lanes.lane_ends(firsts, _walls_of(firsts))
        ends = lanes.lane_ends(by_lane, _walls_of(by_lane))
        assert all(end <= max(budget_s, first) for end, first in zip(ends, before)), (minutes, ends, before)
        planned = {c.key: c.planned for lane in by_lane for c in lane}
        assert all(planned[c.key] >= 1 for c in cells)
        for cell in (c for c in cells if planned[c.key] < c.repeats):  # one more repeat of any cell: past it
            more = [replace(c, fits=planned[c.key] + (c.key == cell.key)) for c in cells]
            trial = _arrange(more, budget_s)
            assert any(end > max(budget_s, first) for end, first in zip(lanes.lane_ends(*trial), before)), (
                minutes, cell.key)
    # A budget with room for everything changes nothing: the arrangement of a run without one.
    assert budget.fit(cells, 10 * 3600, _arrange)[0] == _arrange(cells)[0]


def test_a_lane_the_budget_cannot_hold_runs_its_cells_shortest_first():
    # The whole matrix in 15 minutes: lane 0's first repeats alone take 38.6. In the matrix's order, torch eager and
    # then torch.compile's cold repeat (20.6) take all of it (2026-12-07: TensorFlow's and JAX's cells none); shortest
    # first, four cells end whole within it, and torch.compile's is the one cut.
    cells = _cells(("eager", "compiled"))
    budget_s = 15 * 60
    by_lane, _ = budget.fit(cells, budget_s, _arrange)

    def whole(lane) -> list[str]:
        done, clock = [], 0.0
        for c in lane:
            clock += lanes.wall(c, _walls_of([[c]]))
            if clock <= budget_s:
                done.append(f"{c.name}/{c.compiler}")
        return done

    assert [f"{c.name}/{c.compiler}" for c in by_lane[0]] == [
        "torch-cpu/eager", "tf-cpu/eager", "tf-cpu/compiled", "jax-cpu/eager", "jax-cpu/compiled",
        "torch-cpu/compiled"]
    assert whole(by_lane[0]) == ["torch-cpu/eager", "tf-cpu/eager", "tf-cpu/compiled", "jax-cpu/eager"]
    in_order = _arrange([replace(c, fits=1) for c in cells], budget_s)[0]
    assert whole(in_order[0]) == ["torch-cpu/eager"]
    assert [c.name for c in by_lane[1]] == ["tf-xla-cpu", "jax-xla-cpu", "torch-xla-cpu"]
    # A lane that fits keeps the matrix's order: 8 minutes of the eager matrix's lane 0 (the first test).
    eager = budget.fit(_cells(("eager",)), 8 * 60, _arrange)[0]
    assert [c.name for c in eager[0]] == ["torch-cpu", "tf-cpu", "jax-cpu"]


def _dry_run(*args: str) -> dict[str, str]:
    proc = runner_cli("matrix", "--dry-run", "--compiler", "eager", "--skip", "torch-xla-cpu", *args)
    assert proc.returncode == 0, proc.stderr
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in proc.stdout.splitlines()
            if line.startswith("│ ") and line.split("│")[1].strip()]
    return {r[0]: r[5] for r in rows if r[6].startswith("run")}


def test_the_dry_run_says_which_repeats_do_not_fit_the_budget():
    # A minute: the timing cells' first repeats alone take longer (JAX's some 5 minutes), so no later one fits.
    assert _dry_run("--budget-s", "60") == {"torch-cpu": "1 of 3", "tf-cpu": "1 of 3", "jax-cpu": "1 of 3",
                                            "tf-xla-cpu": "1", "jax-xla-cpu": "1"}
    assert set(_dry_run("--budget-s", "0").values()) == set(_dry_run().values()) == {"3", "1"}  # 0: no budget
    assert set(_dry_run("--budget-s", "86400").values()) == {"3", "1"}
    proc = runner_cli("matrix", "--dry-run", "--budget-s", "-5")
    assert proc.returncode == 2 and "--budget-s -5: give a number of seconds" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_a_run_past_its_budget_keeps_what_it_measured_names_the_repeats_left_out_and_resume_runs_them(
        venv_for, tmp_path):
    """A budget shorter than torch's start-up: the first repeat's cases are all recorded as cut short (the worker
    plans them before the supervisor stops it), the two later repeats never start, and the cell says both. --resume,
    without a budget, measures the cases and runs the two repeats."""
    venv_for("torch-cpu")
    small_matrix(tmp_path, 'frameworks = ["torch"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 3\n'
                 'compiler = ["eager"]')
    out = tmp_path / "run"
    args = ("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--functions", "torch.cat",
            "--functions", "torch.bitwise_not", "--out", str(out))
    first = runner_cli(*args, "--budget-s", "2")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "Traceback" not in first.stdout + first.stderr
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["torch-cpu-current-r1.jsonl"]
    r1 = store.read(str(out / "torch-cpu-current-r1.jsonl"))
    assert r1.cases and all(c["cut_short"] == "run" and c["outcome"] == "interrupted" for c in r1.cases)
    (cell,) = json.loads((out / "merged.json").read_text())["cells"]
    assert cell["status"] == "cut_short", cell
    assert f"{len(r1.cases)} cases cut short by the run's time limits" in cell["reason"]
    assert "2 repeats of 3 not run: the run's time budget had no room for them (--resume runs them)" in cell["reason"]
    assert "2 repeats of 3 not run" in (out / "summary.md").read_text()
    again = runner_cli(*args, "--resume")
    assert again.returncode == 0, again.stderr[-3000:]
    (cell,) = json.loads((out / "merged.json").read_text())["cells"]
    assert cell["status"] == "done", cell
    for repeat in (1, 2, 3):
        contents = store.read(str(out / f"torch-cpu-current-r{repeat}.jsonl"))
        latest = {c["case_id"]: c for c in contents.cases}  # a resumed file appends the cases it measured
        assert latest and all(c["outcome"] == "passed" for c in latest.values()), repeat
        assert contents.footer is not None


@pytest.mark.slow
def test_a_run_slower_than_planned_leaves_out_a_later_repeat_before_a_first_one(venv_for, tmp_path):
    """A run that goes slower than its plan: a cell's second repeat is left out where, at the run's pace so far, it
    would leave the next cell's first repeat less time than that one needs (Scheduler.room_for). A case that sleeps
    until the per-case timeout makes torch eager's first repeat several times its expectation.

    The runner times the host's speed anew, so that its expectations may differ from the ones computed here by the
    moment's calibration (a shared host's moves 1.1-1.6 times within minutes, and the ratio is squared on a
    reference's own CPU; with the test's own tests beside it, a budget of the expected walls plus 12 s once let the
    second repeat run). The budget and the timeout are chosen so that the outcome holds for expectations from half to
    twice these."""
    from runner import arrangement

    venv_for("torch-cpu")
    cases = tmp_path / "cases" / "torch"
    cases.mkdir(parents=True)
    for name in ("test_steady.py", "test_sleeps.py"):
        (cases / name).write_text((ROOT / "tests" / "fault_cases" / "torch" / name).read_text())

    def matrix_file(timeout: int) -> None:
        small_matrix(tmp_path, 'frameworks = ["torch"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 2\n'
                     f'timeout = {timeout}\ncompiler = ["eager", "compiled"]')

    # Arranged once: the per-case timeout moves an expectation only for a case an earlier run took longer over
    # (estimate.LONG_CASE_S), and these cases' functions have none.
    matrix_file(60)
    project = Project.find(tmp_path / "matrix.toml", cases.parent)
    cells = [c for c in plan(project, Options(backend="local")) if c.runnable]
    by_lane, walls = arrangement.arrange(project, cells, 1)
    eager, compiled = (walls[c.key] for c in by_lane[0])
    # Every repeat fits the plan even at twice these walls; the eager first repeat then takes the timeout or more
    # (the sleeping case), and at the run's pace so far (runner.pace, bounded) its second repeat and the compiled
    # first one need more than the budget has left, even at half these walls.
    budget_s = 2 * sum(e.seconds for e in eager + compiled) + 12
    timeout = next((t for t in (60, 90, 120, 180, 240)
                    if all(_leaves_out(eager, compiled, budget_s, t, k) for k in (0.5, 2.0))), None)
    assert timeout is not None, f"no per-case timeout leaves the second repeat out: {eager, compiled}"
    matrix_file(timeout)
    out = tmp_path / "run"
    proc = runner_cli("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--curated", str(cases.parent),
                      "--backend", "local", "--lanes", "1", "--budget-s", f"{budget_s:.0f}", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "torch-cpu (current): repeat 2 and after left out" in proc.stdout, proc.stdout[-3000:]
    names = sorted(p.name for p in out.glob("*.jsonl"))
    assert "torch-cpu-current-r2.jsonl" not in names and "torch-cpu-current-compiled-r1.jsonl" in names, names
    eager_cell = next(c for c in json.loads((out / "merged.json").read_text())["cells"] if c["compiler"] == "eager")
    assert eager_cell["status"] == "cut_short" and "1 repeat of 2 not run" in eager_cell["reason"], eager_cell


def _leaves_out(eager, compiled, budget_s: float, first_s: float, k: float) -> bool:
    """Whether Scheduler.room_for leaves out eager's second repeat once its first has taken `first_s` (from the
    run's start) against walls `k` times these: what the second repeat and the compiled first one take at the run's
    pace then, against the budget left."""
    from runner.pace import Pace

    def scaled(e: Expected) -> Expected:
        return replace(e.whole, seconds=e.whole.seconds * k)

    pace = Pace()
    pace.ended_repeat(scaled(eager[0]), first_s)
    return pace.seconds([scaled(eager[1]), scaled(compiled[0])]) > budget_s - first_s
