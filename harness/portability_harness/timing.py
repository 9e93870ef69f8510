"""The timing protocol: a cold call, warm-up, then warm samples until the median is precise (or the cap).

Every timed call ends with the framework's own sync of the whole output structure, so a sample is
the time until the result exists on the device, not the time to enqueue it.
"""
from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from portability_harness.stats import median_ci, quartiles

clock = time.perf_counter
# Raw samples kept in a record: a fast op gives tens of thousands, and writing them all would cost
# more than the case itself. Statistics use every sample; the record keeps an evenly strided subset.
STORED_SAMPLES = 1000


@dataclass(frozen=True)
class Policy:
    """When to stop sampling. Steady mode stops when the median is known precisely enough: the order-statistic
    confidence interval of the median (stats.median_ci) is within `precision` of it (relative half-width), once
    `min_count` samples and `min_time_s` are in. A case that cannot get there stops at the cap (`max_time_s` or
    `max_count`), or earlier when the interval, narrowing as 1/sqrt(n), would not reach the target before the
    cap at the pace sampling goes (`unreachable`); its record says which and carries the interval reached.
    `quick` takes a few samples (checks cases, not for results); paper mode times one call, as the 2023 study
    did."""

    # A short warm-up (one call and 1 ms) and floor (10 samples and 2 ms): the interval takes samples as
    # independent, but a host's disturbances last milliseconds to seconds, so a short window's median moves
    # between repeats on a busy host whatever the interval says, and a longer window does not fix that.
    # Comparisons between runs therefore use each case's minimum sample (host interference only adds time).
    # On a 2-core VM, the old 10 ms warm-up and 20 ms floor cost 3.8x a quick pass; 2 ms and 5 ms cost
    # 2.1-2.2x for torch and TensorFlow; these (with the projection after 12 samples) cost under 2x, with
    # repeats agreeing by the minimum as closely (benchmarks/matrix_speed.py; figures in docs/method.md).
    warmup_count: int = 1
    warmup_time_s: float = 0.001
    min_count: int = 10
    min_time_s: float = 0.002
    max_time_s: float = 1.0
    max_count: int = 100_000
    precision: Optional[float] = 0.01  # None: stop at min_count and min_time_s, whatever the spread
    confidence: float = 0.95
    single_call: bool = False  # paper mode: one timed call, nothing else
    name: str = "steady"  # what the record's `warm_stop` says when the policy itself ends sampling

    @classmethod
    def named(cls, mode: str, quick: bool = False, precision: Optional[float] = 0.01,
              confidence: float = 0.95) -> "Policy":
        if mode == "paper":
            return cls(single_call=True, name="single")
        if quick:
            return cls(warmup_count=1, warmup_time_s=0.0, min_count=3, min_time_s=0.0, max_time_s=0.2,
                       precision=None, name="quick")
        return cls(precision=precision, confidence=confidence)


# Between two looks at the interval, the sample count grows by this factor: sorting at each look costs
# O(n log n), so looking after every sample would dominate fast functions.
_LOOK_GROWTH = 1.2
# Samples before the pace of the interval's narrowing is trusted to predict that the cap comes first. At 12
# the 95% interval is (x3, x10), already a fair estimate of the spread; waiting for 20 spent most of the cap
# on slow calls (10 ms and more) that were never going to reach the target.
_PROJECT_AFTER = 12


@dataclass
class Measurement:
    cold_s: float
    warm_samples_s: List[float] = field(default_factory=list)
    compiled: Optional[bool] = None  # JAX: whether the timed call was jit-compiled
    recompiles: Optional[int] = None  # XLA backends: compilations seen during the warm samples
    stop: str = ""  # precise (met the target), cap (time or count ran out), unreachable, quick, single
    ci: Optional[Tuple[float, float]] = None  # the median's confidence interval when sampling stopped
    confidence: Optional[float] = None
    wall_s: float = 0.0  # the whole measurement: cold call, warm-up, samples (and their setup calls)

    def as_record(self) -> Dict[str, Any]:
        samples = self.warm_samples_s
        q1, med, q3 = quartiles(samples)
        stride = -(-len(samples) // STORED_SAMPLES) if samples else 1
        return {
            "cold_s": self.cold_s,
            "warm_samples_s": [_to_ns(s) for s in samples[::stride]],
            "warm_count": len(samples),
            "warm_median_s": med,
            "warm_q1_s": q1,
            "warm_q3_s": q3,
            "warm_min_s": min(samples) if samples else None,
            "warm_ci_low_s": self.ci[0] if self.ci else None,
            "warm_ci_high_s": self.ci[1] if self.ci else None,
            "warm_confidence": self.confidence if self.ci else None,
            "warm_stop": self.stop,
            "compiled": self.compiled,
            "recompiles": self.recompiles,
        }


def _to_ns(seconds: float) -> float:
    """A sample as the clock gave it, to the nanosecond: a difference of two floats near the clock's value (seconds
    since boot) carries binary noise in its last digits, which JSON would write out in full (21 characters a
    sample instead of about 9: half of a record's size and of its encoding time). The statistics use the
    samples as measured."""
    return round(seconds * 1e9) / 1e9


def relative_half_width(ci: Optional[Tuple[float, float]], median: float) -> float:
    """How far the interval reaches from the median, relative to it (the wider side); inf without one."""
    if ci is None or median <= 0:
        return math.inf
    return max(median - ci[0], ci[1] - median) / median


def measure(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    policy: Policy,
    counter: Callable[[], Optional[int]] = lambda: None,
    setup: Optional[Callable[[], None]] = None,
) -> "tuple[Any, Measurement]":
    """Time `call` (no arguments: the sampled function bound to its inputs). Returns the first result.

    A sample is one call, the framework's sync of its whole output, and the release of that output: the
    cost of a result the caller drops, as timeit and torch.utils.benchmark count it. `counter` reads the
    framework's compilation count: compilations after warm-up mean the steady state recompiles, which the
    record flags. `setup`, when given, runs before every call and outside every timed region: for a
    function that consumes, refuses or builds on its own previous effect (an infeed queue it drains, an
    export folder it will not overwrite, a graph it adds a Saver to)."""
    begun = clock()
    prepare = setup or (lambda: None)
    prepare()
    t0 = clock()
    first = call()
    sync(first)
    measurement = Measurement(cold_s=clock() - t0)
    if policy.single_call:
        measurement.warm_samples_s = [measurement.cold_s]
        measurement.stop = policy.name
        measurement.wall_s = clock() - begun
        return first, measurement

    # The collector would otherwise run at random inside samples; timeit disables it the same way.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        n = 0
        while n < policy.warmup_count or clock() - start < policy.warmup_time_s:
            prepare()
            sync(call())
            n += 1
            if clock() - start > policy.max_time_s / 4:
                break
        samples = measurement.warm_samples_s
        compiled_before = counter()
        start = clock()
        look = policy.min_count
        while True:
            prepare()
            t0 = clock()
            out = call()
            sync(out)
            del out
            t1 = clock()
            samples.append(t1 - t0)
            elapsed = t1 - start
            if len(samples) >= policy.min_count and elapsed >= policy.min_time_s:
                if policy.precision is None:
                    measurement.stop = policy.name
                    break
                if len(samples) >= look:
                    ordered = sorted(samples)
                    measurement.ci = median_ci(ordered, policy.confidence)
                    width = relative_half_width(measurement.ci, ordered[len(ordered) // 2])
                    if width <= policy.precision:
                        measurement.stop = "precise"
                        break
                    if len(samples) >= _PROJECT_AFTER and _out_of_reach(len(samples), width, elapsed, policy):
                        measurement.stop = "unreachable"
                        break
                    look = max(len(samples) + 1, int(len(samples) * _LOOK_GROWTH))
            if elapsed >= policy.max_time_s or len(samples) >= policy.max_count:
                measurement.stop = "cap" if policy.precision is not None else policy.name
                break
        if policy.precision is not None:
            measurement.ci = median_ci(sorted(samples), policy.confidence)
            measurement.confidence = policy.confidence
        compiled_after = counter()
        if compiled_before is not None and compiled_after is not None:
            measurement.recompiles = compiled_after - compiled_before
    finally:
        if gc_was_enabled:
            gc.enable()
        measurement.wall_s = clock() - begun
    return first, measurement


def _out_of_reach(n: int, width: float, elapsed: float, policy: Policy) -> bool:
    """Whether the interval, narrowing as 1/sqrt(n), would still be wider than the target when the cap stops
    sampling, at the pace samples have come so far (setup included): then sampling on only spends the cap."""
    needed = n * (width / policy.precision) ** 2  # type: ignore[operator]
    pace = elapsed / n
    return needed > policy.max_count or (needed - n) * pace > policy.max_time_s - elapsed


def calibrate() -> float:
    """The host's speed now: the best of five runs of a fixed pure-Python workload (about 0.3 ms). Timed
    before every case, it lets a reader see the host change speed during a run and compare cases in units
    of it."""
    best = math.inf
    for _ in range(5):
        t0 = clock()
        total = 0
        for i in range(5000):
            total += i * i
        best = min(best, clock() - t0)
    return best
