"""jax.numpy.compress: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testCompress, testCompressMethod; conditions drawn with rand_some_zero, shorter conditions truncate) and tests/lax_autodiff_test.py (LaxAutodiffTest.testGatherGrad: the gather compress's boolean selection lowers to, its scatter-add transpose, order 2, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here.

The condition decides the output shape, so JAX cannot trace it under jit: the harness times these calls
eagerly (the record says compiled=False)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import as_numpy, assert_exact, rand_some_zero

pytestmark = pytest.mark.function("jax.numpy.compress", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testCompress": ["test_compress_axis", "test_compress_dtypes", "test_compress_short_condition",
                          "test_compress_all_or_nothing", "test_compress_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testCompressMethod": "the x.compress method calls jnp.compress, whose values the axis cases check",
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testGatherGrad": ["test_compress_backward"],
}

# compress selects entries: exact values, same dtype (assert_exact).


def _cond_len(shape, axis):
    return int(np.prod(shape)) if axis is None else shape[axis]


# Upstream's shapes with every axis and axis=None (the flattened array).
@pytest.mark.parametrize("shape,axis", [
    ((3,), 0), ((3,), None), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((3, 4), None),
    ((3, 4, 5), 1), ((3, 4, 5), 2),
])
def test_compress_axis(bench, device, shape, axis):
    rng = np.random.default_rng(0)
    cond = rand_some_zero(rng, (_cond_len(shape, axis),), np.float32)   # nonzero floats count as True
    x = rand_some_zero(rng, shape, np.float32)
    result = bench(jnp.compress, jax.device_put(cond, device), jax.device_put(x, device), axis)
    assert_exact(result, np.compress(cond, x, axis))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_compress_dtypes(bench, device, dtype):
    rng = np.random.default_rng(1)
    cond = rng.random(4) < 0.5
    x = rand_some_zero(rng, (3, 4), dtype)
    result = bench(jnp.compress, jax.device_put(cond, device), jax.device_put(x, device), 1)
    assert_exact(result, np.compress(cond, as_numpy(x), 1).astype(np.dtype(dtype)))


@pytest.mark.parametrize("n", [0, 2])
def test_compress_short_condition(bench, device, n):
    # A condition shorter than the axis selects only among its first entries.
    rng = np.random.default_rng(2)
    cond = np.array([True, False, True][:n], dtype=bool)
    x = rand_some_zero(rng, (3, 4), np.float32)
    result = bench(jnp.compress, jax.device_put(cond, device), jax.device_put(x, device), 1)
    assert_exact(result, np.compress(cond, x, 1))


@pytest.mark.parametrize("value", [True, False])
def test_compress_all_or_nothing(bench, device, value):
    x = rand_some_zero(np.random.default_rng(3), (4, 5), np.float32)
    cond = np.full(4, value)
    result = bench(jnp.compress, jax.device_put(cond, device), jax.device_put(x, device), 0)
    assert_exact(result, np.compress(cond, x, 0))


def test_compress_large(bench, device):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1024, 512)).astype(np.float32)
    cond = rng.random(1024) < 0.5
    result = bench(jnp.compress, jax.device_put(cond, device), jax.device_put(x, device), 0)
    assert_exact(result, np.compress(cond, x, 0))


# testGatherGrad: the gradient is the cotangent scattered back to the selected entries, zero elsewhere, to order 2, in
# the floating dtypes a device trains in; the boolean condition is not differentiated.
@pytest.mark.parametrize("shape,axis", [((5,), 0), ((3, 4), 1), ((3, 4), None)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_compress_backward(backward, device, dtype, shape, axis):
    rng = np.random.default_rng(5)
    cond = jax.device_put(np.resize([True, False, True], _cond_len(shape, axis)), device)
    x = jax.device_put(rand_some_zero(rng, shape, dtype), device)
    grads = backward(jnp.compress, cond, x, axis)
    check_gradients(grads, jnp.compress, (cond, x, axis), order=2)
