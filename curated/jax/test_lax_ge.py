"""jax.lax.ge: cases adapted from tests/lax_test.py (LaxTest.testOp and testOpAgainstNumpy for "ge": rand_small operands of the default dtypes in shapes (), (2,), (3, 4) and (6, 4, 5), checked against NumPy's greater_equal; the operand checks of the binary ops: equal dtypes, equal ranks, size-1 and rank-0 broadcasting) and tests/lax_vmap_op_test.py (LaxVmapOpTest.testOp for "ge"). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import as_numpy, assert_exact
from jax import lax

pytestmark = pytest.mark.function("jax.lax.ge", decile=10, top20=False,
                                  backward="boolean output: not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testOp": [
        "test_ge_shapes", "test_ge_dtypes", "test_ge_rank0_arrays", "test_ge_rejects_mismatched_operands",
        "test_ge_large"],
    "tests/lax_test.py::LaxTest::testOpAgainstNumpy": [
        "test_ge_dtypes", "test_ge_inf_nan_signed_zero", "test_ge_integer_extremes", "test_ge_scalar_operand",
        "test_ge_size1_broadcasting"],
    "tests/lax_vmap_op_test.py::LaxVmapOpTest::testOp": ["test_ge_vmap"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": (
        "ge is not in upstream's LAX_GRAD_OPS: a comparison's boolean output has no gradient"
    ),
}


def _rand(rng, shape, dtype):
    """Like upstream's rand_small, on a coarse grid so that ties (x == y) occur and ge differs from gt."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 5, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return (rng.integers(-6, 7, size=shape) * 0.25).astype(dtype)


def _check(result, x, y):
    # A comparison returns bool in the broadcast shape and is exact.
    assert_exact(result, np.greater_equal(as_numpy(x), as_numpy(y)))


def _put(a, device):
    return jax.device_put(a, device)


@pytest.mark.parametrize("shape", [(), (2,), (3, 4), (6, 4, 5)], ids=["scalar", "2", "3x4", "6x4x5"])
def test_ge_shapes(bench, device, shape):
    rng = np.random.default_rng(0)
    x, y = _rand(rng, shape, np.float32), _rand(rng, shape, np.float32)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
                                   np.float16, jnp.bfloat16, np.float32])
def test_ge_dtypes(bench, device, dtype):
    rng = np.random.default_rng(1)
    x, y = _rand(rng, (3, 4), dtype), _rand(rng, (3, 4), dtype)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32])
def test_ge_inf_nan_signed_zero(bench, device, dtype):
    # IEEE ordering: nan compares false with everything (itself included), -0.0 >= 0.0, inf >= inf.
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0]
    pairs = [(a, b) for a in special for b in special]
    x = np.array([a for a, _ in pairs], dtype=dtype)
    y = np.array([b for _, b in pairs], dtype=dtype)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)
    host = np.asarray(result)
    assert not host[np.isnan(as_numpy(x)) | np.isnan(as_numpy(y))].any()
    n = len(special)
    assert host[4 * n + 3] and host[3 * n + 4]  # -0.0 >= 0.0 and 0.0 >= -0.0
    assert host[0] and not host[n + 0]  # inf >= inf, not -inf >= inf


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32])
def test_ge_integer_extremes(bench, device, dtype):
    # The extremes of the type: signed compares are signed, unsigned ones unsigned (2**31 >= 1 in uint32).
    info = np.iinfo(dtype)
    values = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dtype=dtype)
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)


@pytest.mark.parametrize("scalar", [0.25, np.float32(-0.5)], ids=["python_float", "numpy_float32"])
def test_ge_scalar_operand(bench, device, scalar):
    # A rank-0 operand broadcasts against an array of any rank (a Python float is weakly typed float32).
    x = _rand(np.random.default_rng(2), (4, 5), np.float32)
    result = bench(lax.ge, _put(x, device), scalar)
    _check(result, x, np.float32(scalar))


def test_ge_rank0_arrays(bench, device):
    x, y = np.float32(1.5), np.float32(1.5)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    assert result.shape == () and np.dtype(result.dtype) == np.bool_
    assert bool(result) is True


@pytest.mark.parametrize("x_shape,y_shape", [((3, 4), (1, 4)), ((3, 1), (1, 4)), ((2, 1, 5), (2, 3, 1))],
                         ids=["3x4_1x4", "3x1_1x4", "2x1x5_2x3x1"])
def test_ge_size1_broadcasting(bench, device, x_shape, y_shape):
    # Operands of equal rank broadcast along their size-1 dimensions, like NumPy.
    rng = np.random.default_rng(3)
    x, y = _rand(rng, x_shape, np.float32), _rand(rng, y_shape, np.float32)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)


def test_ge_rejects_mismatched_operands(bench, device):
    # Unlike jnp.greater_equal, lax.ge promotes neither dtypes nor ranks: those raise TypeError.
    x = _rand(np.random.default_rng(4), (2, 3), np.float32)
    with pytest.raises(TypeError):
        lax.ge(_put(x, device), _put(x.astype(np.int32), device))
    with pytest.raises(TypeError):
        lax.ge(_put(x, device), _put(x[0], device))
    with pytest.raises(TypeError):
        lax.ge(_put(x, device), _put(x.T.copy(), device))
    result = bench(lax.ge, _put(x, device), _put(x[::-1].copy(), device))
    _check(result, x, x[::-1])


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (1, 0)], ids=["both_0", "x_only", "x1_y0"])
def test_ge_vmap(bench, device, in_axes):
    # LaxVmapOpTest: batching along either operand's axis, or only one operand batched.
    rng = np.random.default_rng(5)
    x = _rand(rng, (3, 4), np.float32)
    y = _rand(rng, (3, 4) if in_axes[1] == 0 else (4,), np.float32)
    if in_axes == (1, 0):
        x = _rand(rng, (4, 3), np.float32)
        y = _rand(rng, (3, 4), np.float32)
    f = jax.vmap(lax.ge, in_axes=in_axes)
    result = bench(f, _put(x, device), _put(y, device))
    xs = np.moveaxis(x, in_axes[0], 0)
    ys = y if in_axes[1] is not None else np.broadcast_to(y, xs.shape)
    _check(result, xs, ys)


def test_ge_large(bench, device):
    rng = np.random.default_rng(6)
    x, y = _rand(rng, (1024, 1024), np.float32), _rand(rng, (1024, 1024), np.float32)
    result = bench(lax.ge, _put(x, device), _put(y, device))
    _check(result, x, y)
