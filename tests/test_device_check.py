"""scripts/device_check.py's account of a step against the lent machine's deadline (fast: the harness's events are
replayed, no framework runs), and the plan it makes to fit a budget (runner/budget_plan.py, with the reference runs'
step walls); tests/test_existing_env.py runs the check itself."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from portability_harness.protocol import CaseEnd, Config, Finished, Plan
from portability_harness.records import store

from runner import budget_plan

CFG = Config(framework="torch", device="cuda", curated_root="unused", out="unused.jsonl")


def device_check():
    spec = importlib.util.spec_from_file_location("device_check", ROOT / "scripts" / "device_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Replay:
    """An environment whose run yields the given events, the last one once `deadline` has passed (None: at once)."""

    def __init__(self, events, deadline: float | None = None):
        self.events, self.deadline = events, deadline

    def run(self, cfg):
        yield from self.events[:-1]
        if self.deadline is not None:
            assert time.monotonic() < self.deadline, "the first events came after the deadline: the step ran late"
            while time.monotonic() <= self.deadline:
                time.sleep(0.01)
        yield self.events[-1]


def test_a_step_that_ends_after_the_deadline_with_every_case_done_is_not_called_stopped():
    check = device_check()
    cases = [CaseEnd(case_id=f"c{i}", function="f", outcome="failed" if i == 0 else "passed") for i in range(3)]
    deadline = time.monotonic() + 1
    env = Replay([Plan(), *cases, Finished(counts={"passed": 2, "failed": 1})], deadline)
    line = check.run(env, CFG, "torch-cuda compiled", deadline=deadline)
    assert line == "torch-cuda compiled: 3 cases, 1 failed"


def test_a_step_still_running_at_the_deadline_is_stopped_and_says_how_far_it_got():
    check = device_check()
    env = Replay([Plan(), CaseEnd(case_id="c0", function="f", outcome="passed"), CaseEnd(case_id="c1", function="f",
                 outcome="passed"), Finished()])
    line = check.run(env, CFG, "jax-cuda steady", deadline=time.monotonic() - 1)
    assert line == "jax-cuda steady: stopped at the deadline after 0 cases, 0 failed"


# --- the plan of a budgeted check (runner/budget_plan.py) --------------------------------------------------------

GPU_CELLS = [("torch", "cuda"), ("jax", "cuda")]
ALL = {"torch": ([f"torch.f{i}" for i in range(62)], 62), "jax": ([f"jax.f{i}" for i in range(62)], 62)}


def overlaps(a: budget_plan.Planned, b: budget_plan.Planned) -> bool:
    return a.start_s < b.end_s and b.start_s < a.end_s


def test_a_lent_gpu_plans_every_step_of_pytorch_and_jax_within_the_default_budget():
    """What a lent GPU must give (issue 46): PyTorch and JAX eager, compiled, declared and census in one window, by
    the reference runs' step walls, in the lanes a 16-core host gets."""
    check = device_check()
    lanes = 3
    queue = budget_plan.steps(GPU_CELLS, check.DEFAULT_STEPS, ALL, check.DEFAULT_BUDGET_S, lanes)
    plan = budget_plan.simulate(queue, lanes, check.DEFAULT_BUDGET_S)
    assert not plan.left_out
    got = {(p.step.framework, p.step.name) for p in plan.planned}
    assert got == {(f, s) for f in ("torch", "jax") for s in ("steady", "compiled", "declared", "census")}
    assert all(p.end_s <= check.DEFAULT_BUDGET_S for p in plan.planned)
    # torch.compile's cases, longer than half the budget, are split over two lanes by function, each once.
    parts = [p.step for p in plan.planned if (p.step.framework, p.step.name) == ("torch", "compiled")]
    assert len(parts) == 2 and sorted(f for s in parts for f in s.functions) == sorted(ALL["torch"][0])
    # A lane runs one step at a time.
    for a in plan.planned:
        for b in plan.planned:
            if a is not b and a.lane == b.lane:
                assert not overlaps(a, b), (a, b)


def test_jax_eager_longer_than_half_the_budget_is_split_over_lanes_on_a_gpu():
    """JAX's eager cases with their backward ones took about 570 s on an H100 (results/reference/h100-2026-11-27).
    The check turns JAX's preallocation off beside other lanes, so its steps share the GPU: the step is split by
    function over the three lanes like torch.compile's, each function once, and everything fits.
    (With JAX one process at a time on the GPU, its eager step alone would not fit in the 440 s.)"""
    walls = {"steady": 570.0, "compiled": 300.0, "declared": 25.0, "census": 690.0}
    queue = budget_plan.steps([("jax", "cuda")], ("steady", "compiled", "declared", "census"), ALL, 440.0, 3,
                              lambda framework, device, step: (walls[step], "given"))
    plan = budget_plan.simulate(queue, 3, 440.0)
    steady = [p for p in plan.planned if p.step.name == "steady"]
    assert len(steady) == 3 and sorted(f for p in steady for f in p.step.functions) == sorted(ALL["jax"][0])
    assert all(overlaps(a, b) for a in steady for b in steady) and not plan.left_out
    assert {p.step.name for p in plan.planned} == set(walls) and all(p.end_s <= 440.0 for p in plan.planned)


def test_a_short_budget_keeps_the_accelerators_first_steps_and_lists_what_does_not_fit():
    queue = budget_plan.steps([*GPU_CELLS, ("torch", "cpu")], ("steady", "compiled", "census"), ALL, 400.0, 1)
    plan = budget_plan.simulate(queue, 1, 400.0)
    order = [p.step.label for p in plan.planned]
    assert order[:2] == ["torch-cuda steady", "jax-cuda steady"]  # every accelerator's eager cases first
    assert all(b.start_s >= a.end_s for a, b in zip(plan.planned, plan.planned[1:]))  # one lane: one at a time
    assert plan.planned[-1].end_s <= 400.0
    assert {s.label for s in plan.left_out} >= {"torch-cuda compiled", "torch-cpu steady"}
    assert sorted(s.label for s in [*(p.step for p in plan.planned), *plan.left_out]) == sorted(s.label for s in queue)
    assert any(line.startswith("  does not fit: torch-cuda compiled") for line in plan.lines())


def test_tensorflow_on_a_gpu_runs_beside_nothing_and_a_tpu_is_one_process_at_a_time():
    cells = [("tensorflow", "cuda"), ("torch", "cuda"), ("jax", "tpu"), ("torch", "tpu")]
    selected = {**ALL, "tensorflow": ([f"tf.f{i}" for i in range(67)], 67)}
    plan = budget_plan.simulate(budget_plan.steps(cells, ("steady", "declared"), selected, 3000.0, 3), 3, 3000.0)
    for a in plan.planned:
        for b in plan.planned:
            if a is not b and a.step.device == b.step.device and "tensorflow" in (a.step.framework, b.step.framework):
                assert not overlaps(a, b), (a, b)
            if a is not b and a.step.device == b.step.device == "tpu":
                assert not overlaps(a, b), (a, b)
    assert not plan.left_out


def test_the_cpu_alone_runs_one_step_at_a_time():
    check = device_check()
    assert check.lanes_for([("jax", "cpu"), ("torch", "cpu")]) == 1
    assert check.lanes_for([("jax", "cuda"), ("jax", "cpu")]) >= 1


@pytest.mark.slow
def test_a_budgeted_check_runs_its_lanes_side_by_side_and_stops_cleanly_at_the_budget(venv_for, tmp_path):
    """JAX on this CPU, two lanes: the curated cases (given as 30 s, so planned; JAX's 62 functions take minutes on
    any CPU) beside the census. At the budget both stop; each records the cases it did not run as cut short, and
    every case of the steady step and every pair of the census has its one record."""
    python = venv_for("jax-cpu").python
    out = tmp_path / "check"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "device_check.py"), "--python", python, "--out",
                           str(out), "--no-report", "--steps", "steady,census", "--expect", "steady=30", "--budget-s",
                           "61", "--lanes", "2"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = (out / "device-check.txt").read_text().splitlines()
    assert lines[1:4] == ["plan: 2 lanes within 61 s (expected walls: default, given)",
                          "  lane 1: jax-cpu steady 0-30 s", "  lane 2: jax-cpu census 0-61 s (until the budget)"]
    (steady,) = [l for l in lines if l.startswith("jax-cpu steady: ")]
    (census,) = [l for l in lines if l.startswith("jax-cpu census: ")]
    assert " cut short at the budget (lane 1, 0-" in steady and "(lane 2, 0-" in census
    records = store.read(str(out / "jax-cpu-existing.jsonl"))
    cut = [c for c in records.cases if c.get("cut_short")]
    assert cut and all(c["cut_short"] == "run" and c["outcome"] == "interrupted" for c in cut)
    assert f"{len(records.cases) - len(cut)} cases, " in steady and f", {len(cut)} cut short" in steady
    assert len({c["case_id"] for c in records.cases}) == len(records.cases) and records.footer["cut_short"] == len(cut)
    pairs = json.loads((out / "jax-cpu-existing-census.census.json").read_text())
    census_records = store.read(str(out / "jax-cpu-existing-census.jsonl"))
    assert sorted(c["case_id"] for c in census_records.cases) == sorted(pairs)
