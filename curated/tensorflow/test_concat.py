"""tf.concat: cases adapted from tensorflow/python/kernel_tests/array_ops/concat_op_test.py (ConcatOpTest.testHStack, testVStack, test4DStack, testInt32GPU, testBfloat16GPU, testRandom, testZeroSize, testGradientsSimple, testGradientsFirstDim, testGradientsLastDim, testTensorConcatDim0Grad)."""
import numpy as np
import pytest
import tensorflow as tf
from _gradients import check_gradients

pytestmark = pytest.mark.function("tf.concat", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testHStack": [
        "test_concat_2d"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testVStack": [
        "test_concat_2d"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::test4DStack": [
        "test_concat_4d"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testInt32GPU": [
        "test_concat_random_rank5"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testBfloat16GPU": [
        "test_concat_random_rank5"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testRandom": [
        "test_concat_random_rank5", "test_concat_axes", "test_concat_many_inputs"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testZeroSize": [
        "test_concat_zero_size"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testGradientsSimple": [
        "test_concat_backward"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testGradientsFirstDim": [
        "test_concat_backward"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testGradientsLastDim": [
        "test_concat_backward"],
    "tensorflow/python/kernel_tests/array_ops/concat_op_test.py::ConcatOpTest::testTensorConcatDim0Grad": [
        "test_concat_backward"],
}


def _random(rng, shape, dtype):
    """Random host data for `dtype` (rand() as upstream; bools by threshold, complex x - 1jx)."""
    x = rng.random(shape)
    if dtype == tf.bool:
        return x > 0.5
    if dtype.is_integer:
        return (x * 100).astype(dtype.as_numpy_dtype)
    if dtype.is_complex:
        return x - 1j * x
    return x


def _host(t):
    if t.dtype == tf.bfloat16:
        return t.numpy().astype(np.float32)
    return t.numpy()


def _run(bench, device, arrays, axis, dtype):
    """Concatenate `arrays` (placed on the device as `dtype`) and check against NumPy."""
    with tf.device(device):
        xs = [tf.constant(a, dtype=dtype) for a in arrays]
        result = bench(tf.concat, xs, axis)
    # Compare with the inputs as the device holds them (rounded to half types).
    expected = np.concatenate([_host(x) for x in xs], axis=axis)
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(_host(result), expected)


@pytest.mark.parametrize("axis", [0, 1], ids=["hstack", "vstack"])
def test_concat_2d(bench, device, axis):
    # testHStack / testVStack: two 4x4 float32 blocks.
    rng = np.random.default_rng(0)
    arrays = [rng.random((4, 4)).astype(np.float32) for _ in range(2)]
    _run(bench, device, arrays, axis, tf.float32)


def test_concat_4d(bench, device):
    # test4DStack: [2, 3, 1, 1] and [2, 3, 4, 1] along axis 2.
    rng = np.random.default_rng(1)
    arrays = [rng.random((2, 3, 1, 1)), rng.random((2, 3, 4, 1))]
    _run(bench, device, arrays, 2, tf.float32)


@pytest.mark.parametrize("dtype", [tf.bool, tf.int16, tf.int32, tf.int64, tf.float16, tf.bfloat16,
                                   tf.float32, tf.float64, tf.complex64, tf.complex128],
                         ids=lambda d: d.name)
def test_concat_random_rank5(bench, device, dtype):
    # testRandom: several rank-5 tensors differing only along the concat dimension.
    rng = np.random.default_rng(2)
    shape = [3, 2, 4, 1, 3]
    arrays = []
    for size in (1, 4, 2, 3):
        shape[2] = size
        arrays.append(_random(rng, tuple(shape), dtype))
    _run(bench, device, arrays, 2, dtype)


@pytest.mark.parametrize("axis", [1, -2, 2, -1, 0])
def test_concat_axes(bench, device, axis):
    # testGradientsSimple/FirstDim/LastDim shapes: [10, x, 2] style pieces, x in 1, 2, 6,
    # with positive and negative axes.
    rng = np.random.default_rng(3)
    arrays = []
    for size in (1, 2, 6):
        shape = [10, 10, 2]
        shape[axis] = size
        arrays.append(rng.random(shape).astype(np.float32))
    _run(bench, device, arrays, axis, tf.float32)


@pytest.mark.parametrize("n0,n1", [(0, 0), (0, 2), (2, 0), (1, 2)])
@pytest.mark.parametrize("inner", [(), (3,)], ids=["rank1", "rank2"])
def test_concat_zero_size(bench, device, n0, n1, inner):
    # testZeroSize: pieces of size 0, 1, 2 along the concat axis.
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((n0,) + inner), rng.standard_normal((n1,) + inner)]
    _run(bench, device, arrays, 0, tf.float64)


def test_concat_many_inputs(bench, device):
    # A larger case: 64 float32 pieces of 128x256 (8 MiB in all) along axis 0.
    rng = np.random.default_rng(5)
    arrays = [rng.random((128, 256)).astype(np.float32) for _ in range(64)]
    _run(bench, device, arrays, 0, tf.float32)


def _concat_on(axis):
    """tf.concat of its positional tensors along `axis`: each piece an argument of its own, which backward
    differentiates."""
    return lambda *pieces: tf.concat(list(pieces), axis)


# testGradientsSimple / FirstDim / LastDim / testTensorConcatDim0Grad: the gradient of concat splits the cotangent
# back into the pieces, along the middle, first and last dims.
@pytest.mark.parametrize("axis", [1, 0, -1], ids=["middle", "first", "last"])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.bfloat16, tf.complex64], ids=lambda d: d.name)
def test_concat_backward(backward, device, dtype, axis):
    rng = np.random.default_rng(6)
    shapes = [[10, 9, 2] for _ in range(3)]
    for shape, size in zip(shapes, (1, 2, 6)):
        shape[axis] = size
    with tf.device(device):
        pieces = [tf.constant(_random(rng, shape, dtype), dtype=dtype) for shape in shapes]
        grads = backward(_concat_on(axis), *pieces)
    check_gradients(grads, _concat_on(axis), tuple(pieces))
