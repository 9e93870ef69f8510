"""A case that outlasts a quick run's budget, for tests/test_quick_budget.py (not a curated function)."""
import time

import pytest
import torch

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)


def test_sleeps(bench, device):
    time.sleep(600)  # far past the budget the test gives, and past the quick per-case timeout
    bench(torch.add, torch.ones(2, device=device), torch.ones(2, device=device))
