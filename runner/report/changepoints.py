"""Change points in one function's latency over a framework's releases: where ruptures puts a step in the log of
its warm medians, how large the step is (the median after / before) and how sure it is (scipy's Mann-Whitney U
test on the timings of the releases before the step against those after it).

A step is searched for on the log scale because latency changes multiply (2x slower is one step whatever the
function's size). The penalty a step must pay is set by the noise of a release's level: a step between two single
releases is kept when it exceeds PENALTY_SIGMAS standard deviations of the difference of two unchanged levels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import ruptures
from scipy.stats import mannwhitneyu, median_abs_deviation

from runner.report.tables import SIMILAR

PENALTY_SIGMAS = 3.0
# A level's noise is never taken as smaller than what keeps a step within SIMILAR (the report's "no change")
# below the penalty: without it, identical or nearly noiseless levels would make every tiny difference a step.
_NOISE_FLOOR = math.log(SIMILAR) / PENALTY_SIGMAS / math.sqrt(2)


@dataclass(frozen=True)
class ChangePoint:
    at: int  # position of the first release after the step
    before: float  # median level (seconds) of the releases from the previous step up to this one
    after: float  # median level (seconds) of the releases from this step up to the next
    ratio: float  # after / before: above 1 is slower after the step
    p_value: float  # two-sided Mann-Whitney U, before against after; NaN where a side has no timing
    observations: tuple[int, int]  # timings tested on each side


def level_noise(log_levels: Sequence[float]) -> Optional[float]:
    """The noise (standard deviation) of one release's log level, estimated from the series itself: the robust
    spread (MAD) of its consecutive differences, which a few steps barely move. None under four releases."""
    if len(log_levels) < 4:
        return None
    return float(median_abs_deviation(np.diff(log_levels), scale="normal")) / math.sqrt(2)


def pooled_noise(differences: Sequence[Sequence[float]]) -> Optional[float]:
    """The noise of one log level, from many functions' log differences between consecutive releases, one list
    per pair of releases. Each list is centred on its own median first, so that a change every function shares
    (a slower release, or another machine) does not count as noise. None under five differences in all."""
    centred = [d - np.median(d) for d in map(lambda x: np.asarray(x, float), differences) if len(d)]
    if sum(map(len, centred)) < 5:
        return None
    return float(median_abs_deviation(np.concatenate(centred), scale="normal")) / math.sqrt(2)


def find(levels: Sequence[float], timings: pd.DataFrame, noise: Optional[float] = None) -> list[ChangePoint]:
    """Change points of one series of release levels (seconds, one per release, in release order).

    `timings`: the observations the confidence is computed from, columns `release` (position in `levels`),
    `case` and `seconds` (warm samples, or each case's warm median per repeat). Each case's timings are divided
    by that case's median over the two segments compared, so that fast and slow cases of one function test
    together. `noise`: the standard deviation of one log level; estimated from the series where None (four
    releases or more), else the floor."""
    values = np.asarray(levels, dtype=float)
    logs = np.log(values)
    if len(logs) < 2 or not np.isfinite(logs).all():
        return []
    sigma = max(noise if noise is not None else (level_noise(logs) or 0.0), _NOISE_FLOOR)
    # Pelt's l2 cost of a segment is its sum of squared deviations: splitting two single releases saves
    # diff**2 / 2, so this penalty keeps a step of PENALTY_SIGMAS standard deviations of a difference.
    penalty = PENALTY_SIGMAS ** 2 * sigma ** 2
    ends = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(logs.reshape(-1, 1)).predict(pen=penalty)
    bounds = [0, *ends]  # ends closes with len(logs)
    points = []
    for start, at, stop in zip(bounds, bounds[1:], bounds[2:]):
        before, after = float(np.median(values[start:at])), float(np.median(values[at:stop]))
        p, sizes = confidence(timings, range(start, at), range(at, stop))
        points.append(ChangePoint(at, before, after, after / before, p, sizes))
    return points


def confidence(timings: pd.DataFrame, before: range, after: range) -> tuple[float, tuple[int, int]]:
    """Two-sided Mann-Whitney U p-value of the timings of the `before` releases against the `after` ones, each
    case's timings as log ratios to its own median over both; and how many timings each side had."""
    t = timings[timings["release"].isin([*before, *after]) & (timings["seconds"] > 0)]
    logs = np.log(t["seconds"].astype(float))
    centred = logs - logs.groupby(t["case"]).transform("median")
    side_before = centred[t["release"].isin(list(before))].to_numpy()
    side_after = centred[t["release"].isin(list(after))].to_numpy()
    sizes = (len(side_before), len(side_after))
    if not all(sizes):
        return float("nan"), sizes
    return float(mannwhitneyu(side_before, side_after, alternative="two-sided").pvalue), sizes
