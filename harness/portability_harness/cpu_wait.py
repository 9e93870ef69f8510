"""How long a case waited for its CPU while another process had it: the scheduler's run delay of the thread that runs
the case (the second field of /proc/thread-self/schedstat: the time it was ready to run while another task had the
CPU), less what the worker's own other threads ran meanwhile (their CPU time: the process's less this thread's).

Why it is read at all: the calibration timed before each case (timing.calibrate) is the best of five loops of
0.25 ms, and each fits within one of the scheduler's time slices, so it reads the CPU's speed, not the share of it
the worker gets. A process on the worker's own CPU (a stray job, a neighbour the host put there) left it unchanged
on the 2-core development machine while lane 0's cases took 1.3-2.0 times as long (docs/benchmarks.md, "The
goals"); the run delay shows it (a loop beside a CPU-bound one on the same CPU: half its wall spent waiting).

The own threads are subtracted because a framework's pools wait for the same CPU too: JAX's cases, alone on one
CPU, spent 10 % of their wall in the main thread's run delay. Subtracting all their CPU time, including what they
ran while the main thread was not ready, makes this a lower bound of the wait for other processes.

Linux only (None elsewhere, or where the kernel keeps no schedstat); a small read and two clocks, about 10 us.
"""
from __future__ import annotations

import time
from typing import NamedTuple, Optional

SCHEDSTAT = "/proc/thread-self/schedstat"


class Reading(NamedTuple):
    run_delay_s: float  # this thread's time ready to run while another task had its CPU
    process_cpu_s: float  # the process's CPU time, all its threads
    thread_cpu_s: float  # this thread's


def read() -> Optional[Reading]:
    """The calling thread's reading now; None where the run delay cannot be read."""
    try:
        with open(SCHEDSTAT, "rb") as f:
            delay = int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None
    return Reading(delay, time.process_time(), time.thread_time())


def others_s(before: Reading, after: Reading) -> float:
    """The seconds between two readings of one thread that it waited for its CPU while another process had it."""
    own = (after.process_cpu_s - before.process_cpu_s) - (after.thread_cpu_s - before.thread_cpu_s)
    return max(0.0, (after.run_delay_s - before.run_delay_s) - max(0.0, own))
