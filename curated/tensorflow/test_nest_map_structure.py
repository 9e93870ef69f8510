"""tf.nest.map_structure: cases adapted from tensorflow/python/util/nest_test.py (NestTest.testMapStructure: nested tuples, two structures, scalars, defaultdicts, empty structures, namedtuples, check_types; testMapStructureWithStrings; and expand_composites from the composite-tensor tests); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import collections

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.nest.map_structure", decile=90, top20=False,
                                  backward=("a Python traversal of nested structures that runs no op of its own: a "
                                            "gradient through it is the mapped function's"))

UPSTREAM_TESTS = {
    "tensorflow/python/util/nest_test.py::NestTest::testMapStructure": [
        "test_map_structure_plus_one", "test_map_structure_two_structures", "test_map_structure_defaultdict",
        "test_map_structure_check_types", "test_map_structure_tensors", "test_map_structure_expand_composites",
        "test_map_structure_large"],
    "tensorflow/python/util/nest_test.py::NestTest::testMapStructureWithStrings": ["test_map_structure_strings"],
}

_Point = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("structure,expected", [
    ((((1, 2), 3), 4, (5, 6)), (((2, 3), 4), 5, (6, 7))),
    (4, 5),
    ({"b": [1, 2], "a": (3, {"c": 4})}, {"b": [2, 3], "a": (4, {"c": 5})}),
    (_Point(x=1, y=(2, 3)), _Point(x=2, y=(3, 4))),
    ((), ()),
    ([], []),
    ({}, {}),
], ids=["nested_tuples", "scalar", "dicts", "namedtuple", "empty_tuple", "empty_list", "empty_dict"])
def test_map_structure_plus_one(bench, device, structure, expected):
    # testMapStructure: x + 1 over each leaf keeps the structure (and container types).
    result = bench(tf.nest.map_structure, lambda x: x + 1, structure)
    assert result == expected
    assert type(result) is type(expected)
    tf.nest.assert_same_structure(structure, result)


def test_map_structure_two_structures(bench, device):
    # testMapStructure: leaves of two structures combined pairwise.
    s1 = (((1, 2), 3), 4, (5, 6))
    s2 = (((7, 8), 9), 10, (11, 12))
    result = bench(tf.nest.map_structure, lambda x, y: x + y, s1, s2)
    assert result == (((8, 10), 12), 14, (16, 18))


def test_map_structure_defaultdict(bench, device):
    # testMapStructure's defaultdict(list): the mapping type is kept.
    s = collections.defaultdict(list)
    s["a"] = [1, 2, 3, 4]
    s["b"] = [2, 3, 4, 5]
    result = bench(tf.nest.map_structure, lambda x: x + 1, s)
    assert isinstance(result, collections.defaultdict)
    assert dict(result) == {"a": [2, 3, 4, 5], "b": [3, 4, 5, 6]}


def test_map_structure_check_types(bench, device):
    # check_types=False lets a tuple and a list with the same layout be mapped together.
    result = bench(tf.nest.map_structure, lambda x, y: x * y, (1, (2, 3)), [4, [5, 6]], check_types=False)
    assert result == (4, (10, 18))
    with pytest.raises(TypeError):
        tf.nest.map_structure(lambda x, y: x * y, (1, (2, 3)), [4, [5, 6]])


def test_map_structure_strings(bench, device):
    # testMapStructureWithStrings: strings are leaves, not sequences.
    s1 = _Point(x="ab", y=("cd", "ef"))
    s2 = _Point(x="gh", y=("ij", "kl"))
    result = bench(tf.nest.map_structure, lambda x, y: x + y, s1, s2)
    assert result == _Point(x="abgh", y=("cdij", "efkl"))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32], ids=lambda d: d.name)
def test_map_structure_tensors(bench, device, dtype):
    # Tensors as leaves: a function applied to every tensor of a model-like dict.
    rng = np.random.default_rng(0)
    arrays = {"dense": {"kernel": rng.integers(-5, 5, (64, 32)), "bias": rng.integers(-5, 5, (32,))},
              "out": [rng.integers(-5, 5, (32, 10)), rng.integers(-5, 5, (10,))]}
    with tf.device(device):
        tensors = tf.nest.map_structure(lambda a: tf.constant(a, dtype=dtype), arrays)
        result = bench(tf.nest.map_structure, tf.square, tensors)
    flat_in = tf.nest.flatten(arrays)
    flat_out = tf.nest.flatten(result)
    assert len(flat_out) == 4
    for a, t in zip(flat_in, flat_out):
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.numpy(), np.square(a).astype(dtype.as_numpy_dtype))


@pytest.mark.layout("sparse_coo")
def test_map_structure_expand_composites(bench, device):
    # expand_composites=True maps over a SparseTensor's component tensors.
    with tf.device(device):
        sp = tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.5, 2.5], dense_shape=[4, 5])
        result = bench(tf.nest.map_structure, lambda t: t * 2 if t.dtype == tf.float32 else t, sp,
                       expand_composites=True)
    assert isinstance(result, tf.SparseTensor)
    np.testing.assert_array_equal(result.values.numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(result.indices.numpy(), [[0, 1], [2, 3]])


def test_map_structure_large(bench, device):
    # A 7500-leaf nested structure of Python numbers.
    structure = [{"a": i, "b": (i, [i + 1])} for i in range(2500)]
    result = bench(tf.nest.map_structure, lambda x: x * 2, structure)
    assert result[1234] == {"a": 2468, "b": (2468, [2470])}
    assert len(tf.nest.flatten(result)) == 7500
