"""A case whose timed call fails while its own frame holds the tensor it made. The harness lets a failed call's
frames go before it syncs the device after the call: on torch_xla, a lazy tensor whose graph failed to run fails
every later sync while it lives ("Check failed: tensor_data"), which had replaced the case's own error and retired
the worker. On the CPU nothing fails; the case's teardown says whether the tensor was still alive then (pytest
keeps the last failure's exception, and through it the frames, until the next case's call). Run only by
tests/test_isolation.py."""
import weakref

import pytest
import torch

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)

_released = []


@pytest.fixture
def released(record_fields):
    yield
    record_fields["released"] = bool(_released)  # read before the record is written


def test_a_call_fails_holding_its_output(bench, device, released):
    def fails():
        out = torch.ones(3, device=device) * 2
        weakref.finalize(out, _released.append, True)
        raise RuntimeError("the call failed after making its output")

    bench(fails)
