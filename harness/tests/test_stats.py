"""Statistics: the quartiles a record stores and the rank test `runner compare` uses."""
from __future__ import annotations

import random

import pytest

from portability_harness.stats import mann_whitney_p, quartiles


def test_quartiles_interpolate_between_order_statistics():
    assert quartiles([]) == (None, None, None)
    assert quartiles([2.0]) == (2.0, 2.0, 2.0)
    assert quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 3.0, 4.0)
    assert quartiles([4.0, 1.0, 3.0, 2.0]) == (1.75, 2.5, 3.25)  # order of the input does not matter


def test_identical_samples_do_not_differ_and_separated_ones_do():
    assert mann_whitney_p([1.0] * 10, [1.0] * 10) == 1.0
    assert mann_whitney_p([1.0 + i / 100 for i in range(20)], [2.0 + i / 100 for i in range(20)]) < 1e-6
    with pytest.raises(ValueError):
        mann_whitney_p([], [1.0])


def test_mann_whitney_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats", reason="scipy is the reference here; the harness runs without it")
    rng = random.Random(7)
    for trial in range(40):
        n1, n2 = rng.randint(8, 60), rng.randint(8, 60)
        shift = rng.choice([0.0, 0.1, 0.5])
        # Rounded, so that ties occur and the tie correction is exercised.
        x = [round(rng.gauss(1.0, 0.3), 1) for _ in range(n1)]
        y = [round(rng.gauss(1.0 + shift, 0.3), 1) for _ in range(n2)]
        expected = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic").pvalue
        assert mann_whitney_p(x, y) == pytest.approx(expected, rel=1e-9, abs=1e-12), (trial, x, y)


def test_the_median_interval_is_the_order_statistics_a_binomial_gives():
    from portability_harness.stats import median_ci

    assert median_ci([1.0, 2.0, 3.0, 4.0, 5.0]) is None  # five samples cannot give 95%
    assert median_ci([float(i) for i in range(1, 7)]) == (1.0, 6.0)  # 1 - 2/64 = 96.9% >= 95%
    assert median_ci([float(i) for i in range(1, 101)]) == (40.0, 61.0)  # the textbook ranks for n = 100
    big = [float(i) for i in range(1, 2001)]
    low, high = median_ci(big)  # the normal approximation beyond 1,000
    assert 955 <= low <= 957 and 1044 <= high <= 1046


def test_the_median_interval_covers_the_true_median_as_often_as_it_claims():
    from portability_harness.stats import median_ci

    rng = random.Random(3)
    hits = 0
    for _ in range(400):
        sample = sorted(rng.expovariate(1.0) for _ in range(40))  # true median ln 2
        low, high = median_ci(sample, 0.9)
        hits += low <= 0.6931 <= high
    assert 0.86 <= hits / 400 <= 0.97  # about 90% (order statistics are conservative)
