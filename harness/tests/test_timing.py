"""The timing protocol on a plain Python callable: cold call apart, warm-up, sample bounds, paper mode."""
from __future__ import annotations

import time

import pytest

from portability_harness.timing import Policy, measure


def test_steady_takes_at_least_min_count_and_min_time():
    calls = []
    policy = Policy(warmup_count=2, warmup_time_s=0.0, min_count=5, min_time_s=0.05, max_time_s=1.0)
    first, m = measure(lambda: calls.append(1) or len(calls), lambda out: None, policy)
    assert first == 1  # the result of the first call
    assert len(m.warm_samples_s) >= 5
    assert sum(m.warm_samples_s) <= 1.0 + 0.1
    assert len(calls) >= 1 + 2 + len(m.warm_samples_s)
    rec = m.as_record()
    assert rec["warm_q1_s"] <= rec["warm_median_s"] <= rec["warm_q3_s"]


def test_cold_call_is_timed_apart_from_warm_samples():
    state = {"first": True}

    def fn():
        if state["first"]:
            state["first"] = False
            time.sleep(0.3)  # stands for compilation on the first call (long beside a busy machine's hiccups)

    _, m = measure(fn, lambda out: None, Policy.named("steady", quick=True))
    assert m.cold_s >= 0.3
    assert max(m.warm_samples_s) < 0.3


def test_sync_ends_every_sample():
    synced = []
    _, m = measure(lambda: 1, synced.append, Policy(warmup_count=1, warmup_time_s=0, min_count=3, min_time_s=0))
    assert len(synced) == 1 + 1 + len(m.warm_samples_s)


def test_cap_bounds_a_slow_function():
    _, m = measure(lambda: time.sleep(0.02), lambda out: None,
                   Policy(warmup_count=0, warmup_time_s=0, min_count=1000, min_time_s=0, max_time_s=0.1))
    assert len(m.warm_samples_s) < 10


def test_paper_mode_is_one_timed_call():
    calls = []
    _, m = measure(lambda: calls.append(1), lambda out: None, Policy.named("paper"))
    assert len(calls) == 1 and m.warm_samples_s == [m.cold_s]


def test_recompilations_during_warm_samples_are_counted():
    count = {"n": 0}

    def fn():
        count["n"] += 1  # every call "compiles"

    _, m = measure(fn, lambda out: None, Policy(warmup_count=1, warmup_time_s=0, min_count=4, min_time_s=0),
                   counter=lambda: count["n"])
    assert m.recompiles == len(m.warm_samples_s)


def test_record_keeps_every_statistic_but_a_bounded_sample_list():
    _, m = measure(lambda: None, lambda out: None,
                   Policy(warmup_count=0, warmup_time_s=0, min_count=5000, min_time_s=0, max_time_s=5))
    rec = m.as_record()
    assert rec["warm_count"] == len(m.warm_samples_s) >= 5000
    assert len(rec["warm_samples_s"]) <= 1000
    # Stored to the nanosecond, the clock's resolution: the float difference's binary noise is not written out.
    assert rec["warm_samples_s"][0] == pytest.approx(m.warm_samples_s[0], abs=0.5e-9)
    assert all(s * 1e9 == pytest.approx(round(s * 1e9), abs=1e-6) for s in rec["warm_samples_s"])


def test_setup_runs_before_every_call_and_outside_the_timed_region():
    log = []

    def setup():
        log.append("setup")
        time.sleep(0.1)  # stands for refilling a queue or clearing an export folder (long beside a busy machine's
        # hiccups)

    _, m = measure(lambda: log.append("call"), lambda out: None,
                   Policy(warmup_count=2, warmup_time_s=0, min_count=5, min_time_s=0), setup=setup)
    assert log == ["setup", "call"] * (1 + 2 + len(m.warm_samples_s))
    assert max(m.warm_samples_s) < 0.1 and m.cold_s < 0.1


def _spin(seconds: float) -> None:
    """Busy for about `seconds` of this thread's CPU time (sleep would measure the scheduler, not a steady cost)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.fixture
def cpu_clock(monkeypatch):
    """The timing protocol's clock made this thread's CPU time: a spin then costs the same however busy the machine
    is (on the wall clock, other processes' turns on a loaded 2-core machine made half the samples several times
    longer, and the stopping rule rightly gave up). What is tested is the stopping rule, on a steady cost."""
    from portability_harness import timing

    monkeypatch.setattr(timing, "clock", time.thread_time)


def test_a_steady_call_stops_once_its_median_is_precise(cpu_clock):
    policy = Policy(warmup_count=1, warmup_time_s=0, min_count=10, min_time_s=0.0, max_time_s=5.0,
                    precision=0.05)
    _, m = measure(lambda: _spin(0.002), lambda out: None, policy)
    rec = m.as_record()
    assert rec["warm_stop"] == "precise"
    low, high, median = rec["warm_ci_low_s"], rec["warm_ci_high_s"], rec["warm_median_s"]
    assert low <= median <= high and max(median - low, high - median) / median <= 0.05
    assert rec["warm_confidence"] == 0.95 and rec["warm_min_s"] <= median
    assert sum(m.warm_samples_s) < 2.0  # far from the cap: it stopped when the interval was narrow


def test_a_call_too_noisy_for_the_target_stops_when_the_target_is_out_of_reach(cpu_clock):
    import random

    rng = random.Random(1)
    policy = Policy(warmup_count=1, warmup_time_s=0, min_count=10, min_time_s=0.0, max_time_s=2.0,
                    precision=0.001)
    _, m = measure(lambda: _spin(rng.choice([0.0005, 0.002])), lambda out: None, policy)
    rec = m.as_record()
    # Half the calls take four times the other half: ±0.1% would take far longer than the 2 s cap allows.
    assert rec["warm_stop"] == "unreachable"
    assert rec["warm_ci_low_s"] < rec["warm_ci_high_s"]  # the interval reached is recorded, wide as it is
    assert sum(m.warm_samples_s) < 1.0  # it did not spend the cap on a target it could not reach


def test_a_slow_noisy_call_stops_at_the_cap_and_says_so(cpu_clock):
    import random

    rng = random.Random(2)
    policy = Policy(warmup_count=1, warmup_time_s=0, min_count=10, min_time_s=0.0, max_time_s=0.3,
                    precision=0.001)
    # Too few samples fit in the cap to judge the pace (12 are needed; about 8 fit): sampling runs to the cap.
    _, m = measure(lambda: _spin(rng.choice([0.02, 0.06])), lambda out: None, policy)
    rec = m.as_record()
    assert rec["warm_stop"] == "cap" and rec["warm_ci_low_s"] < rec["warm_ci_high_s"]
    assert rec["warm_count"] < 12
    assert 0.3 <= sum(m.warm_samples_s) < 0.3 + 0.06 + 0.05  # the cap plus at most the last call


def test_quick_and_paper_keep_their_own_rules():
    _, quick = measure(lambda: None, lambda out: None, Policy.named("steady", quick=True))
    assert quick.stop == "quick" and quick.ci is None and len(quick.warm_samples_s) >= 3
    _, paper = measure(lambda: None, lambda out: None, Policy.named("paper"))
    assert paper.stop == "single" and len(paper.warm_samples_s) == 1


def test_the_output_is_released_inside_the_sample():
    """A sample counts the release of its output, as timeit does: an object whose release costs shows."""
    class Costly:
        def __del__(self):
            _spin(0.003)

    _, m = measure(Costly, lambda out: None, Policy(warmup_count=0, warmup_time_s=0, min_count=5, min_time_s=0,
                                                    precision=None))
    assert min(m.warm_samples_s) >= 0.003
