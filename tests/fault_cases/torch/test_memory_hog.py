"""A case that holds more memory than the cell's limit (run with a limit of about 1 GiB)."""
import pytest
import torch

pytestmark = pytest.mark.function("torch.zeros", decile=100, top20=True)


def test_holds_three_gib(bench, device):
    hog = b"\x01" * (3 << 30)  # written, so resident: not just reserved
    x = bench(torch.zeros, 3, device=device)
    assert len(hog) and torch.equal(x.cpu(), torch.zeros(3))


def test_small(bench, device):
    assert torch.equal(bench(torch.zeros, 3, device=device).cpu(), torch.zeros(3))
