"""torch.utils.data.ConcatDataset: cases adapted from pytorch/pytorch test/test_dataloader.py (TestConcatDataset: test_concat_two_singletons, test_concat_two_non_singletons, test_concat_two_non_singletons_with_empty, test_concat_raises_index_error, test_add_dataset over TensorDatasets, test_iterable_dataset_err). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Two kinds of timed call: constructing a ConcatDataset (from plain lists as upstream, and from
TensorDatasets whose tensors live on the cell's device) and indexing one (positive, negative and
boundary indices, which ConcatDataset maps to a part with a bisect over its cumulative sizes).
Items are checked against the concatenation computed with NumPy / plain Python.
"""
import numpy as np
import pytest
import torch
from torch.utils.data import ConcatDataset, IterableDataset, TensorDataset

pytestmark = pytest.mark.function("torch.utils.data.ConcatDataset", decile=60, top20=False,
                                  backward="a data container (indexing returns stored samples): nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "test/test_dataloader.py::TestConcatDataset::test_concat_two_singletons": ["test_concat_dataset_construct_lists"],
    "test/test_dataloader.py::TestConcatDataset::test_concat_two_non_singletons":
        ["test_concat_dataset_construct_lists", "test_concat_dataset_getitem"],
    "test/test_dataloader.py::TestConcatDataset::test_concat_two_non_singletons_with_empty":
        ["test_concat_dataset_construct_lists"],
    "test/test_dataloader.py::TestConcatDataset::test_concat_raises_index_error": ["test_concat_dataset_getitem",
        "test_concat_dataset_many_parts"],
    "test/test_dataloader.py::TestConcatDataset::test_add_dataset": ["test_concat_dataset_construct_tensors"],
    "test/test_dataloader.py::TestConcatDataset::test_iterable_dataset_err": ["test_concat_dataset_rejects_iterable"],
}


# test_concat_two_singletons, _non_singletons, _non_singletons_with_empty (lists as datasets).
@pytest.mark.parametrize("parts", [[[0], [1]], [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
                                   [[0, 1, 2, 3, 4], [], [5, 6, 7, 8, 9]], [[], [], [3]]],
                         ids=["singletons", "non_singletons", "with_empty", "leading_empties"])
def test_concat_dataset_construct_lists(bench, device, parts):
    result = bench(ConcatDataset, parts)
    flat = [v for part in parts for v in part]
    assert isinstance(result, ConcatDataset)
    assert len(result) == len(flat)
    assert [result[i] for i in range(len(result))] == flat
    assert list(result.cumulative_sizes) == list(np.cumsum([len(p) for p in parts]))
    # test_concat_raises_index_error (outside the timed call).
    with pytest.raises(IndexError):
        result[len(flat)]


# test_add_dataset's TensorDatasets (here (7, 3, 8, 8) rows and labels), on the cell's device.
@pytest.mark.parametrize("sizes", [(7, 7), (7, 7, 7), (2, 0, 5)], ids=["two", "three", "with_empty"])
def test_concat_dataset_construct_tensors(bench, device, sizes):
    rng = np.random.default_rng(len(sizes))
    arrays = [rng.standard_normal((n, 3, 8, 8)).astype(np.float32) for n in sizes]
    labels = [np.arange(n, dtype=np.int64) + 100 * i for i, n in enumerate(sizes)]
    parts = [TensorDataset(torch.from_numpy(a).to(device), torch.from_numpy(l).to(device))
             for a, l in zip(arrays, labels)]
    result = bench(ConcatDataset, parts)
    assert len(result) == sum(sizes)
    all_x, all_y = np.concatenate(arrays), np.concatenate(labels)
    for i in range(len(result)):
        x, y = result[i]
        assert x.dtype == torch.float32 and tuple(x.shape) == (3, 8, 8)
        np.testing.assert_array_equal(x.cpu().numpy(), all_x[i])
        assert int(y) == all_y[i]


# Indexing: the first item, an item in the second part, the last, negative indices.
@pytest.mark.parametrize("index", [0, 4, 5, 9, -1, -6], ids=str)
def test_concat_dataset_getitem(bench, device, index):
    data = np.arange(10 * 4, dtype=np.float32).reshape(10, 4)
    parts = [TensorDataset(torch.from_numpy(data[:5].copy()).to(device)),
             TensorDataset(torch.from_numpy(data[5:].copy()).to(device))]
    ds = ConcatDataset(parts)
    result = bench(ds.__getitem__, index)
    (row,) = result
    assert row.dtype == torch.float32 and row.device == parts[0].tensors[0].device
    np.testing.assert_array_equal(row.cpu().numpy(), data[index])


# Many parts: indexing bisects over the cumulative sizes.
def test_concat_dataset_many_parts(bench, device):
    parts = [list(range(100 * i, 100 * i + (i % 7) + 1)) for i in range(1000)]
    flat = [v for part in parts for v in part]
    result = bench(ConcatDataset, parts)
    assert len(result) == len(flat)
    picks = np.random.default_rng(0).integers(0, len(flat), 200)
    assert [result[int(i)] for i in picks] == [flat[int(i)] for i in picks]


# test_iterable_dataset_err: an IterableDataset is rejected (checked beside a valid construction).
def test_concat_dataset_rejects_iterable(bench, device):
    result = bench(ConcatDataset, [[1, 2], [3]])
    assert [result[i] for i in range(3)] == [1, 2, 3]

    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    with pytest.raises(AssertionError):
        ConcatDataset([[1, 2], Stream()])
