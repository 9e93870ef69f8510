"""A module whose test dependency is missing: its function is recorded as case_error, the rest still runs."""
import pytest
import torch  # noqa: F401

import no_such_test_dependency_here  # noqa: F401

pytestmark = pytest.mark.function("torch.abs", decile=100, top20=True)


def test_never_collected(bench, device):
    bench(torch.abs, torch.ones(2, device=device))
