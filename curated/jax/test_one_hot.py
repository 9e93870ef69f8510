"""jax.nn.one_hot: cases adapted from tests/nn_test.py (NNFunctionsTest.testOneHot, testOneHotOutOfBound, testOneHotCustomDtype, testOneHotAxis). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact

pytestmark = pytest.mark.function("jax.nn.one_hot", decile=90, top20=False,
                                  backward="integer input (class indices): nothing to differentiate; the output is "
                                           "constant in them")

UPSTREAM_TESTS = {
    "tests/nn_test.py::NNFunctionsTest::testOneHot": [
        "test_one_hot_basic", "test_one_hot_batched_labels", "test_one_hot_large"],
    "tests/nn_test.py::NNFunctionsTest::testOneHotOutOfBound": ["test_one_hot_out_of_bound"],
    "tests/nn_test.py::NNFunctionsTest::testOneHotCustomDtype": ["test_one_hot_dtype"],
    "tests/nn_test.py::NNFunctionsTest::testOneHotAxis": ["test_one_hot_axis"],
}

# One-hot entries are exactly 0 or 1 in every dtype (assert_exact).


def _reference(labels, num_classes, dtype=np.float32, axis=-1):
    # Out-of-range labels (negative or >= num_classes) match no class and give all zeros.
    out = labels[..., None] == np.arange(num_classes)
    return np.moveaxis(out, -1, axis).astype(dtype)


@pytest.mark.parametrize("labels", [[0, 1, 2], [1, 2, 0]])
def test_one_hot_basic(bench, device, labels):
    x = np.array(labels, np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 3)
    assert_exact(result, _reference(x, 3))


def test_one_hot_out_of_bound(bench, device):
    x = np.array([-1, 3], np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 3)
    assert_exact(result, _reference(x, 3))


@pytest.mark.parametrize("dtype", [jnp.bool_, np.int32, np.float16, jnp.bfloat16])
def test_one_hot_dtype(bench, device, dtype):
    x = np.array([0, 1, 2], np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 3, dtype=dtype)
    assert_exact(result, _reference(x, 3, dtype=np.dtype(dtype)))


@pytest.mark.parametrize("axis", [0, -2])
def test_one_hot_axis(bench, device, axis):
    # For 1-D labels both axis=0 and axis=-2 put the class dimension first.
    x = np.array([1, 2, 0], np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 3, axis=axis)
    assert_exact(result, _reference(x, 3, axis=axis))


def test_one_hot_batched_labels(bench, device):
    x = np.random.default_rng(0).integers(0, 7, size=(4, 5)).astype(np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 7)
    assert_exact(result, _reference(x, 7))


def test_one_hot_large(bench, device):
    x = np.random.default_rng(1).integers(0, 1000, size=(1024,)).astype(np.int32)
    result = bench(jax.nn.one_hot, jax.device_put(x, device), 1000)
    assert_exact(result, _reference(x, 1000))
