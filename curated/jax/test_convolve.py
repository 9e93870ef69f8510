"""jax.numpy.convolve: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testConvolutions for op "convolve", modes full/same/valid, one-dimensional shapes, and testConvolutionsPreferredElementType) and tests/lax_autodiff_test.py (LaxAutodiffTest.testConvGeneralDilatedGrad: lax.conv_general_dilated, which convolve lowers to, both operands' gradients, order 2, padded, tolerance 1e-3 in float32, the inexact dtypes) and tests/sparsify_test.py (SparsifyTest.testSparseConvolve: a BCOO left operand, dense right, through sparsify, mode full, float32); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, rand_some_zero, tolerances, tpu_precision, wide

pytestmark = pytest.mark.function("jax.numpy.convolve", decile=30, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testConvolutions": [
        "test_convolve_modes", "test_convolve_dtypes", "test_convolve_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testConvolutionsPreferredElementType": [
        "test_convolve_preferred_element_type"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testConvGeneralDilatedGrad": ["test_convolve_backward"],
    "tests/sparsify_test.py::SparsifyTest::testSparseConvolve": ["test_convolve_sparse"],
}

# testConvolutions' tolerances.
_TOL = tolerances(float16=2e-1, bfloat16=2e-1, float32=1e-2, complex64=1e-2)


def _check(result, x, y, mode, dtype):
    assert_near_reference(result, np.convolve(wide(x), wide(y), mode=mode), dtype, _TOL)


# Upstream's one_dim_array_shapes for both operands, every mode.
@pytest.mark.parametrize("xshape,yshape", [((1,), (1,)), ((6,), (1,)), ((6,), (12,)), ((12,), (6,)), ((12,), (12,))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_modes(bench, device, xshape, yshape, mode):
    rng = np.random.default_rng(0)
    x, y = rand_default(rng, xshape, np.float32), rand_default(rng, yshape, np.float32)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   mode=mode, precision=tpu_precision(device))
    _check(result, x, y, mode, np.float32)


# convolve is inexact: integer operands promote to the default float (as promote_like_jnp).
@pytest.mark.parametrize("dtype,out_dtype", [
    (np.float16, np.float16), (jnp.bfloat16, jnp.bfloat16), (np.int32, np.float32), (np.complex64, np.complex64),
])
def test_convolve_dtypes(bench, device, dtype, out_dtype):
    rng = np.random.default_rng(1)
    x, y = rand_default(rng, (12,), dtype), rand_default(rng, (6,), dtype)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   precision=tpu_precision(device))
    _check(result, x, y, "full", out_dtype)


def test_convolve_preferred_element_type(bench, device):
    # testConvolutionsPreferredElementType: int8 operands accumulated (and returned) as int32.
    rng = np.random.default_rng(2)
    x, y = rand_default(rng, (12,), np.int8), rand_default(rng, (6,), np.int8)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   preferred_element_type=np.int32)
    _check(result, x, y, "full", np.int32)


def test_convolve_large(bench, device):
    rng = np.random.default_rng(3)
    x, y = rand_default(rng, (100_000,), np.float32), rand_default(rng, (64,), np.float32)
    result = bench(jnp.convolve, jax.device_put(x, device), jax.device_put(y, device),
                   mode="same", precision=tpu_precision(device))
    _check(result, x, y, "same", np.float32)


# testConvGeneralDilatedGrad: each operand's gradient is the cotangent correlated with the other operand, to order 2
# (zero: convolution is bilinear), in every mode, in the inexact dtypes a device trains in; against the CPU's float64
# gradient at upstream's tolerances (bfloat16 within 1e-1, tighter than upstream's 1).
_GRAD_TOL = tolerances(float32=1e-3, bfloat16=1e-1, complex64=1e-3)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_convolve_backward(backward, device, dtype, mode):
    rng = np.random.default_rng(4)
    x, y = (jax.device_put(rand_default(rng, shape, dtype), device) for shape in ((6,), (3,)))
    fn = lambda a, b: jnp.convolve(a, b, mode=mode, precision=tpu_precision(device))  # noqa: E731
    grads = backward(fn, x, y)
    check_gradients(grads, fn, (x, y), tol=_GRAD_TOL[np.dtype(dtype)], order=2)


# testSparseConvolve: a sparse (BCOO) signal convolved with a dense kernel through sparsify, which lowers it to
# bcoo_conv_general_dilated; against NumPy on the dense signal at upstream's float32 tolerance (1e-5).
@pytest.mark.layout("sparse_coo")
def test_convolve_sparse(bench, device):
    from jax.experimental import sparse  # imported where used: the sparse module is experimental
    rng = np.random.default_rng(5)
    x, y = rand_some_zero(rng, (10,), np.float32), rand_default(rng, (5,), np.float32)
    fn = sparse.sparsify(lambda a, b: jnp.convolve(a, b, mode="full", precision=tpu_precision(device)))
    result = bench(fn, jax.device_put(sparse.BCOO.fromdense(x), device), jax.device_put(y, device))
    assert isinstance(result, sparse.BCOO)
    assert_near_reference(result.todense(), np.convolve(wide(x), wide(y)), np.float32, tolerances(float32=1e-5))
