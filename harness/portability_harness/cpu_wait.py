"""How long the worker waited for its CPU during a case: the scheduler's run delay of the thread that runs the case
(the second field of /proc/thread-self/schedstat: nanoseconds it was ready to run while another task had the CPU).

Why it is read at all: the calibration timed before each case (timing.calibrate) is the best of five loops of
0.25 ms, and each fits within one of the scheduler's time slices, so it reads the CPU's speed, not the share of it
the worker gets. A process on the worker's own CPU (a stray job, a neighbour the host put there) left it unchanged
on the 2-core development machine while lane 0's cases took 1.3-2.0 times as long (docs/benchmarks.md, "The goals");
a thread's run delay shows it (a loop beside a CPU-bound one on the same CPU: half its wall spent waiting).

Linux only (None elsewhere, or where the kernel keeps no schedstat); one small read, about 8 us.
"""
from __future__ import annotations

from typing import Optional

SCHEDSTAT = "/proc/thread-self/schedstat"


def run_delay_s() -> Optional[float]:
    """The calling thread's run delay so far, in seconds; None where it cannot be read."""
    try:
        with open(SCHEDSTAT, "rb") as f:
            fields = f.read().split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None
