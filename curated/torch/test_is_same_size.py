"""torch.Tensor.is_same_size: cases adapted from pytorch/pytorch test/test_torch.py (test_is_same_size: t1 (3, 4, 9, 10) against t2 (3, 4), t3 (1, 9, 3, 3) and t4 (3, 4, 9, 10)) and test/test_nestedtensor.py (is_same_size compares shapes only, not dtype, layout or strides). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `a.is_same_size(b)`; the answer must be a bool equal to (a.shape == b.shape), the
NumPy rule for two arrays' shapes.
"""
import numpy as np
import pytest
import torch

pytestmark = pytest.mark.function("torch.Tensor.is_same_size", decile=40, top20=False,
                                  backward="a bool answer (a shape comparison): no gradient")

UPSTREAM_TESTS = {
    "test/test_torch.py::TestTorch::test_is_same_size": ["test_is_same_size_upstream", "test_is_same_size_shape_only",
        "test_is_same_size_edge", "test_is_same_size_self_and_expanded"],
    "test/test_nestedtensor.py::TestNestedTensor::test_is_same_size":
        "nested tensors, which the study's cases do not build: the dense shape comparison is what the cases time",
}


def _check(result, a, b):
    assert isinstance(result, bool)
    expected = np.empty(tuple(a.shape)).shape == np.empty(tuple(b.shape)).shape
    assert result is expected


# test_is_same_size's four tensors: t1 vs t2 (False), t1 vs t3 (False, same numel), t1 vs t4 (True).
@pytest.mark.parametrize("other", [(3, 4), (1, 9, 3, 3), (3, 4, 9, 10)], ids=["t2", "t3", "t4"])
def test_is_same_size_upstream(bench, device, other):
    t1 = torch.empty((3, 4, 9, 10), device=device)
    t = torch.empty(other, device=device)
    result = bench(t1.is_same_size, t)
    _check(result, t1, t)


# Shape only: a different dtype, a transposed (non-contiguous) view of the same shape, a permutation.
@pytest.mark.parametrize("case", ["other_dtype", "strided_same_shape", "transposed_shape", "same_numel_reshaped"])
def test_is_same_size_shape_only(bench, device, case):
    a = torch.zeros((6, 6), device=device)
    b = {"other_dtype": lambda: torch.ones((6, 6), dtype=torch.int64, device=device),
         "strided_same_shape": lambda: torch.zeros((6, 6), device=device).t(),
         "transposed_shape": lambda: torch.zeros((4, 9), device=device),
         "same_numel_reshaped": lambda: torch.zeros(36, device=device)}[case]()
    result = bench(a.is_same_size, b)
    _check(result, a, b)


# Edge shapes: 0-d against 0-d and against (1,); empty tensors of equal and different shapes.
@pytest.mark.parametrize("shapes", [((), ()), ((), (1,)), ((0,), (0,)), ((0, 3), (3, 0)), ((2, 0, 3), (2, 0, 3))],
                         ids=["scalar-scalar", "scalar-1", "0-0", "0x3-3x0", "2x0x3-2x0x3"])
def test_is_same_size_edge(bench, device, shapes):
    a, b = torch.zeros(shapes[0], device=device), torch.zeros(shapes[1], device=device)
    result = bench(a.is_same_size, b)
    _check(result, a, b)


# A tensor against itself and against an expanded (stride-0) view of the same shape.
@pytest.mark.parametrize("case", ["self", "expanded"])
def test_is_same_size_self_and_expanded(bench, device, case):
    a = torch.randn((5, 7), device=device)
    b = a if case == "self" else torch.randn((1, 7), device=device).expand(5, 7)
    result = bench(a.is_same_size, b)
    _check(result, a, b)
