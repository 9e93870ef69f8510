"""A run's pace as it goes (runner/pace.py): what is left of it, at the pace of its ended repeats."""
from __future__ import annotations

import pytest

from runner import estimate, pace


def test_what_is_left_of_a_run_is_expected_at_the_pace_of_its_ended_repeats():
    """A fresh clone's first run expects its repeats from the reference runs, which can be half as long again as
    what they take (docs/benchmarks.md, The goals): once repeats end, the rest is expected at their pace, each
    source at its own, bounded, and an expectation of nothing or a source with no ended repeat is left as it was."""
    run = pace.Pace()
    reference, host = estimate.Expected(100.0, "reference"), estimate.Expected(50.0, "this host")
    assert run.seconds([reference, host]) == 150.0 and run.overall() == 1.0
    run.ended_repeat(reference, 60.0)
    run.ended_repeat(estimate.Expected(0.0, "reference"), 30.0)  # a repeat expected at nothing sets no pace
    run.ended_repeat(estimate.Expected(100.0, "reference"), 80.0)
    assert run.factor("reference") == pytest.approx(0.7) and run.factor("this host") == 1.0
    assert run.seconds([reference, host]) == pytest.approx(70.0 + 50.0)
    assert run.overall() == pytest.approx(0.7)
    run.ended_repeat(host, 1000.0)  # a repeat far off (a host busy for minutes) moves the rest at most 4 times
    assert run.factor("this host") == pace.PACE_BOUNDS[1]
    assert run.overall() == pytest.approx(1140.0 / 250.0)
    slow = pace.Pace()
    slow.ended_repeat(host, 1.0)
    assert slow.factor("this host") == pace.PACE_BOUNDS[0]
