"""tf.data.experimental.dense_to_ragged_batch: cases adapted from tensorflow/python/data/experimental/kernel_tests/dense_to_ragged_batch_test.py (RaggedBatchTest.testBasic over its dataset makers, nrows and drop_remainder; testWithStructuredElements).

The timed call builds the transformation (what `dataset.apply` receives); each case then applies it and
compares every batch with the unbatched rows. tf.data runs its pipelines on the host."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.data.experimental.dense_to_ragged_batch", decile=10, top20=False)


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
    """A component as nested Python lists (a ragged one's rows may come as an object array of arrays)."""
    if hasattr(v, "to_list"):
        v = v.to_list()
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, list):
        return [_to_list(x) for x in v]
    return v.item() if isinstance(v, np.generic) else v


def _rows(dataset):
    # Read as NumPy values: the same lists, without an eager op per ragged row (3x faster, 2-3 s of a tf-cpu run)
    return [tf.nest.map_structure(_to_list, row) for row in dataset.as_numpy_iterator()]


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
            assert got == {k: [row[k] for row in want] for k in got}
        elif isinstance(got, tuple):
            assert list(got) == [[row[i] for row in want] for i in range(len(got))]
        else:
            assert got == want


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
