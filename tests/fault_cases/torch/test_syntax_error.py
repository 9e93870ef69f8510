"""A module with a syntax error: found by its text, recorded as case_error."""
import pytest

pytestmark = pytest.mark.function("torch.sign", decile=100, top20=True)


def test_broken(bench, device)
    pass
