"""The timing protocol of design.md: a cold call, warm-up, then adaptive warm samples.

Every timed call ends with the framework's own sync of the whole output structure, so a sample is
the time until the result exists on the device, not the time to enqueue it.
"""
from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from portability_harness.stats import quartiles

clock = time.perf_counter
# Raw samples kept in a record: a fast op gives tens of thousands, and writing them all would cost
# more than the case itself. Statistics use every sample; the record keeps an evenly strided subset.
STORED_SAMPLES = 1000


@dataclass(frozen=True)
class Policy:
    """How many warm samples to take. Defaults suit a results run; `quick` suits CI."""

    warmup_count: int = 3
    warmup_time_s: float = 0.05
    min_count: int = 10
    min_time_s: float = 0.2
    max_time_s: float = 3.0
    max_count: int = 100_000
    single_call: bool = False  # paper mode: one timed call, nothing else

    @classmethod
    def named(cls, mode: str, quick: bool = False) -> "Policy":
        if mode == "paper":
            return cls(single_call=True)
        if quick:
            return cls(warmup_count=1, warmup_time_s=0.0, min_count=3, min_time_s=0.0, max_time_s=0.2)
        return cls()


@dataclass
class Measurement:
    cold_s: float
    warm_samples_s: List[float] = field(default_factory=list)
    compiled: Optional[bool] = None  # JAX: whether the timed call was jit-compiled
    recompiles: Optional[int] = None  # XLA backends: compilations seen during the warm samples

    def as_record(self) -> Dict[str, Any]:
        samples = self.warm_samples_s
        q1, med, q3 = quartiles(samples)
        stride = -(-len(samples) // STORED_SAMPLES) if samples else 1
        return {
            "cold_s": self.cold_s,
            "warm_samples_s": samples[::stride],
            "warm_count": len(samples),
            "warm_median_s": med,
            "warm_q1_s": q1,
            "warm_q3_s": q3,
            "compiled": self.compiled,
            "recompiles": self.recompiles,
        }


def measure(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    policy: Policy,
    counter: Callable[[], Optional[int]] = lambda: None,
    setup: Optional[Callable[[], None]] = None,
) -> "tuple[Any, Measurement]":
    """Time `call` (no arguments: the sampled function bound to its inputs). Returns the first result.

    `counter` reads the framework's compilation count: compilations after warm-up mean the steady
    state recompiles, which the record flags. `setup`, when given, runs before every call and outside
    every timed region: for a function that consumes, refuses or builds on its own previous effect (an
    infeed queue it drains, an export folder it will not overwrite, a graph it adds a Saver to)."""
    prepare = setup or (lambda: None)
    prepare()
    t0 = clock()
    first = call()
    sync(first)
    measurement = Measurement(cold_s=clock() - t0)
    if policy.single_call:
        measurement.warm_samples_s = [measurement.cold_s]
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
        while True:
            prepare()
            t0 = clock()
            out = call()
            sync(out)
            t1 = clock()
            samples.append(t1 - t0)
            del out
            elapsed = t1 - start
            if len(samples) >= policy.min_count and elapsed >= policy.min_time_s:
                break
            if elapsed >= policy.max_time_s or len(samples) >= policy.max_count:
                break
        compiled_after = counter()
        if compiled_before is not None and compiled_after is not None:
            measurement.recompiles = compiled_after - compiled_before
    finally:
        if gc_was_enabled:
            gc.enable()
    return first, measurement
