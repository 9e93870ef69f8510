"""scripts/device_check.py's account of a step against the lent machine's deadline (fast: the harness's events are
replayed, no framework runs)."""
from __future__ import annotations

import importlib.util
import time

from conftest import ROOT
from portability_harness.protocol import CaseEnd, Config, Finished, Plan

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
