"""This host's speed now: what a reference run's walls are scaled by (runner.estimate). Standard library only, as
runner.estimate (scripts/device_check.py uses both)."""
from __future__ import annotations

import functools
import statistics
import time
from typing import Any, Callable, Dict, Optional

# calibration_now's samples: spread over three seconds, since a burst can last two (docs/benchmarks.md); those within
# CALM of the quickest few (the 5th percentile) are the host undisturbed.
NOW_SAMPLES, NOW_SPACING_S, CALM = 120, 0.025, 1.1
# On the CPU model a reference run was made on, a slower calibration is the host shared with other work, and the cases,
# which touch far more memory than the loop, slow by about its square: over the reference runs of the 2-core machine,
# each predicting the others at their own calibrations, 40 of 42 cells within 25 % squared, 27 of 42 as is
# (docs/benchmarks.md, The goals). Against another CPU model the loop's speed does not carry to the cases: three
# machines' eager timing cells ran within 0.93-1.19 of each other's walls while their loop times stood at 0.67-0.87
# of each other's (tests/data/intel-avx512fp16-eager-2026-12-02), so a reference of another CPU model is taken as it
# ran. Two of those machines named their CPU alike: a CPU is told by its identity where both records have one.
SAME_CPU_EXPONENT = 2.0
# A name is not a model: a host timing the loop this much quicker than a reference it matches by name alone runs
# another CPU of that name, whose reference is taken as it ran. On a reference's own model the idle host read
# 0.85-0.99 of its cases' median (2026-12-01 and 03); a Zen 5 guest named "AMD EPYC" and an Intel Xeon with
# AVX512-FP16, each named as a reference's CPU, read 0.59-0.68, and the Zen 5 guest's cells ran at 0.65-0.93 of its
# namesake's walls, not the 0.35-0.46 the ratio squared said (docs/benchmarks.md). A slower host of the name stays
# ambiguous: the model-1 EPYC, 1.1-1.3 times slower by the loop, ran as a busy host of the reference's kind would.
NAME_ONLY_QUICKEST = 0.75


def calibration_now() -> float:
    """This host's speed now, undisturbed: the calibration (harness timing.calibrate, as every case record times it)
    sampled over three seconds, the median of the samples within CALM of the quickest few. On this kind of shared
    machine the calibration comes in bursts, a quarter to half of a repeat's cases timing it 1.3-1.6 times slower; a
    reference repeat's median over its cases says how much of that it met. A moment's burst says nothing of the run
    to come, though: one in the first second of a run made all its expectations 1.45 times too long. A run that meets
    more bursts than its reference did is counted at its pace as it goes (runner.pace)."""
    from portability_harness.timing import calibrate

    samples = []
    for _ in range(NOW_SAMPLES):
        samples.append(calibrate())
        time.sleep(NOW_SPACING_S)
    quickest = sorted(samples)[len(samples) // 20]
    return statistics.median(s for s in samples if s <= CALM * quickest)


def calibration_when_needed() -> Callable[[], float]:
    """calibration_now, timed the first time it is called and kept: its three seconds are spent only where an
    expectation comes from a reference run, not where this host's own runs give every one."""
    return functools.lru_cache(maxsize=None)(calibration_now)


@functools.lru_cache(maxsize=None)
def this_cpu() -> str:
    from portability_harness import host_cpu

    return host_cpu.model()


@functools.lru_cache(maxsize=None)
def this_cpu_identity() -> Optional[Dict[str, Any]]:
    from portability_harness import host_cpu

    return host_cpu.identity()


def same_identity(reference_identity: Optional[Dict[str, Any]]) -> bool:
    """Whether a reference recorded this host's CPU identity (harness host_cpu: vendor, family, model, stepping, the
    kernels' instruction-set extensions): the surest sign it ran on this kind of CPU."""
    return bool(reference_identity) and reference_identity == this_cpu_identity()


def same_cpu(reference_cpu: Optional[str], reference_identity: Optional[Dict[str, Any]]) -> bool:
    """Whether a reference ran on this host's kind of CPU: its identity where both hosts recorded one, else its name
    (the records of before 2026-12-02 name their CPU only: by_name_only)."""
    return same_identity(reference_identity) or by_name_only(reference_cpu, reference_identity)


def by_name_only(reference_cpu: Optional[str], reference_identity: Optional[Dict[str, Any]]) -> bool:
    """Whether a reference counts as this host's kind of CPU by its name alone, one of the two hosts having recorded
    no identity: two CPUs of one name have timed the calibration 1.5 times apart."""
    both_identified = bool(reference_identity and this_cpu_identity())
    return not both_identified and bool(reference_cpu) and reference_cpu == this_cpu()


def slower_by(calibration_s: Optional[float], reference_calibration_s: Optional[float],
              reference_cpu: Optional[str], reference_identity: Optional[Dict[str, Any]] = None) -> float:
    """How much slower this host is, its calibration `calibration_s`, than a reference run whose cases' median
    calibration was `reference_calibration_s` on `reference_cpu` (its CPU model's name, where known) of
    `reference_identity` (where recorded): on this host's kind of CPU (same_cpu) their ratio raised to
    SAME_CPU_EXPONENT; 1 on another (by its name alone: NAME_ONLY_QUICKEST), or where a calibration or the
    reference's CPU is unknown."""
    if not calibration_s or not reference_calibration_s or not same_cpu(reference_cpu, reference_identity):
        return 1.0
    ratio = calibration_s / reference_calibration_s
    if ratio < NAME_ONLY_QUICKEST and by_name_only(reference_cpu, reference_identity):
        return 1.0
    return ratio ** SAME_CPU_EXPONENT
