"""A case that fails with a CUDA sticky error between two normal cases: the worker is replaced before the next
case (a CUDA context that saw one is unusable for the rest of the process). The message is CUDA's own; on the CPU
nothing is poisoned, so the test sees the replacement by the process ids the cases record. Run only by
tests/test_isolation.py."""
import os

import pytest
from _support import normal_add

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)


def test_normal_before(bench, device, record_fields):
    normal_add(bench, device, record_fields)


def test_sticky_error(bench, device, record_fields):
    record_fields["pid"] = os.getpid()
    raise RuntimeError("CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
                       "asynchronously reported at some other API call, so the stacktrace below might be incorrect.")


def test_normal_after(bench, device, record_fields):
    normal_add(bench, device, record_fields)
