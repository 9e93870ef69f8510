"""tf.data.experimental.from_list: cases adapted from tensorflow/python/data/experimental/kernel_tests/from_list_test.py (FromListTest.testLargeNInputs, testTupleInputs, testDictInputs, testUintInputs; FromListRandomAccessTest.testOneDimensionalArray, testTwoDimensionalArray, testDictionary, testNumpy, testName); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

tf.data runs its pipelines on the host."""
import numpy as np
import pytest
import tensorflow as tf
from _support import values_of

pytestmark = pytest.mark.function("tf.data.experimental.from_list", decile=60, top20=False,
                                  backward=("returns a tf.data.Dataset (a host pipeline), not a tensor: tf.data "
                                            "transformations have no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListTest::testLargeNInputs": [
        "test_from_list_scalars"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListTest::testTupleInputs": [
        "test_from_list_tuples"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListTest::testDictInputs": [
        "test_from_list_dicts", "test_from_list_then_batch"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListTest::testUintInputs": [
        "test_from_list_unsigned"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListRandomAccessTest::testOneDimensionalArray": [
        "test_from_list_scalars"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListRandomAccessTest::testTwoDimensionalArray": [
        "test_from_list_numpy_arrays"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListRandomAccessTest::testDictionary": [
        "test_from_list_dicts"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListRandomAccessTest::testNumpy": [
        "test_from_list_numpy_arrays"],
    "tensorflow/python/data/experimental/kernel_tests/from_list_test.py::FromListRandomAccessTest::testName": [
        "test_from_list_name"],
}


@pytest.mark.parametrize("n", [1, 3, 1000])
def test_from_list_scalars(bench, device, n):
    # testLargeNInputs / testOneDimensionalArray.
    elements = list(range(n))
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
    assert dataset.element_spec == tf.TensorSpec([], tf.int32)
    assert int(dataset.cardinality()) == n
    assert values_of(dataset) == elements


def test_from_list_tuples(bench, device):
    # testTupleInputs: tuples become tuple elements with one component per position.
    elements = [(1, 2), (3, 4)]
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
    assert [s.shape.as_list() for s in dataset.element_spec] == [[], []]
    assert [tuple(e) for e in values_of(dataset)] == elements


def test_from_list_dicts(bench, device):
    # testDictInputs: int32 and float32 components with shapes (3,) and (3, 1).
    elements = [{"foo": [1, 2, 3], "bar": [[4.0], [5.0], [6.0]]},
                {"foo": [4, 5, 6], "bar": [[7.0], [8.0], [9.0]]}]
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
    spec = dataset.element_spec
    assert spec["foo"].dtype == tf.int32 and spec["bar"].dtype == tf.float32
    assert spec["foo"].shape.as_list() == [3] and spec["bar"].shape.as_list() == [3, 1]
    assert values_of(dataset) == elements


def test_from_list_unsigned(bench, device):
    # testUintInputs: uint8 / uint16 / uint32 / uint64 arrays keep their dtypes and values.
    elements = [(np.tile(np.array([[0], [1]], dtype=np.uint8), 2),
                 np.tile(np.array([[2], [256]], dtype=np.uint16), 2),
                 np.tile(np.array([[4], [65536]], dtype=np.uint32), 2),
                 np.tile(np.array([[8], [4294967296]], dtype=np.uint64), 2))]
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
    assert tuple(s.dtype for s in dataset.element_spec) == (tf.uint8, tf.uint16, tf.uint32, tf.uint64)
    (got,) = list(dataset)
    for g, want in zip(got, elements[0]):
        np.testing.assert_array_equal(g.numpy(), want)


@pytest.mark.parametrize("shape", [(2,), (2, 2), (16, 16, 3)], ids=str)
def test_from_list_numpy_arrays(bench, device, shape):
    # testTwoDimensionalArray / testNumpy: a list of equally shaped arrays.
    rng = np.random.default_rng(0)
    elements = [rng.standard_normal(shape).astype(np.float32) for _ in range(8)]
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
    assert dataset.element_spec == tf.TensorSpec(shape, tf.float32)
    for got, want in zip(dataset, elements):
        np.testing.assert_array_equal(got.numpy(), want)


def test_from_list_name(bench, device):
    # testName: the name argument.
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, [42], name="from_list")
    assert values_of(dataset) == [42]


def test_from_list_then_batch(bench, device):
    # A list of dicts as a pipeline source: batched and mapped like any other dataset.
    elements = [{"a": i, "b": float(i) / 2} for i in range(10)]
    with tf.device(device):
        dataset = bench(tf.data.experimental.from_list, elements)
        batches = list(dataset.map(lambda d: {"a": d["a"] * 2, "b": d["b"]}).batch(4))
    assert [b["a"].numpy().tolist() for b in batches] == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]
    np.testing.assert_allclose(batches[-1]["b"].numpy(), [4.0, 4.5])
