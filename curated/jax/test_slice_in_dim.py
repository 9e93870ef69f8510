"""jax.lax.slice_in_dim: cases adapted from tests/lax_test.py (LaxTest.testSlice / testSliceInDim: start, limit and stride along one axis of shapes like (5, 3) and (7, 5, 3), default dtypes, checked exactly against NumPy slicing; None and negative indices) and tests/lax_autodiff_test.py (the transpose of a slice pads with zeros)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact, rand_default
from jax import lax

pytestmark = pytest.mark.function("jax.lax.slice_in_dim", decile=40, top20=False)

# slice_in_dim only selects entries: every check is exact (assert_exact).


@pytest.mark.parametrize("shape,start,limit,stride,axis", [
    ((5,), 1, 4, 1, 0),
    ((5, 3), 1, 3, 1, 0),
    ((5, 3), 0, 3, 2, 1),
    ((7, 5, 3), 1, 7, 2, 0),
    ((7, 5, 3), 0, 5, 3, 1),
    ((7, 5, 3), 2, 3, 1, 2),
    ((5, 3), 2, 2, 1, 0),  # empty slice
])
def test_slice_in_dim(bench, device, shape, start, limit, stride, axis):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), start, limit, stride, axis)
    index = [slice(None)] * len(shape)
    index[axis] = slice(start, limit, stride)
    assert_exact(result, x[tuple(index)])


@pytest.mark.parametrize("start,limit", [(None, 3), (2, None), (None, None), (-3, -1), (1, -1)])
def test_slice_in_dim_none_and_negative(bench, device, start, limit):
    # None means the start/end of the axis; negative indices count from the end.
    x = rand_default(np.random.default_rng(1), (4, 6), np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), start, limit, axis=1)
    assert_exact(result, x[:, start:limit])


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_slice_in_dim_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (6, 4), dtype)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), 1, 5, 2, 0)
    assert_exact(result, x[1:5:2])


def test_slice_in_dim_grad_pads_zeros(bench, device):
    x = rand_default(np.random.default_rng(3), (8,), np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), 2, 7, 2)
    assert_exact(result, x[2:7:2])
    g = jax.grad(lambda a: lax.slice_in_dim(a, 2, 7, 2).sum())(x)
    expected = np.zeros(8, np.float32)
    expected[2:7:2] = 1
    np.testing.assert_array_equal(np.asarray(g), expected)


def test_slice_in_dim_large(bench, device):
    x = rand_default(np.random.default_rng(4), (1024, 1024), np.float32)
    result = bench(lax.slice_in_dim, jax.device_put(x, device), 100, 900, 3, 1)
    assert_exact(result, x[:, 100:900:3])
