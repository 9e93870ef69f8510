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
# (docs/benchmarks.md, The goals). On another CPU model the loop's speed carries only partly to a cell's wall, whose
# imports, compiles and native kernels the loop does not time: four models' eager matrices, each expected from each
# other's (benchmarks/cross_cpu_scaling.py), came within 25 % for 46 of 66 cells by the ratio's square root, 37 as
# they ran, 40 by the ratio, 19 squared. Fragile: leaving out one model at a time, the square root led or tied three
# times of four, and without the Zen 5 guest's run (2026-12-04) as they ran led, 23 cells to 18.
SAME_CPU_EXPONENT, OTHER_CPU_EXPONENT = 2.0, 0.5
# A name is not a model: a host timing the loop this much quicker than a reference it matches by name alone runs
# another CPU of that name. On a reference's own model the idle host read 0.85-0.99 of its cases' median (2026-12-01
# and 03); a Zen 5 guest named "AMD EPYC" and an Intel Xeon with AVX512-FP16, each named as a reference's CPU, read
# 0.59-0.68, and the Zen 5 guest's cells ran at 0.70-0.93 of its namesake's walls, not the 0.35-0.46 the ratio squared
# said (docs/benchmarks.md). A slower host of the name stays ambiguous: the model-1 EPYC, 1.1-1.3 times slower by the
# loop, ran as a busy host of the reference's kind would.
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


def scaled_by_name(calibration_s: Optional[float], reference_calibration_s: Optional[float],
                   reference_cpu: Optional[str], reference_identity: Optional[Dict[str, Any]]) -> bool:
    """Whether a reference is scaled as of this host's kind of CPU by its CPU's name alone: one of the two hosts
    recorded no identity, the names agree, and this host is not so much quicker (NAME_ONLY_QUICKEST) as to be another
    CPU of that name (two CPUs of one name have timed the calibration 1.5 times apart)."""
    both_identified = bool(reference_identity and this_cpu_identity())
    return (not both_identified and bool(reference_cpu) and reference_cpu == this_cpu()
            and bool(calibration_s and reference_calibration_s)
            and calibration_s / reference_calibration_s >= NAME_ONLY_QUICKEST)


def slower_by(calibration_s: Optional[float], reference_calibration_s: Optional[float],
              reference_cpu: Optional[str], reference_identity: Optional[Dict[str, Any]] = None) -> float:
    """How much slower this host is, its calibration `calibration_s`, than a reference run whose cases' median
    calibration was `reference_calibration_s` on `reference_cpu` (its CPU model's name, where known) of
    `reference_identity` (where recorded): their ratio raised to SAME_CPU_EXPONENT on this host's kind of CPU (its
    identity, else its name: scaled_by_name), to OTHER_CPU_EXPONENT on another; 1 where a calibration or the
    reference's CPU is unknown (an accelerator machine's records name none)."""
    if not calibration_s or not reference_calibration_s or not reference_cpu:
        return 1.0
    same = same_identity(reference_identity) or scaled_by_name(calibration_s, reference_calibration_s,
                                                                reference_cpu, reference_identity)
    return (calibration_s / reference_calibration_s) ** (SAME_CPU_EXPONENT if same else OTHER_CPU_EXPONENT)
