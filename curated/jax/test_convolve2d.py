"""jax.scipy.signal.convolve2d: cases adapted from tests/scipy_signal_test.py (LaxBackedScipySignalTests.testConvolutions2D for op "convolve2d", modes full/same/valid) with SciPy as the reference."""
import jax
import numpy as np
import pytest
from _support import assert_near_reference, rand_default, tolerances, tpu_precision, wide

pytestmark = pytest.mark.function("jax.scipy.signal.convolve2d", decile=50, top20=False)

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
