"""tf.data.experimental.dense_to_ragged_batch: cases adapted from tensorflow/python/data/experimental/kernel_tests/dense_to_ragged_batch_test.py (RaggedBatchTest.testBasic over its dataset makers, nrows and drop_remainder; testWithStructuredElements); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call builds the transformation (what `dataset.apply` receives); each case then applies it and
compares every batch with the unbatched rows. tf.data runs its pipelines on the host."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.data.experimental.dense_to_ragged_batch", decile=10, top20=False,
                                  backward=("returns a tf.data transformation (a function from dataset to dataset), "
                                            "not a tensor: tf.data has no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/data/experimental/kernel_tests/dense_to_ragged_batch_test.py::RaggedBatchTest::testBasic": [
        "test_dense_to_ragged_batch_basic", "test_dense_to_ragged_batch_element_spec"],
    "tensorflow/python/data/experimental/kernel_tests/dense_to_ragged_batch_test.py::RaggedBatchTest::testWithStructuredElements": [
        "test_dense_to_ragged_batch_structured"],
}


def _scalar(n):
    return tf.data.Dataset.from_tensor_slices(np.arange(n))


_MAKERS = {
    "scalar": _scalar,
    "vector": lambda n: _scalar(n).map(lambda x: tf.fill([x], x)),
    "matrix_x_by_2": lambda n: _scalar(n).map(lambda x: tf.fill([x, 2], x)),
    "matrix_2_by_x": lambda n: _scalar(n).map(lambda x: tf.fill([2, x], x)),
    "matrix_fully_defined": lambda n: _scalar(n).map(lambda x: tf.fill([2, 3], x)),
    "5d": lambda n: _scalar(n).map(lambda x: tf.fill([2, x, 3, 2 * x, 4], x)),
    "ragged": lambda n: tf.data.Dataset.from_tensor_slices(
        tf.ragged.constant([[[i] * (i % 3) for i in range(j)] * (j % 3) for j in range(n)])),
    "dict": lambda n: _scalar(n).map(lambda x: {"scalar": tf.convert_to_tensor(x), "range": tf.range(x),
                                                "x_by_2": tf.fill([x, 2], x)}),
    "tuple": lambda n: _scalar(n).map(lambda x: (tf.convert_to_tensor(x), tf.range(x), tf.fill([x, 2], x))),
}


def _to_list(v):
    """A component as nested Python lists of Python scalars (a ragged one's rows may come as an object array of
    arrays). Only object arrays are walked element by element: tolist() and to_list() already give Python
    scalars."""
    if hasattr(v, "to_list"):
        return v.to_list()
    if isinstance(v, np.ndarray):
        return [_to_list(x) for x in v] if v.dtype == object else v.tolist()
    return v.item() if isinstance(v, np.generic) else v


def _rows(dataset):
    """Each element as NumPy values, a ragged component as its .numpy() (an object array of its rows): what
    as_numpy_iterator gives from TensorFlow 2.12 on (no eager op per ragged row: 3x faster than to_list, 2-3 s of a
    tf-cpu run). TensorFlow 2.11's as_numpy_iterator cannot read a ragged element at all (it calls the private
    _numpy(), which RaggedTensor lacks)."""
    return [tf.nest.map_structure(lambda t: t.numpy(), element) for element in dataset]


def _same(got, want):
    """One row of a batch against the row it was made from: by NumPy where both are arrays of numbers (as nested
    Python lists, the 5-D rows took 0.1-0.4 s a case), else as nested Python lists (ragged rows)."""
    if all(isinstance(v, np.ndarray) and v.dtype != object for v in (got, want)):
        return got.shape == want.shape and np.array_equal(got, want)
    return _to_list(got) == _to_list(want)


def _matches(batch, rows):
    """A batch's component (an array whose first dimension is the batch, an object array of rows, or a ragged
    value) holds the rows' component, row by row."""
    got = list(batch) if isinstance(batch, np.ndarray) else _to_list(batch)
    return len(got) == len(rows) and all(_same(g, w) for g, w in zip(got, rows))


# Upstream's nrows 0, 20 and 23 (23 leaves a partial batch of 4); empty datasets for three makers.
_BASIC = [(m, n) for m in _MAKERS for n in (20, 23)] + [(m, 0) for m in ("scalar", "vector", "ragged")]


@pytest.mark.parametrize("drop_remainder", [False, True], ids=["keep_remainder", "drop_remainder"])
@pytest.mark.parametrize("maker,nrows", _BASIC, ids=[f"{m}-{n}" for m, n in _BASIC])
def test_dense_to_ragged_batch_basic(bench, device, maker, nrows, drop_remainder):
    with tf.device(device):
        dataset = _MAKERS[maker](nrows)
        transform = bench(tf.data.experimental.dense_to_ragged_batch, 4, drop_remainder)
        batched = dataset.apply(transform)
        rows = _rows(dataset)
        batches = _rows(batched)
    assert callable(transform)
    expected_batches = [rows[i:i + 4] for i in range(0, nrows, 4) if not (drop_remainder and i + 4 > nrows)]
    assert len(batches) == len(expected_batches)
    for got, want in zip(batches, expected_batches):
        # Each component of a batch equals the list of that component across its rows.
        if isinstance(got, dict):
            assert all(_matches(got[k], [row[k] for row in want]) for k in got), (got, want)
        elif isinstance(got, tuple):
            assert all(_matches(g, [row[i] for row in want]) for i, g in enumerate(got)), (got, want)
        else:
            assert _matches(got, want), (got, want)


def test_dense_to_ragged_batch_element_spec(bench, device):
    # Varying dimensions become ragged; the batch dimension is None unless the remainder is dropped.
    with tf.device(device):
        dataset = _MAKERS["matrix_x_by_2"](10)
        spec_keep = dataset.apply(bench(tf.data.experimental.dense_to_ragged_batch, 4)).element_spec
        spec_drop = dataset.apply(tf.data.experimental.dense_to_ragged_batch(4, drop_remainder=True)).element_spec
    assert isinstance(spec_keep, tf.RaggedTensorSpec)
    assert spec_keep.shape.as_list() == [None, None, 2]
    assert spec_drop.shape.as_list() == [4, None, 2]
    assert spec_keep.dtype == tf.int64


def test_dense_to_ragged_batch_structured(bench, device):
    # testWithStructuredElements: dense, ragged and sparse components batched together.
    def make_structure(x):
        return {
            "dense": tf.fill([x], x),
            "ragged": tf.ragged.stack([tf.stack([x]), tf.stack([x, x])]),
            "sparse": tf.SparseTensor([[x]], [x], [100]),
        }

    with tf.device(device):
        dataset = tf.data.Dataset.from_tensor_slices(np.arange(20)).map(make_structure)
        transform = bench(tf.data.experimental.dense_to_ragged_batch, 4)
        results = list(dataset.apply(transform))
    assert len(results) == 5
    for i, result in enumerate(results):
        rows = list(range(4 * i, 4 * i + 4))
        assert result["dense"].to_list() == [[r] * r for r in rows]
        assert result["ragged"].to_list() == [[[r], [r, r]] for r in rows]
        assert result["sparse"].indices.numpy().tolist() == [[j, r] for j, r in enumerate(rows)]
        assert result["sparse"].values.numpy().tolist() == rows
        assert result["sparse"].dense_shape.numpy().tolist() == [4, 100]
