"""Slow-enough normal cases for the kill-and-resume test (tests/test_resume.py)."""
import time

import pytest
import torch

pytestmark = pytest.mark.function("torch.mul", decile=100, top20=True)


@pytest.mark.parametrize("n", range(12))
def test_mul(bench, device, n):
    time.sleep(0.25)  # untimed: gives the test time to kill the run between records
    x = torch.full((4,), float(n), device=device)
    out = bench(torch.mul, x, x)
    assert torch.equal(out.cpu(), torch.full((4,), float(n * n)))
