"""Normal cases that a test can stop between records (tests/test_resume.py, tests/test_faults.py)."""
import os
import time

import pytest
import torch

pytestmark = pytest.mark.function("torch.mul", decile=100, top20=True)


def _take_a_ticket() -> None:
    """With STEADY_TICKETS naming a folder, a case starts only once it has taken (deleted) one of the files there:
    the test hands out as many as it lets run before it stops the run, then waits for their records; a kill or a
    signal lands between records, whatever the machine's load. Without it, cases run at once."""
    folder = os.environ.get("STEADY_TICKETS")
    while folder:
        for ticket in sorted(os.listdir(folder)):
            try:
                os.remove(os.path.join(folder, ticket))
                return
            except FileNotFoundError:  # taken by another worker in the meantime
                continue
        time.sleep(0.01)


@pytest.mark.parametrize("n", range(12))
def test_mul(bench, device, n):
    _take_a_ticket()
    x = torch.full((4,), float(n), device=device)
    out = bench(torch.mul, x, x)
    assert torch.equal(out.cpu(), torch.full((4,), float(n * n)))
