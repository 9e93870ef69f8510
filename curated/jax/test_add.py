"""jax.numpy.add: cases adapted from tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests.testOp for "add", incl. its Python-scalar operands) and tests/lax_autodiff_test.py (LaxAutodiffTest.testOpGrad for add: order 2, rand_default operands in its compatible shapes, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import DEFAULT_TOL, as_numpy, assert_close, rand_default, tolerances

pytestmark = pytest.mark.function("jax.numpy.add", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_operators_test.py::JaxNumpyOperatorTests::testOp": [
        "test_add_dtypes", "test_add_broadcasting", "test_add_python_scalar", "test_add_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testOpGrad": ["test_add_backward"],
}


def _check(result, expected):
    # Upstream's default tolerance table (jtu.default_tolerance); integers and bool are exact.
    expected = np.asarray(expected)
    assert_close(result, expected, DEFAULT_TOL.get(expected.dtype, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_add_dtypes(bench, device, dtype):
    rng = np.random.default_rng(0)
    x, y = rand_default(rng, (3, 4), dtype), rand_default(rng, (3, 4), dtype)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    # NumPy adds bfloat16 through float32; rounding the exact f32 sum back gives the bf16 answer.
    expected = np.add(as_numpy(x), as_numpy(y)).astype(np.dtype(dtype))
    _check(result, expected)


@pytest.mark.parametrize("x_shape,y_shape", [
    ((), (3, 4)),          # 0-d operand broadcasts
    ((3, 1), (1, 4)),      # both operands broadcast
    ((2, 1, 4), (4,)),     # rank promotion
    ((0, 4), (0, 4)),      # empty
    ((3, 0), (1,)),        # empty with broadcasting
])
def test_add_broadcasting(bench, device, x_shape, y_shape):
    rng = np.random.default_rng(1)
    x, y = rand_default(rng, x_shape, np.float32), rand_default(rng, y_shape, np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_add_python_scalar(bench, device, dtype):
    # Upstream's PYTHON_SCALAR_SHAPE: a Python scalar is weakly typed and keeps the array dtype.
    rng = np.random.default_rng(2)
    x = rand_default(rng, (5,), dtype)
    scalar = 2 if np.issubdtype(dtype, np.integer) else 2.5
    result = bench(jnp.add, jax.device_put(x, device), scalar)
    _check(result, (x + np.asarray(scalar, dtype)).astype(dtype))


def test_add_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = rand_default(rng, (1024, 1024), np.float32), rand_default(rng, (1024, 1024), np.float32)
    result = bench(jnp.add, jax.device_put(x, device), jax.device_put(y, device))
    _check(result, np.add(x, y))


# testOpGrad (lax.add): each operand's gradient is the cotangent, summed over the axes it was broadcast along; to
# order 2 (zero: add is linear), in upstream's compatible shapes and the dtypes a device trains in, against the CPU's
# float64 gradient; bfloat16 within upstream's 16-bit gradient tolerance (a broadcast operand's gradient is a sum).
_GRAD_TOL = tolerances(float32=1e-6, bfloat16=5e-2, complex64=1e-6)


@pytest.mark.parametrize("x_shape,y_shape", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((), (3, 4))],
                         ids=["same", "both_broadcast", "scalar"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_add_backward(backward, device, dtype, x_shape, y_shape):
    rng = np.random.default_rng(4)
    x = jax.device_put(rand_default(rng, x_shape, dtype), device)
    y = jax.device_put(rand_default(rng, y_shape, dtype), device)
    grads = backward(jnp.add, x, y)
    check_gradients(grads, jnp.add, (x, y), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
