"""jax.numpy.array: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testArray with its ndmin and copy variants, and its checks of dtype inference from Python lists; upstream checks no gradient of jnp.array, but a model differentiates through it, so the cases add its backward and cite the gradient tests of what it lowers to: the conversion to its own dtype (LaxAutodiffTest.testConvertElementTypeGrad) and ndmin's reshape (testReshapeGrad), and the stacking of a list of arrays as tests/lax_autodiff_test.py's LaxAutodiffTest.testConcatenateGrad checks it, order 2); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import canonical_dtype, rand_default

pytestmark = pytest.mark.function("jax.numpy.array", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testArray": [
        "test_array_from_numpy", "test_array_shapes", "test_array_from_python", "test_array_dtype_argument",
        "test_array_ndmin", "test_array_from_list_of_device_arrays", "test_array_copy", "test_array_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testConvertElementTypeGrad": ["test_array_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReshapeGrad": ["test_array_backward"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testConcatenateGrad": ["test_array_stacked_backward"],
}


def _check(result, expected, dtype=None):
    # Building an array copies values; after canonicalizing the dtype they are exact.
    expected = np.asarray(expected)
    dtype = canonical_dtype(dtype if dtype is not None else expected.dtype)
    assert isinstance(result, jax.Array)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == dtype
    host = np.asarray(result)
    if dtype == jnp.bfloat16:
        host = host.astype(np.float32)
        expected = expected.astype(jnp.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(host, expected.astype(host.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.uint8, np.complex64, np.bool_])
def test_array_from_numpy(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    result = bench(jnp.array, x)
    _check(result, x)


@pytest.mark.parametrize("shape", [(), (4,), (2, 1, 4), (0, 4), (3, 0)])
def test_array_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.array, jax.device_put(x, device))
    _check(result, x)


@pytest.mark.parametrize("obj", [
    [1, 2, 3],
    [[1.0, 2.0], [3.0, 4.0]],
    [True, False],
    [1, 2.5],                    # mixed int/float lists infer a float type
    [[1 + 2j, 3], [0, -1j]],
    ((1, 2), (3, 4)),           # nested tuples
    3.5,
])
def test_array_from_python(bench, device, obj):
    # Dtypes are inferred as NumPy does, then canonicalized (64-bit -> 32-bit).
    result = bench(jnp.array, obj)
    _check(result, np.array(obj))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, jnp.bfloat16, np.uint8])
def test_array_dtype_argument(bench, device, dtype):
    # An explicit dtype converts the (small integer valued) input exactly.
    x = np.arange(-3, 9, dtype=np.float32).reshape(3, 4)
    if dtype is np.uint8:
        x = np.abs(x)
    result = bench(jnp.array, jax.device_put(x, device), dtype=dtype)
    _check(result, x.astype(np.float32 if dtype is jnp.bfloat16 else dtype), dtype=dtype)


@pytest.mark.parametrize("ndmin", [0, 1, 3, 5])
def test_array_ndmin(bench, device, ndmin):
    x = rand_default(np.random.default_rng(2), (2, 3), np.float32)
    result = bench(jnp.array, jax.device_put(x, device), ndmin=ndmin)
    _check(result, np.array(x, ndmin=ndmin))


def test_array_from_list_of_device_arrays(bench, device):
    # A list of jax arrays stacks them into a new leading dimension.
    rng = np.random.default_rng(3)
    parts = [rand_default(rng, (4, 5), np.float32) for _ in range(3)]
    result = bench(jnp.array, [jax.device_put(p, device) for p in parts])
    _check(result, np.stack(parts))


@pytest.mark.parametrize("copy", [True, False])
def test_array_copy(bench, device, copy):
    # The result is a new array with the same values either way.
    x = rand_default(np.random.default_rng(4), (3, 4), np.float32)
    x_dev = jax.device_put(x, device)
    result = bench(jnp.array, x_dev, copy=copy)
    _check(result, x)
    np.testing.assert_array_equal(np.asarray(x_dev), x)


def test_array_large(bench, device):
    x = rand_default(np.random.default_rng(5), (1024, 1024), np.float32)
    result = bench(jnp.array, x)
    _check(result, x)


# A copy's gradient is the cotangent (with ndmin, reshaped back), to order 2, in the inexact dtypes a device trains
# in; against the CPU's float64 gradient.
@pytest.mark.parametrize("ndmin", [0, 4])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_array_backward(backward, device, dtype, ndmin):
    x = jax.device_put(rand_default(np.random.default_rng(6), (2, 3), dtype), device)
    fn = lambda a: jnp.array(a, ndmin=ndmin)  # noqa: E731
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), order=2)


# testConcatenateGrad: a list of arrays is stacked; each array's gradient is its slice of the cotangent, to order 2.
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_array_stacked_backward(backward, device, dtype):
    rng = np.random.default_rng(7)
    parts = [jax.device_put(rand_default(rng, (4, 5), dtype), device) for _ in range(3)]
    fn = lambda *ps: jnp.array(list(ps))  # noqa: E731
    grads = backward(fn, *parts)
    check_gradients(grads, fn, tuple(parts), order=2)
