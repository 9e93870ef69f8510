"""The order a worker runs its cases in: fixed by a hash of each case's id, not module by module.

Run one after another, a function's cases all fall in the same few seconds, and a shared host that slows
down for a few seconds (another tenant, a frequency change) slows every case of that function: two runs
then disagree about the function as a whole. Spread over the run, a slow stretch touches a few cases of
many functions, and the function's median case ratio (runner compare) holds. The same spread keeps a
census op's dtypes apart: an op that aborts the process tends to abort in every dtype, and one after
another those aborts would come faster than the supervisor's spare worker can import a framework.

The order depends only on the ids, so every repeat, machine and mode runs the cases in the same order."""
from __future__ import annotations

import hashlib
from typing import Callable, Iterable, List, TypeVar

T = TypeVar("T")


def spread(items: Iterable[T], case_id: Callable[[T], str]) -> List[T]:
    """`items` in the run order: sorted by the SHA-1 of their case ids."""
    return sorted(items, key=lambda item: hashlib.sha1(case_id(item).encode()).hexdigest())
