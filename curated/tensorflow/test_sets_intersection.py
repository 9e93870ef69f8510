"""tf.sets.intersection: cases adapted from tensorflow/python/kernel_tests/sets_test.py (SetOpsTest.test_set_intersection_multirow_2d, test_dense_set_intersection_multirow_2d, test_set_intersection_duplicates_2d, test_set_intersection_3d, over its _DTYPES: int8, int16, int32, int64, uint8, uint16, string), checked against Python set intersection per row; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Set operations run on the host (CPU kernels only)."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.sets.intersection", decile=50, top20=False,
                                  backward=("integer and string sets: TensorFlow registers DenseToDenseSetOperation, "
                                            "DenseToSparseSetOperation and SparseToSparseSetOperation "
                                            "NotDifferentiable"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/sets_test.py::SetOpsTest::test_set_intersection_multirow_2d": [
        "test_set_intersection_multirow_2d", "test_set_intersection_large"],
    "tensorflow/python/kernel_tests/sets_test.py::SetOpsTest::test_dense_set_intersection_multirow_2d": [
        "test_set_intersection_dense_dense"],
    "tensorflow/python/kernel_tests/sets_test.py::SetOpsTest::test_set_intersection_duplicates_2d": [
        "test_set_intersection_duplicates"],
    "tensorflow/python/kernel_tests/sets_test.py::SetOpsTest::test_set_intersection_3d": ["test_set_intersection_3d"],
}

_DTYPES = [tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.string]


def _cast(values, dtype):
    if dtype == tf.string:
        return [str(v).encode() for v in values]
    return [int(v) for v in values]


def _sparse(rows, dtype):
    """A 2-D SparseTensor whose row i holds rows[i] (rows may have different lengths)."""
    indices = [[i, j] for i, row in enumerate(rows) for j in range(len(row))]
    values = [v for row in rows for v in _cast(row, dtype)]
    width = max([len(r) for r in rows] + [0])
    return tf.SparseTensor(indices=tf.constant(indices, tf.int64, shape=[len(indices), 2]),
                           values=tf.constant(values, dtype=dtype, shape=[len(values)]),
                           dense_shape=[len(rows), width])


def _dense(rows, dtype):
    return tf.constant([_cast(r, dtype) for r in rows], dtype=dtype)


def _expected(a_rows, b_rows, dtype):
    """Per row: the sorted intersection (strings sort as bytes, like the kernel)."""
    return [sorted(set(_cast(a, dtype)) & set(_cast(b, dtype))) for a, b in zip(a_rows, b_rows)]


def _check(result, expected_rows, dtype):
    assert isinstance(result, tf.SparseTensor)
    assert result.dtype == dtype
    width = max([len(r) for r in expected_rows] + [0])
    assert result.dense_shape.numpy().tolist() == [len(expected_rows), width]
    indices = result.indices.numpy().tolist()
    values = result.values.numpy().tolist()
    assert indices == [[i, j] for i, row in enumerate(expected_rows) for j in range(len(row))]
    assert values == [v for row in expected_rows for v in row]


_A = [[9, 1, 5], [2, 4, 3]]
_B = [[1, 9], [1]]


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
# Upstream's sparse operands are tf.SparseTensor (COO: indices, values, dense shape).
@pytest.mark.parametrize("kinds", [pytest.param("dense_sparse", marks=pytest.mark.layout("sparse_coo")),
                                   pytest.param("sparse_sparse", marks=pytest.mark.layout("sparse_coo"))])
def test_set_intersection_multirow_2d(bench, device, dtype, kinds):
    # test_set_intersection_multirow_2d: {1, 9} in the first row, nothing in the second.
    with tf.device(device):
        a = _dense(_A, dtype) if kinds == "dense_sparse" else _sparse(_A, dtype)
        b = _sparse(_B, dtype)
        result = bench(tf.sets.intersection, a, b)
        counts = tf.sets.size(result).numpy().tolist()
    _check(result, _expected(_A, _B, dtype), dtype)
    assert counts == [2, 0]


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.name)
def test_set_intersection_dense_dense(bench, device, dtype):
    # test_dense_set_intersection_multirow_2d: both operands dense.
    a_rows = [[9, 1, 5], [2, 4, 3]]
    b_rows = [[1, 9], [1, 5]]
    with tf.device(device):
        result = bench(tf.sets.intersection, _dense(a_rows, dtype), _dense(b_rows, dtype))
    _check(result, _expected(a_rows, b_rows, dtype), dtype)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.string], ids=lambda d: d.name)
def test_set_intersection_duplicates(bench, device, dtype):
    # test_set_intersection_duplicates_2d: duplicates collapse to one element of the set.
    a_rows = [[1, 1, 3]]
    b_rows = [[1, 1]]
    with tf.device(device):
        result = bench(tf.sets.intersection, _dense(a_rows, dtype), _dense(b_rows, dtype))
    _check(result, [_cast([1], dtype)], dtype)


def test_set_intersection_3d(bench, device):
    # test_set_intersection_3d: sets along the last dimension of a [2, 2, 3] tensor.
    a = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [1, 1, 1]]], np.int64)
    b = np.array([[[3, 2, 0], [0, 0, 0]], [[9, 9, 7], [1, 2, 3]]], np.int64)
    with tf.device(device):
        result = bench(tf.sets.intersection, tf.constant(a), tf.constant(b))
    expected = {(0, 0): [2, 3], (0, 1): [], (1, 0): [7, 9], (1, 1): [1]}
    dense = tf.sparse.to_dense(result, default_value=-1).numpy()
    assert dense.shape == (2, 2, 2)
    for (i, j), values in expected.items():
        row = [v for v in dense[i, j].tolist() if v != -1]
        assert row == values


def test_set_intersection_large(bench, device):
    # 1000 rows of 200 random ids against 1000 rows of 200 ids.
    rng = np.random.default_rng(0)
    a_np = rng.integers(0, 500, (1000, 200)).astype(np.int64)
    b_np = rng.integers(0, 500, (1000, 200)).astype(np.int64)
    with tf.device(device):
        result = bench(tf.sets.intersection, tf.constant(a_np), tf.constant(b_np))
    _check(result, [sorted(set(a.tolist()) & set(b.tolist())) for a, b in zip(a_np, b_np)], tf.int64)
