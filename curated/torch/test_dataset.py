"""torch.utils.data.Dataset: cases adapted from pytorch/pytorch test/test_dataloader.py (TestConcatDataset.test_add_dataset and the map-style Dataset subclasses the file defines: CountingDataset, a tensor-backed dataset, a generic Dataset[T]). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Dataset is the abstract map-style base class; what it implements itself is construction (also of
subclasses and of the subscripted generic Dataset[T]) and `__add__`, which chains datasets into a
ConcatDataset. The timed calls are those. The tensors a dataset holds live on the cell's device;
each case checks the dataset's length and items against NumPy.
"""
import operator

import numpy as np
import pytest
import torch
from torch.utils.data import ConcatDataset, Dataset, TensorDataset

pytestmark = pytest.mark.function("torch.utils.data.Dataset", decile=80, top20=False,
                                  backward="a data container (indexing returns stored samples): nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "test/test_dataloader.py::TestConcatDataset::test_add_dataset": ["test_dataset_add_tensor_datasets",
        "test_dataset_add_operator_mixed", "test_dataset_add_chain"],
    "test/test_dataloader.py::TestDataLoader::test_len": ["test_dataset_base", "test_dataset_subclass_construct"],
}


class CountingDataset(Dataset):
    """Like upstream's CountingDataset: item i is i."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def __getitem__(self, i):
        return i

    def __len__(self):
        return self.n


class TensorRowsDataset(Dataset):
    """A map-style dataset over the rows of a tensor (and optional labels)."""

    def __init__(self, data, labels=None):
        self.data = data
        self.labels = labels

    def __getitem__(self, i):
        if self.labels is None:
            return self.data[i]
        return self.data[i], self.labels[i]

    def __len__(self):
        return self.data.shape[0]


class IntDataset(Dataset[int]):
    """A subclass of the subscripted generic."""

    def __init__(self, values):
        self.values = list(values)

    def __getitem__(self, i):
        return self.values[i]

    def __len__(self):
        return len(self.values)


def _rows(shape, device, seed):
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return array, torch.from_numpy(array).to(device)


# The abstract base itself: constructible, but __getitem__ is left to subclasses.
def test_dataset_base(bench, device):
    ds = bench(Dataset)
    assert type(ds) is Dataset
    with pytest.raises(NotImplementedError):
        ds[0]
    assert not hasattr(Dataset, "__len__")  # no default __len__, on purpose


# Subclass construction: counting, tensor rows with labels, the generic Dataset[int].
@pytest.mark.parametrize("kind", ["counting", "tensor_rows", "generic_int"])
def test_dataset_subclass_construct(bench, device, kind):
    if kind == "counting":
        ds = bench(CountingDataset, 7)
        assert isinstance(ds, Dataset)
        assert len(ds) == 7 and [ds[i] for i in range(7)] == list(range(7))
        return
    if kind == "tensor_rows":
        array, data = _rows((10, 3, 4), device, 0)
        labels = torch.arange(10, device=device)
        ds = bench(TensorRowsDataset, data, labels)
        assert isinstance(ds, Dataset) and len(ds) == 10
        x, y = ds[4]
        assert x.device == data.device and x.dtype == torch.float32 and tuple(x.shape) == (3, 4)
        np.testing.assert_array_equal(x.cpu().numpy(), array[4])
        assert int(y) == 4
        return
    ds = bench(IntDataset, range(5, 10))
    assert isinstance(ds, Dataset) and len(ds) == 5
    assert [ds[i] for i in range(5)] == [5, 6, 7, 8, 9]


# TestConcatDataset.test_add_dataset: d1 + d2 (tensor datasets of 7 and 7 rows, as upstream's
# 7x3x28x28 rand tensors, here smaller) gives a ConcatDataset of 14 whose items are both parts in order.
@pytest.mark.parametrize("sizes", [(7, 7), (3, 11), (0, 5)], ids=lambda s: "+".join(map(str, s)))
def test_dataset_add_tensor_datasets(bench, device, sizes):
    a_np, a = _rows((sizes[0], 3, 8, 8), device, 1)
    b_np, b = _rows((sizes[1], 3, 8, 8), device, 2)
    d1, d2 = TensorRowsDataset(a), TensorRowsDataset(b)
    result = bench(Dataset.__add__, d1, d2)
    assert isinstance(result, ConcatDataset)
    assert len(result) == sum(sizes)
    expected = np.concatenate([a_np, b_np])
    for i in range(len(result)):
        item = result[i]
        assert item.dtype == torch.float32 and tuple(item.shape) == (3, 8, 8)
        np.testing.assert_array_equal(item.cpu().numpy(), expected[i])
    assert list(result.cumulative_sizes) == list(np.cumsum(sizes))


# The `+` operator on plain subclasses, with upstream's TensorDataset as the right operand.
def test_dataset_add_operator_mixed(bench, device):
    a_np, a = _rows((4, 5), device, 3)
    labels = torch.arange(4, device=device)
    left = CountingDataset(3)
    right = TensorDataset(a, labels)
    result = bench(operator.add, left, right)
    assert isinstance(result, ConcatDataset) and len(result) == 7
    assert [result[i] for i in range(3)] == [0, 1, 2]
    for i in range(4):
        x, y = result[3 + i]
        np.testing.assert_array_equal(x.cpu().numpy(), a_np[i])
        assert int(y) == i
    assert result[-1][1].item() == 3  # negative indices count from the end


# Chaining three datasets, as upstream's d1 + d2 + d3: the timed call is the second `+`, whose left
# operand is already a ConcatDataset.
def test_dataset_add_chain(bench, device):
    parts = [IntDataset(range(0, 4)), IntDataset(range(10, 12)), IntDataset(range(20, 25))]
    result = bench(Dataset.__add__, parts[0] + parts[1], parts[2])
    assert isinstance(result, ConcatDataset) and len(result) == 11
    assert [result[i] for i in range(11)] == [0, 1, 2, 3, 10, 11, 20, 21, 22, 23, 24]
