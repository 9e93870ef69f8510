"""tf.lookup.KeyValueTensorInitializer: cases adapted from tensorflow/python/kernel_tests/data_structures/lookup_ops_test.py (KeyValueTensorInitializerTest.test_string, test_multiple_tables, test_int64, test_int32; StaticHashTableTest's lookups through an initializer); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.lookup.KeyValueTensorInitializer", decile=50, top20=False,
                                  backward=("initialises a lookup table (InitializeTableV2, registered "
                                            "NotDifferentiable): it returns an initializer, not a tensor"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/data_structures/lookup_ops_test.py::KeyValueTensorInitializerTest::test_string": [
        "test_key_value_initializer_tensors", "test_key_value_initializer_python_lists"],
    "tensorflow/python/kernel_tests/data_structures/lookup_ops_test.py::KeyValueTensorInitializerTest::test_multiple_tables": [
        "test_key_value_initializer_two_tables"],
    "tensorflow/python/kernel_tests/data_structures/lookup_ops_test.py::KeyValueTensorInitializerTest::test_int64": [
        "test_key_value_initializer_tensors", "test_key_value_initializer_python_lists",
        "test_key_value_initializer_large_vocabulary"],
    "tensorflow/python/kernel_tests/data_structures/lookup_ops_test.py::KeyValueTensorInitializerTest::test_int32": [
        "test_key_value_initializer_tensors"],
}


def _lookup_through_table(init, queries, default):
    """Initialise a StaticHashTable from `init` (hash tables live on the host) and look `queries` up."""
    with tf.device("/device:CPU:0"):
        table = tf.lookup.StaticHashTable(init, default_value=default)
        return table.lookup(queries).numpy(), int(table.size().numpy())


def _as_host(values, dtype):
    out = np.asarray(values)
    return out.astype(object) if dtype == tf.string else out.astype(dtype.as_numpy_dtype)


# (key dtype, value dtype, keys, values, queries, default): upstream's "brain/salad/surgery" and
# (42, 1, -1000) tables, plus the other key/value kinds the CPU hash table has kernels for.
_CASES = {
    "string-int64": (tf.string, tf.int64, ["brain", "salad", "surgery"], [0, 1, 2],
                     ["salad", "tarkus", "brain", "surgery"], -1),
    "int64-int64": (tf.int64, tf.int64, [42, 1, -1000], [0, 1, 2], [1, 42, 7, -1000], -1),
    "int32-int32": (tf.int32, tf.int32, [42, 1, -1000], [0, 1, 2], [-1000, 0, 42], -1),
    "int32-float32": (tf.int32, tf.float32, [42, 1, -1000], [0.5, 1.5, 2.5], [1, 2, 42], -1.0),
    "int64-string": (tf.int64, tf.string, [0, 1, 2], ["brain", "salad", "surgery"], [2, 0, 3], "UNK"),
    "string-float64": (tf.string, tf.float64, ["a", "b", "c"], [0.25, -1.0, 3.5], ["c", "d", "a"], 0.0),
}


def _expected(keys, values, queries, default):
    table = dict(zip(keys, values))
    return [table.get(q, default) for q in queries]


@pytest.mark.parametrize("case", list(_CASES))
def test_key_value_initializer_tensors(bench, device, case):
    key_dtype, value_dtype, keys, values, queries, default = _CASES[case]
    with tf.device(device):
        keys_t = tf.constant(keys, dtype=key_dtype)
        values_t = tf.constant(values, dtype=value_dtype)
        init = bench(tf.lookup.KeyValueTensorInitializer, keys_t, values_t)
    assert init.key_dtype == key_dtype
    assert init.value_dtype == value_dtype
    result, size = _lookup_through_table(init, tf.constant(queries, dtype=key_dtype), default)
    assert size == len(keys)
    expected = _as_host(_expected(keys, values, queries, default), value_dtype)
    if value_dtype == tf.string:
        assert [r.decode() for r in result] == list(expected)
    else:
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("key_dtype,value_dtype", [(tf.string, tf.int64), (tf.int64, tf.int64),
                                                   (tf.int64, tf.float32)],
                         ids=["string-int64", "int64-int64", "int64-float32"])
def test_key_value_initializer_python_lists(bench, device, key_dtype, value_dtype):
    # test_string / test_int64: Python tuples converted with explicit key and value dtypes.
    keys = ("brain", "salad", "surgery") if key_dtype == tf.string else (42, 1, -1000)
    values = (0, 1, 2)
    with tf.device(device):
        init = bench(tf.lookup.KeyValueTensorInitializer, keys, values, key_dtype, value_dtype)
    assert init.key_dtype == key_dtype
    assert init.value_dtype == value_dtype
    queries = list(keys[::-1])
    result, size = _lookup_through_table(init, tf.constant(queries, dtype=key_dtype), -1)
    assert size == 3
    np.testing.assert_array_equal(result, _as_host([2, 1, 0], value_dtype))


def test_key_value_initializer_two_tables(bench, device):
    # test_multiple_tables: two initializers with the same contents give independent tables.
    keys, values = ("brain", "salad", "surgery"), (0, 1, 2)
    with tf.device(device):
        first = tf.lookup.KeyValueTensorInitializer(keys, values, tf.string, tf.int64)
        second = bench(tf.lookup.KeyValueTensorInitializer, keys, values, tf.string, tf.int64)
    queries = tf.constant(["surgery", "brain", "tank"])
    r1, _ = _lookup_through_table(first, queries, -1)
    r2, _ = _lookup_through_table(second, queries, -1)
    np.testing.assert_array_equal(r1, [2, 0, -1])
    np.testing.assert_array_equal(r2, [2, 0, -1])


def test_key_value_initializer_large_vocabulary(bench, device):
    # A vocabulary of 100k int64 ids mapped to float32 weights.
    rng = np.random.default_rng(0)
    keys_np = rng.permutation(1_000_000)[:100_000].astype(np.int64)
    values_np = rng.standard_normal(100_000).astype(np.float32)
    with tf.device(device):
        keys = tf.constant(keys_np)
        values = tf.constant(values_np)
        init = bench(tf.lookup.KeyValueTensorInitializer, keys, values)
    queries_np = np.concatenate([keys_np[::97], [-5, -6]])
    result, size = _lookup_through_table(init, tf.constant(queries_np), np.float32(0))
    assert size == 100_000
    np.testing.assert_array_equal(result, np.concatenate([values_np[::97], [0, 0]]).astype(np.float32))
