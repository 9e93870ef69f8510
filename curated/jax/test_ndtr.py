"""jax.scipy.special.ndtr: cases adapted from tests/lax_scipy_special_functions_test.py (the "ndtr" op record: float dtypes, rand_default inputs, checked against scipy.special.ndtr, and its gradient check: order 1, eps 1e-3, atol 1e-3); UPSTREAM_TESTS below maps each to the cases here.

ndtr is documented for float32/float64 inputs only (other dtypes raise TypeError), so the cases use
float32, the default float type."""
import jax
import numpy as np
import pytest
import scipy.special as osp_special
from _gradients import check_gradients

pytestmark = pytest.mark.function("jax.scipy.special.ndtr", decile=10, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_scipy_special_functions_test.py::LaxScipySpecialFunctionsTest::testScipySpecialFun": [
        "test_ndtr_shapes", "test_ndtr_tails_and_special_values", "test_ndtr_large", "test_ndtr_grad_is_normal_pdf",
        "test_ndtr_backward"],
}


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_ndtr_shapes(bench, device, shape):
    x = (3 * np.random.default_rng(0).standard_normal(shape)).astype(np.float32)
    result = bench(jax.scipy.special.ndtr, jax.device_put(x, device))
    assert result.shape == shape and result.dtype == np.float32
    # float32 ndtr uses erf/erfc: the upstream check uses rtol 1e-5 for float32 special functions.
    np.testing.assert_allclose(np.asarray(result), osp_special.ndtr(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_ndtr_tails_and_special_values(bench, device):
    # Far tails keep relative accuracy (erfc branch); ndtr(0) = 1/2; infinities and NaN.
    x = np.array([-12.0, -10.0, -5.0, 0.0, 5.0, 10.0, -np.inf, np.inf, np.nan], np.float32)
    result = np.asarray(bench(jax.scipy.special.ndtr, jax.device_put(x, device)))
    expected = osp_special.ndtr(x.astype(np.float64))
    np.testing.assert_allclose(result[:6], expected[:6], rtol=1e-4, atol=0)
    assert result[3] == 0.5
    assert result[6] == 0.0 and result[7] == 1.0 and np.isnan(result[8])


def test_ndtr_large(bench, device):
    x = np.linspace(-8, 8, 1 << 20, dtype=np.float32)
    result = bench(jax.scipy.special.ndtr, jax.device_put(x, device))
    assert result.shape == x.shape
    np.testing.assert_allclose(np.asarray(result), osp_special.ndtr(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    assert np.all(np.diff(np.asarray(result)) >= 0)  # monotone


def test_ndtr_grad_is_normal_pdf(bench, device):
    # Not timed: the gradient check uses a pure function; bench times ndtr itself on the same input.
    x = np.linspace(-4, 4, 17, dtype=np.float32)
    xd = jax.device_put(x, device)
    result = bench(jax.scipy.special.ndtr, xd)
    np.testing.assert_allclose(np.asarray(result), osp_special.ndtr(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    g = jax.vmap(jax.grad(jax.scipy.special.ndtr))(xd)
    np.testing.assert_allclose(np.asarray(g), np.exp(-x.astype(np.float64) ** 2 / 2) / np.sqrt(2 * np.pi),
                               rtol=1e-5, atol=1e-6)


# testScipySpecialFun's gradient check: the normal density times the cotangent, in float32 (ndtr's only 32-bit
# dtype), into both tails; against the CPU's float64 gradient, with check_grads' eps of 1e-3 on the CPU.
def test_ndtr_backward(backward, device):
    x = jax.device_put(np.linspace(-6, 6, 13, dtype=np.float32), device)
    grads = backward(jax.scipy.special.ndtr, x)
    check_gradients(grads, jax.scipy.special.ndtr, (x,), tol=1e-5, eps=1e-3)
