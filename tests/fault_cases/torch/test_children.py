"""Cases that start processes and leave them running: the harness must end them when the case ends."""
import subprocess

import pytest
import torch

pytestmark = pytest.mark.function("torch.neg", decile=100, top20=True)

# A distinctive command line, so that a leftover is known by its name in a failure's message.
MARK = "599.25"


def test_leaves_a_child(bench, device):
    subprocess.Popen(["sleep", MARK])
    x = torch.ones(3, device=device)
    assert torch.equal(bench(torch.neg, x).cpu(), -torch.ones(3))


def test_leaves_a_daemon(bench, device):
    # The shell exits at once: the sleep is re-parented away from the worker, yet stays in its session.
    subprocess.run(["sh", "-c", f"sleep {MARK} &"], check=True)
    x = torch.ones(3, device=device)
    assert torch.equal(bench(torch.neg, x).cpu(), -torch.ones(3))
