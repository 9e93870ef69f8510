"""jax.scipy.signal.convolve2d: cases adapted from tests/scipy_signal_test.py (LaxBackedScipySignalTests.testConvolutions2D for op "convolve2d", modes full/same/valid) with SciPy as the reference, and tests/lax_autodiff_test.py (LaxAutodiffTest.testConvGeneralDilatedGrad: lax.conv_general_dilated, which convolve2d lowers to, both operands' gradients, order 2, padded, tolerance 1e-3 in float32, the inexact dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, tolerances, tpu_precision, wide

pytestmark = pytest.mark.function("jax.scipy.signal.convolve2d", decile=50, top20=False)

UPSTREAM_TESTS = {
    "tests/scipy_signal_test.py::LaxBackedScipySignalTests::testConvolutions2D": [
        "test_convolve2d_modes", "test_convolve2d_dtypes", "test_convolve2d_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testConvGeneralDilatedGrad": ["test_convolve2d_backward"],
}

# testConvolutions2D's tolerances.
_TOL = tolerances(float16=1e-2, bfloat16=1e-1, float32=1e-2, complex64=1e-2)


def _check(result, x, y, mode, dtype):
    from scipy import signal  # SciPy is the reference, as upstream (imported lazily)
    assert_near_reference(result, signal.convolve2d(wide(x), wide(y), mode=mode), dtype, _TOL)


# Upstream's two-dimensional shapes; "valid" needs one operand at least as large in every dim.
@pytest.mark.parametrize("xshape,yshape", [((1, 1), (1, 1)), ((2, 3), (2, 2)), ((3, 4), (2, 3)), ((4, 4), (4, 4)), ((2, 2), (3, 4))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve2d_modes(bench, device, xshape, yshape, mode):
    rng = np.random.default_rng(0)
    x, y = rand_default(rng, xshape, np.float32), rand_default(rng, yshape, np.float32)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   mode=mode, precision=tpu_precision(device))
    _check(result, x, y, mode, np.float32)


# Integer operands promote to the default float type.
@pytest.mark.parametrize("dtype,out_dtype", [(np.float16, np.float16), (np.int32, np.float32), (np.complex64, np.complex64)])
def test_convolve2d_dtypes(bench, device, dtype, out_dtype):
    rng = np.random.default_rng(1)
    x, y = rand_default(rng, (4, 5), dtype), rand_default(rng, (3, 2), dtype)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   precision=tpu_precision(device))
    _check(result, x, y, "full", out_dtype)


def test_convolve2d_large(bench, device):
    rng = np.random.default_rng(2)
    x, y = rand_default(rng, (512, 512), np.float32), rand_default(rng, (5, 5), np.float32)
    result = bench(jax.scipy.signal.convolve2d, jax.device_put(x, device), jax.device_put(y, device),
                   mode="same", precision=tpu_precision(device))
    _check(result, x, y, "same", np.float32)


# testConvGeneralDilatedGrad: each operand's gradient is the cotangent correlated with the other operand, to order 2
# (zero: convolution is bilinear), in every mode, in the inexact dtypes a device trains in; against the CPU's float64
# gradient at upstream's tolerances (bfloat16 within 1e-1, tighter than upstream's 1).
_GRAD_TOL = tolerances(float32=1e-3, bfloat16=1e-1, complex64=1e-3)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_convolve2d_backward(backward, device, dtype, mode):
    rng = np.random.default_rng(3)
    x, y = (jax.device_put(rand_default(rng, shape, dtype), device) for shape in ((4, 5), (2, 3)))
    fn = lambda a, b: jax.scipy.signal.convolve2d(a, b, mode=mode, precision=tpu_precision(device))  # noqa: E731
    grads = backward(fn, x, y)
    check_gradients(grads, fn, (x, y), tol=_GRAD_TOL[np.dtype(dtype)], order=2)
