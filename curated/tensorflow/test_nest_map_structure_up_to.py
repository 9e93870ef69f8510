"""tf.nest.map_structure_up_to: cases adapted from tensorflow/python/util/nest_test.py (NestTest.testMapStructureUpTo: namedtuple inputs with namedtuple ops below the shallow tree, name lists over nested data lists; testMapStructureUpToDicts); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The paper's label is tf.contrib.framework.nest.map_structure_up_to; no TensorFlow 2 release (2.11 and the current
one included) exports map_structure_up_to under tf.nest, and the study called it through tensorflow.python.util.nest:
where the public name is absent the cases call it there, and each record says so (`called_as`). The cases follow
the function's documented contract (a shallow tree decides where mapping stops; deeper parts are passed
whole to the function)."""
import collections

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.util import nest

pytestmark = pytest.mark.function("tf.nest.map_structure_up_to", decile=40, top20=False,
                                  paper_label="tf.contrib.framework.nest.map_structure_up_to",
                                  called_as="tensorflow.python.util.nest.map_structure_up_to",
                                  backward=("a Python traversal of nested structures that runs no op of its own: a "
                                            "gradient through it is the mapped function's"))

UPSTREAM_TESTS = {
    "tensorflow/python/util/nest_test.py::NestTest::testMapStructureUpTo": [
        "test_map_structure_up_to_namedtuples", "test_map_structure_up_to_name_lists",
        "test_map_structure_up_to_tensors"],
    "tensorflow/python/util/nest_test.py::NestTest::testMapStructureUpToDicts": ["test_map_structure_up_to_dicts"],
}

map_structure_up_to = getattr(tf.nest, "map_structure_up_to", nest.map_structure_up_to)

_AB = collections.namedtuple("ab_tuple", "a, b")
_OP = collections.namedtuple("op_tuple", "add, mul")


def test_map_structure_up_to_namedtuples(bench, device):
    # testMapStructureUpTo: values mapped with the op tuple found at the same place.
    inp_val = _AB(a=2, b=3)
    inp_ops = _AB(a=_OP(add=1, mul=2), b=_OP(add=2, mul=3))
    out = bench(map_structure_up_to, inp_val, lambda val, ops: (val + ops.add) * ops.mul,
                inp_val, inp_ops)
    assert isinstance(out, _AB)
    assert (out.a, out.b) == (6, 15)


def test_map_structure_up_to_name_lists(bench, device):
    # testMapStructureUpTo: the data lists below each name are passed whole.
    data_list = [[2, 4, 6, 8], [[1, 3, 5, 7, 9], [3, 5, 7]]]
    name_list = ["evens", ["odds", "primes"]]
    out = bench(map_structure_up_to, name_list,
                lambda name, sec: "first_{}_{}".format(len(sec), name), name_list, data_list)
    assert out == ["first_4_evens", ["first_5_odds", "first_3_primes"]]


def test_map_structure_up_to_dicts(bench, device):
    # A dict shallow tree: each value below the keys is reduced as a whole.
    shallow = {"x": None, "y": None}
    deep = {"x": [1, 2, 3], "y": {"p": 4, "q": 5}}
    out = bench(map_structure_up_to, shallow,
                lambda v: sum(v) if isinstance(v, list) else sum(v.values()), deep)
    assert out == {"x": 6, "y": 9}


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=lambda d: d.name)
def test_map_structure_up_to_tensors(bench, device, dtype):
    # Tensor leaves below a shallow tuple: per-branch sums of lists of tensors.
    rng = np.random.default_rng(0)
    arrays = ([rng.standard_normal(8), rng.standard_normal(8)], [rng.standard_normal(8)])
    with tf.device(device):
        tensors = tf.nest.map_structure(lambda a: tf.constant(a, dtype=dtype), arrays)
        out = bench(map_structure_up_to, (None, None), tf.add_n, tensors)
    assert isinstance(out, tuple) and len(out) == 2
    tol = 1e-6 if dtype == tf.float32 else 1e-12
    np.testing.assert_allclose(out[0].numpy(), arrays[0][0] + arrays[0][1], rtol=tol, atol=tol)
    np.testing.assert_allclose(out[1].numpy(), arrays[1][0], rtol=tol, atol=tol)
