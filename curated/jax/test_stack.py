"""jax.numpy.stack: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testStack: shapes (), (2,), (3, 4), (1, 100) with each valid axis, 1 to 4 inputs, mixed dtypes promoted like NumPy, list or array input), checked exactly against np.stack."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.stack", decile=90, top20=False)


def _rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def _np(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _check(result, expected, dtype):
    assert result.shape == expected.shape and np.dtype(result.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(_np(result), _np(expected))


@pytest.mark.parametrize("shape,axis", [((), 0), ((2,), 0), ((2,), 1), ((3, 4), 0), ((3, 4), 2), ((3, 4), -1), ((1, 100), 1)])
@pytest.mark.parametrize("n", [1, 3])
def test_stack_shapes_axes(bench, device, shape, axis, n):
    rng = np.random.default_rng(0)
    xs = [_rand(rng, shape, np.float32) for _ in range(n)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], axis)
    _check(result, np.stack(xs, axis), np.float32)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_stack_dtypes(bench, device, dtype):
    rng = np.random.default_rng(1)
    xs = [_rand(rng, (2, 3), dtype) for _ in range(2)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], 1)
    _check(result, np.stack([_np(x) for x in xs], 1).astype(dtype), dtype)


@pytest.mark.parametrize("dtypes,out", [((np.int32, np.float32), np.float32), ((np.float16, np.float32), np.float32),
                                        ((np.bool_, np.int8), np.int8)])
def test_stack_mixed_dtypes_promote(bench, device, dtypes, out):
    rng = np.random.default_rng(2)
    xs = [_rand(rng, (4,), d) for d in dtypes]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs])
    _check(result, np.stack(xs).astype(out), out)


def test_stack_array_input(bench, device):
    # An array input is unstacked along its first axis and restacked along `axis`.
    x = _rand(np.random.default_rng(3), (3, 4, 5), np.float32)
    result = bench(jnp.stack, jax.device_put(x, device), 2)
    _check(result, np.stack(list(x), 2), np.float32)


def test_stack_large(bench, device):
    rng = np.random.default_rng(4)
    xs = [_rand(rng, (512, 512), np.float32) for _ in range(4)]
    result = bench(jnp.stack, [jax.device_put(x, device) for x in xs], 1)
    _check(result, np.stack(xs, 1), np.float32)
