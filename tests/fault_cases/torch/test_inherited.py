"""A case that fails with an error only an earlier case's failure leaves in a process (torch_xla's "Check failed:
tensor_data", raised for a tensor whose graph failed to run): not its own, so a new worker runs it again, first. Here
the case raises that message only where another case ran before it in the same process, and passes in a fresh one.
The run order (a hash of the ids) puts test_normal_1 first, then test_inherited_error, then the other two. Run only
by tests/test_isolation.py."""
import os

import pytest
import torch
from _support import normal_add

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)

_ran = []


def _normal(bench, device, record_fields):
    _ran.append(True)
    normal_add(bench, device, record_fields)


def test_normal_1(bench, device, record_fields):
    _normal(bench, device, record_fields)


def test_inherited_error(bench, device, record_fields):
    record_fields["pid"] = os.getpid()
    if _ran:
        raise RuntimeError("Check failed: tensor_data: ")
    x = torch.ones(3, device=device)
    assert torch.equal(bench(torch.add, x, x).cpu(), torch.full((3,), 2.0))


def test_normal_2(bench, device, record_fields):
    _normal(bench, device, record_fields)


def test_normal_3(bench, device, record_fields):
    _normal(bench, device, record_fields)
