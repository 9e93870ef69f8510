"""tf.data.Dataset.shard: cases adapted from tensorflow/python/data/kernel_tests/shard_test.py (ShardTest.testSimpleCase, testNestedData, testOffsetZero, testIteratorEndsBeforeFirstElem, testLargerWorkerPool, testIndexEqualsNumShards, testIndexEqualsNumShards2, testNumShardsLargerThanDataset); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is the unbound method on a dataset; each case then iterates the shard. tf.data runs its
pipelines on the host."""
import pytest
import tensorflow as tf
from _support import values_of

pytestmark = pytest.mark.function("tf.data.Dataset.shard", decile=70, top20=False,
                                  backward=("returns a tf.data.Dataset (a host pipeline), not a tensor: tf.data "
                                            "transformations have no gradient"))

UPSTREAM_TESTS = {
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testSimpleCase": [
        "test_shard_range", "test_shard_partition"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testNestedData": ["test_shard_nested_data"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testOffsetZero": ["test_shard_range"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testIteratorEndsBeforeFirstElem": [
        "test_shard_range"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testLargerWorkerPool": ["test_shard_range"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testIndexEqualsNumShards": ["test_shard_range"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testIndexEqualsNumShards2": ["test_shard_range"],
    "tensorflow/python/data/kernel_tests/shard_test.py::ShardTest::testNumShardsLargerThanDataset": [
        "test_shard_range"],
}


@pytest.mark.parametrize("n,num_shards,index,expected", [
    (10, 5, 2, [2, 7]),          # testSimpleCase
    (10, 5, 0, [0, 5]),          # testOffsetZero
    (1, 5, 2, []),               # testIteratorEndsBeforeFirstElem
    (10, 7, 5, [5]),             # testLargerWorkerPool
    (10, 5, 4, [4, 9]),          # testIndexEqualsNumShards
    (4, 4, 3, [3]),              # testIndexEqualsNumShards2
    (10, 20, 5, [5]),            # testNumShardsLargerThanDataset
], ids=["simple", "offset_zero", "ends_before_first", "larger_pool", "last_index", "last_index_small",
        "more_shards_than_elements"])
def test_shard_range(bench, device, n, num_shards, index, expected):
    ds = tf.data.Dataset.range(n)
    shard = bench(tf.data.Dataset.shard, ds, num_shards, index)
    assert [int(x) for x in shard] == expected
    assert shard.element_spec == ds.element_spec


def test_shard_nested_data(bench, device):
    # testNestedData: tuples of tensors are sharded element-wise.
    ds1 = tf.data.Dataset.range(10)
    ds2 = tf.data.Dataset.range(10)
    ds = tf.data.Dataset.zip((ds1, ds2))
    shard = bench(tf.data.Dataset.shard, ds, 5, 2)
    assert [(int(a), int(b)) for a, b in shard] == [(2, 2), (7, 7)]


@pytest.mark.parametrize("num_shards", [2, 3, 8])
def test_shard_partition(bench, device, num_shards):
    # All shards together are a partition of the dataset, each in order.
    ds = tf.data.Dataset.range(1000)
    first = bench(tf.data.Dataset.shard, ds, num_shards, 0)
    shards = [values_of(first)] + [values_of(ds.shard(num_shards, i)) for i in range(1, num_shards)]
    assert sorted(v for s in shards for v in s) == list(range(1000))
    for i, s in enumerate(shards):
        assert s == list(range(i, 1000, num_shards))
