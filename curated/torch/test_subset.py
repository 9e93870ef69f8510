"""torch.utils.data.Subset: cases adapted from pytorch/pytorch test/test_dataloader.py (TestDatasetRandomSplit.test_slicing_of_subset_of_dataset, test_slicing_of_subset_of_subset, test_splits_indexing_type; TestSubset-style length and item checks over a TensorDataset). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Two kinds of timed call: constructing a Subset (over a TensorDataset whose tensors live on the
cell's device, with list, range or tensor indices, and over another Subset) and indexing one
(an int, a slice, a list). Every item is checked against the NumPy rows it must pick.
"""
import numpy as np
import pytest
import torch
from torch.utils.data import Subset, TensorDataset

pytestmark = pytest.mark.function("torch.utils.data.Subset", decile=60, top20=False,
                                  backward="a data container (indexing returns stored samples): nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "test/test_dataloader.py::TestDatasetRandomSplit::test_slicing_of_subset_of_dataset": ["test_subset_getitem",
        "test_subset_getitem_large_slice"],
    "test/test_dataloader.py::TestDatasetRandomSplit::test_slicing_of_subset_of_subset":
        ["test_subset_construct_of_subset"],
    "test/test_dataloader.py::TestDatasetRandomSplit::test_splits_indexing_type": ["test_subset_construct"],
}


def _dataset(device, n=10, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((n, 3)).astype(np.float32)
    labels = np.arange(n, dtype=np.int64) * 10
    return data, labels, TensorDataset(torch.from_numpy(data).to(device), torch.from_numpy(labels).to(device))


def _assert_items(subset, data, labels, picked):
    assert len(subset) == len(picked)
    for i, j in enumerate(picked):
        x, y = subset[i]
        assert x.dtype == torch.float32 and tuple(x.shape) == (3,)
        np.testing.assert_array_equal(x.cpu().numpy(), data[j])
        assert int(y) == labels[j]


# Construction with the index kinds test_splits_indexing_type covers: list, range, a tensor of indices.
@pytest.mark.parametrize("kind", ["list", "range", "tensor", "empty"])
def test_subset_construct(bench, device, kind):
    data, labels, ds = _dataset(device)
    picked = {"list": [7, 2, 2, 9, 0], "range": list(range(1, 8, 3)), "tensor": [4, 5, 6], "empty": []}[kind]
    indices = {"list": picked, "range": range(1, 8, 3), "tensor": torch.tensor(picked), "empty": []}[kind]
    subset = bench(Subset, ds, indices)
    assert isinstance(subset, Subset) and subset.dataset is ds
    _assert_items(subset, data, labels, picked)


# test_slicing_of_subset_of_subset: a Subset of a Subset composes the index maps.
def test_subset_construct_of_subset(bench, device):
    data, labels, ds = _dataset(device)
    inner = Subset(ds, [1, 3, 5, 7, 9])
    subset = bench(Subset, inner, [4, 0, 2])
    assert subset.dataset is inner
    _assert_items(subset, data, labels, [9, 1, 5])


# test_slicing_of_subset_of_dataset: subset[i], subset[a:b], subset[a:b:c] equal the dataset's picks.
@pytest.mark.parametrize("index", [0, -1, slice(None), slice(1, 2), slice(0, -1, 2), [3, 0, 1]],
                         ids=["0", "-1", ":", "1:2", "0:-1:2", "list"])
def test_subset_getitem(bench, device, index):
    data, labels, ds = _dataset(device, n=8, seed=1)
    indices = [6, 1, 4, 3, 0]
    subset = Subset(ds, indices)
    result = bench(subset.__getitem__, index)
    picks = np.asarray(indices)[index]
    x, y = result
    assert x.dtype == torch.float32 and y.dtype == torch.int64
    np.testing.assert_array_equal(x.cpu().numpy(), data[picks])
    np.testing.assert_array_equal(y.cpu().numpy(), labels[picks])


# A larger dataset, sliced by a strided half of its rows.
def test_subset_getitem_large_slice(bench, device):
    data, labels, ds = _dataset(device, n=100_000, seed=2)
    indices = list(range(0, 100_000, 2))
    subset = Subset(ds, indices)
    result = bench(subset.__getitem__, slice(100, 20_100))
    x, y = result
    assert tuple(x.shape) == (20_000, 3)
    np.testing.assert_array_equal(x.cpu().numpy(), data[200:40_200:2])
    np.testing.assert_array_equal(y.cpu().numpy(), labels[200:40_200:2])
