"""A case that outlasts a quick run's budget, for tests/test_quick_budget.py (not a curated function). It is a
backward case (it takes the `backward` fixture), so that the records the supervisor writes for it, having no
result of the case's own, must still say which pass it was."""
import time

import pytest
import torch

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)


def test_sleeps(backward, device):
    time.sleep(600)  # far past the budget the test gives, and past the quick per-case timeout
    backward(torch.add, torch.ones(2, device=device, requires_grad=True), torch.ones(2, device=device))


def test_adds(bench, device):
    bench(torch.add, torch.ones(2, device=device), torch.ones(2, device=device))
