"""Statistics shared by the harness (a case's quartiles) and the host (`runner compare`'s significance test).

Standard library only, so that the same definitions hold inside every environment and on the host.
"""
from __future__ import annotations

import math
import statistics
from typing import Optional, Sequence, Tuple


def quartiles(samples: Sequence[float]) -> Tuple[Optional[float], Optional[float], Optional[float]]:
    """(q1, median, q3) with the inclusive method (linear interpolation between order statistics, as
    NumPy's default percentile); one sample is all three; none gives Nones."""
    if len(samples) >= 2:
        q1, med, q3 = statistics.quantiles(samples, n=4, method="inclusive")
        return q1, med, q3
    if samples:
        return samples[0], samples[0], samples[0]
    return None, None, None


def mann_whitney_p(x: Sequence[float], y: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test that x and y come from the same distribution.

    The normal approximation with the tie correction and a continuity correction (scipy's
    `mannwhitneyu(x, y, method="asymptotic")`); meant for the eight or more samples a side that
    `runner compare` requires."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need at least one value")
    pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    rank_sum_x = 0.0
    tie_term = 0.0
    i, n = 0, n1 + n2
    while i < n:
        j = i
        while j + 1 < n and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        rank = (i + j) / 2 + 1  # mean rank of a run of ties
        t = j - i + 1
        tie_term += t ** 3 - t
        rank_sum_x += rank * sum(1 for k in range(i, j + 1) if pooled[k][1] == 0)
        i = j + 1
    u1 = rank_sum_x - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    mean = n1 * n2 / 2
    var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:  # every value the same
        return 1.0
    z = (u - mean - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def median_ci(ordered: Sequence[float], confidence: float = 0.95) -> Optional[Tuple[float, float]]:
    """A distribution-free confidence interval of the median from sorted samples: the order statistics
    x(j) and x(n+1-j) with the largest j such that P(B < j) <= (1 - confidence) / 2, B ~ Binomial(n, 1/2)
    (exact up to 1,000 samples, the normal approximation beyond). None when there are too few samples for
    any interval at that confidence (fewer than 6 at 95%)."""
    n = len(ordered)
    tail = (1.0 - confidence) / 2
    if n > 1000:
        z = _normal_quantile(1 - tail)
        j = int(math.floor((n - z * math.sqrt(n)) / 2))
    else:
        j, cumulative = 0, 0.0
        while j < n:
            # P(B = j) by logs: 0.5 ** n underflows long before n = 1000 does anything unusual.
            p = math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2))
            if cumulative + p > tail:
                break
            cumulative += p
            j += 1
    if j < 1 or j > n - j + 1:
        return None
    return ordered[j - 1], ordered[n - j]


def _normal_quantile(p: float) -> float:
    """The standard normal quantile, by bisection on erf (a handful of calls per run: speed does not matter)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
