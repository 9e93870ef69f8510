"""jax.lax.bitwise_and: cases adapted from tests/lax_test.py (LaxTest.testOp and testOpAgainstNumpy for "bitwise_and" over the boolean, signed and unsigned integer dtypes) and tests/lax_vmap_op_test.py (LaxVmapOpTest.testOp); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import numpy as np
import pytest
from _support import assert_exact
from jax import lax

pytestmark = pytest.mark.function("jax.lax.bitwise_and", decile=10, top20=False,
                                  backward="integer and boolean operands only: not differentiable")

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testOp": ["test_bitwise_and_dtypes", "test_bitwise_and_shapes",
                                          "test_bitwise_and_large"],
    "tests/lax_test.py::LaxTest::testOpAgainstNumpy": ["test_bitwise_and_dtypes", "test_bitwise_and_identities"],
    "tests/lax_vmap_op_test.py::LaxVmapOpTest::testOp": ["test_bitwise_and_vmap"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": "bitwise_and is not in upstream's LAX_GRAD_OPS: "
                                                               "integer operands have no gradient",
}

# Bitwise operations are exact and keep the operand dtype (assert_exact).


def _rand_bits(rng, shape, dtype):
    """Like upstream's rand_bool / rand_int: the full value range of the type, so every bit
    (incl. the sign bit) is exercised."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_bitwise_and_dtypes(bench, device, dtype):
    rng = np.random.default_rng(0)
    x, y = _rand_bits(rng, (3, 4), dtype), _rand_bits(rng, (3, 4), dtype)
    result = bench(lax.bitwise_and, jax.device_put(x, device), jax.device_put(y, device))
    assert_exact(result, np.bitwise_and(x, y))


# lax ops take operands of equal shape (no implicit rank promotion); upstream's shapes.
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 1, 4), (0,), (3, 0)])
def test_bitwise_and_shapes(bench, device, shape):
    rng = np.random.default_rng(1)
    x, y = _rand_bits(rng, shape, np.int32), _rand_bits(rng, shape, np.int32)
    result = bench(lax.bitwise_and, jax.device_put(x, device), jax.device_put(y, device))
    assert_exact(result, np.bitwise_and(x, y))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8])
def test_bitwise_and_identities(bench, device, dtype):
    # x & ~0 == x and x & 0 == 0, including the extreme values of the type.
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2], dtype)
    masks = np.array([~np.array(0, dtype), 0, ~np.array(0, dtype), 0, ~np.array(0, dtype)], dtype)
    result = bench(lax.bitwise_and, jax.device_put(x, device), jax.device_put(masks, device))
    assert_exact(result, np.bitwise_and(x, masks))


def test_bitwise_and_vmap(bench, device):
    # lax_vmap_op_test: batching over a leading axis of one operand only.
    rng = np.random.default_rng(3)
    x, y = _rand_bits(rng, (5, 6), np.int32), _rand_bits(rng, (6,), np.int32)
    fn = jax.vmap(lax.bitwise_and, in_axes=(0, None))
    result = bench(fn, jax.device_put(x, device), jax.device_put(y, device))
    assert_exact(result, np.bitwise_and(x, y[None, :]))


def test_bitwise_and_large(bench, device):
    rng = np.random.default_rng(4)
    x, y = _rand_bits(rng, (1024, 1024), np.uint32), _rand_bits(rng, (1024, 1024), np.uint32)
    result = bench(lax.bitwise_and, jax.device_put(x, device), jax.device_put(y, device))
    assert_exact(result, np.bitwise_and(x, y))
