"""tf.tensor_scatter_nd_update: cases adapted from tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py (ScatterNdTensorTest.testUpdateAddSub's update part, testTensorScatterUpdateWithForwarding, testUpdateAddSubGradients; the scatter-into-slices cases of the scatter_nd tests) over its dtypes, against NumPy fancy-index assignment. Indices are kept unique: with duplicates the result is unspecified; UPSTREAM_TESTS below maps each to the cases here."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.tensor_scatter_nd_update", decile=10, top20=False)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::ScatterNdTensorTest::testUpdateAddSub": [
        "test_scatter_update_elements", "test_scatter_update_slices", "test_scatter_update_2d_indices",
        "test_scatter_update_large"],
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testUpdateAddSubGradients": ["test_scatter_update_backward"],
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::ScatterNdTensorTest::testUpdateMinMax": [
        "test_scatter_update_elements"],
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testUpdateMinMaxGradients":
        "the gradients of tensor_scatter_max and tensor_scatter_min, other functions",
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testTensorScatterUpdateWithForwarding": ["test_scatter_update_forwarding"],
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testTensorScatterUpdateWithStrings":
        "string tensors: TensorFlow keeps them in host memory, no device kernel to measure",
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testUpdateRepeatedIndices1D":
        "duplicate indices: which update wins is unspecified (upstream skips it on GPUs)",
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorTest::testUpdateRepeatedIndices2D":
        "duplicate indices: which update wins is unspecified (upstream skips it on GPUs)",
    "tensorflow/python/kernel_tests/array_ops/scatter_nd_ops_test.py::"
    "ScatterNdTensorDeterminismTest::testDeterminism":
        "duplicate indices under enable_op_determinism: a runtime setting, and without it the result is unspecified",
}


def _ref(tensor, indices, updates):
    out = np.array(tensor, copy=True)
    depth = indices.shape[-1]
    flat_idx = indices.reshape(-1, depth)
    flat_upd = updates.reshape((flat_idx.shape[0],) + tensor.shape[depth:])
    for i, idx in enumerate(flat_idx):
        out[tuple(idx)] = flat_upd[i]
    return out


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64, tf.bool],
                         ids=lambda d: d.name)
def test_scatter_update_elements(bench, device, dtype):
    # testUpdateAddSub: four elements of an [8] vector.
    np_dtype = dtype.as_numpy_dtype
    tensor = np.ones(8, np_dtype)
    indices = np.array([[4], [3], [1], [7]], np.int32)
    updates = np.array([9, 10, 11, 12]).astype(np_dtype) if dtype != tf.bool else np.array([0, 1, 0, 0], bool)
    with tf.device(device):
        result = bench(tf.tensor_scatter_nd_update, tf.constant(tensor), tf.constant(indices), tf.constant(updates))
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.numpy(), _ref(tensor, indices, updates))


@pytest.mark.parametrize("index_dtype", [tf.int32, tf.int64], ids=lambda d: d.name)
def test_scatter_update_slices(bench, device, index_dtype):
    # Slices: rows of a [4, 4, 4] tensor replaced by [2, 4, 4] updates.
    tensor = np.zeros((4, 4, 4), np.float32)
    indices = np.array([[0], [2]])
    updates = np.arange(32, dtype=np.float32).reshape(2, 4, 4)
    with tf.device(device):
        result = bench(tf.tensor_scatter_nd_update, tf.constant(tensor), tf.constant(indices, index_dtype),
                       tf.constant(updates))
    np.testing.assert_array_equal(result.numpy(), _ref(tensor, indices, updates))


def test_scatter_update_2d_indices(bench, device):
    # Indices of depth 2 with a batch of index rows ([2, 2, 2] indices -> [2, 2] updates).
    tensor = np.arange(20, dtype=np.float64).reshape(4, 5)
    indices = np.array([[[0, 0], [1, 4]], [[3, 2], [2, 1]]])
    updates = np.array([[-1.0, -2.0], [-3.0, -4.0]])
    with tf.device(device):
        result = bench(tf.tensor_scatter_nd_update, tf.constant(tensor), tf.constant(indices), tf.constant(updates))
    np.testing.assert_array_equal(result.numpy(), _ref(tensor, indices, updates))


def test_scatter_update_forwarding(bench, device):
    # testTensorScatterUpdateWithForwarding: the input tensor is left unchanged.
    with tf.device(device):
        a = tf.zeros([10, 1])
        result = bench(tf.tensor_scatter_nd_update, a, [[5], [6]], [[1.0], [2.0]])
    expected = np.zeros((10, 1), np.float32)
    expected[5, 0], expected[6, 0] = 1.0, 2.0
    np.testing.assert_array_equal(result.numpy(), expected)
    np.testing.assert_array_equal(a.numpy(), np.zeros((10, 1), np.float32))


def _update_at(indices):
    return lambda tensor, updates: tf.tensor_scatter_nd_update(tensor, indices, updates)


# testUpdateAddSubGradients: with respect to the tensor, the cotangent with the updated places zeroed; with respect
# to the updates, the cotangent gathered at the indices. Elements of a vector (upstream's case) and rows of a matrix.
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
@pytest.mark.parametrize("shape,indices", [((4,), [[3], [1]]), ((4, 2), [[3], [1]]), ((3, 4), [[2, 1], [0, 3]])],
                         ids=["elements", "rows", "depth2"])
def test_scatter_update_backward(backward, device, dtype, shape, indices):
    rng = np.random.default_rng(1)
    update_shape = (len(indices),) + shape[len(indices[0]):]
    with tf.device(device):
        tensor = tf.constant(rng.standard_normal(shape), dtype=dtype)
        updates = tf.constant(rng.standard_normal(update_shape), dtype=dtype)
        idx = tf.constant(indices)
        grads = backward(_update_at(idx), tensor, updates)
    check_gradients(grads, _update_at(idx), (tensor, updates))


def test_scatter_update_large(bench, device):
    # 10000 unique rows of a [100000, 8] table.
    rng = np.random.default_rng(0)
    tensor = rng.standard_normal((100_000, 8)).astype(np.float32)
    indices = rng.permutation(100_000)[:10_000].reshape(-1, 1)
    updates = rng.standard_normal((10_000, 8)).astype(np.float32)
    with tf.device(device):
        result = bench(tf.tensor_scatter_nd_update, tf.constant(tensor), tf.constant(indices), tf.constant(updates))
    expected = tensor.copy()
    expected[indices[:, 0]] = updates
    np.testing.assert_array_equal(result.numpy(), expected)
