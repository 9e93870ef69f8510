"""A run's pace as it goes: its ended repeats' walls against what runner.estimate expected of them, and what is
left of it at that pace (the progress display's countdown)."""
from __future__ import annotations

import threading
from typing import Dict, Iterable, List, NamedTuple

from runner.estimate import Expected

# How far this run's pace may move what is left of it: a repeat or two that ran far off their expectation (a cell
# that failed at once, a host busy for a minute) must not turn the countdown into nonsense.
PACE_BOUNDS = (0.25, 4.0)


class Pace:
    """A run's pace so far: the repeats that ended against what was expected of them, kept apart by where each
    expectation came from (this host's runs are seldom far off; a reference run scaled by the calibration can be
    half as long again, as the host's speed moves in ways a pure-Python calibration does not see: docs/benchmarks.md,
    The goals). What is left of the run is then expected at that pace; the expectations said before the run began
    (the summary's) are not changed."""

    def __init__(self) -> None:
        self.ended: Dict[str, List[float]] = {}  # source -> [expected s, actual s]
        self.lock = threading.Lock()  # the lanes' threads end repeats

    def ended_repeat(self, expected: Expected, actual_s: float) -> None:
        if expected.seconds > 0:
            with self.lock:
                done = self.ended.setdefault(expected.source, [0.0, 0.0])
                done[0] += expected.seconds
                done[1] += actual_s

    def factor(self, source: str) -> float:
        """What the repeats expected from `source` took against their expectation (1 where none has ended)."""
        with self.lock:
            expected_s, actual_s = self.ended.get(source, (0.0, 0.0))
        if not expected_s:
            return 1.0
        low, high = PACE_BOUNDS
        return min(max(actual_s / expected_s, low), high)

    def seconds(self, expected: Iterable[Expected]) -> float:
        """The expected seconds of `expected`, each at the pace of the repeats from its source that have ended."""
        return sum(e.seconds * self.factor(e.source) for e in expected)

    def overall(self) -> float:
        """The run's pace in all: what its ended repeats took against what was expected of them (1: none ended)."""
        with self.lock:
            expected_s = sum(e for e, _ in self.ended.values())
            return sum(a for _, a in self.ended.values()) / expected_s if expected_s else 1.0


class Left(NamedTuple):
    """What a run has left from a repeat's start: `seconds` at its `pace` so far (Pace.overall; 1: as expected)."""
    seconds: float
    pace: float = 1.0
