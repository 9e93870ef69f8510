"""What the torch fault cases share: a normal case beside the faulty ones, which records its worker's process id."""
import os

import torch


def normal_add(bench, device, record_fields):
    record_fields["pid"] = os.getpid()
    x = torch.arange(6, dtype=torch.float32, device=device)
    assert torch.equal(bench(torch.add, x, x).cpu(), torch.arange(6, dtype=torch.float32) * 2)
