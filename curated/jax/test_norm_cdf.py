"""jax.scipy.stats.norm.cdf: cases adapted from tests/scipy_stats_test.py (LaxBackedScipyStatsTests.testNormCdf) with SciPy as the reference, and tests/lax_scipy_special_functions_test.py (LaxScipySpecialFunctionsTest.testScipySpecialFun's gradient check of ndtr, which norm.cdf evaluates at (x - loc) / scale: order 1, eps 1e-3); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_near_reference, rand_default, rand_uniform, tolerances

pytestmark = pytest.mark.function("jax.scipy.stats.norm.cdf", decile=30, top20=False)

UPSTREAM_TESTS = {
    "tests/scipy_stats_test.py::LaxBackedScipyStatsTests::testNormCdf": [
        "test_norm_cdf_loc_scale", "test_norm_cdf_standard", "test_norm_cdf_tails_and_special",
        "test_norm_cdf_integer_input", "test_norm_cdf_large"],
    "tests/lax_scipy_special_functions_test.py::LaxScipySpecialFunctionsTest::testScipySpecialFun": ["test_norm_cdf_backward"],
}

# testNormCdf compares with tol=1e-6.
_TOL = tolerances(float32=1e-6)


def _scipy_norm_cdf(x, loc=0.0, scale=1.0):
    from scipy import stats  # SciPy is the reference, as upstream (imported lazily)
    return stats.norm.cdf(x, loc, scale)


def _positive(rng, shape):
    """Like upstream's rand_positive for the scale."""
    return rand_uniform(rng, shape, np.float32, 0.1, 3.0)


# testNormCdf: three broadcast-compatible shapes (x, loc, scale).
@pytest.mark.parametrize("shapes", [
    ((), (), ()), ((4,), (4,), (4,)), ((3, 4), (4,), ()), ((3, 1), (1, 4), (3, 4)), ((2, 3, 4), (3, 1), (1,)),
])
def test_norm_cdf_loc_scale(bench, device, shapes):
    rng = np.random.default_rng(0)
    x, loc, scale = rand_default(rng, shapes[0]), rand_default(rng, shapes[1]), _positive(rng, shapes[2])
    result = bench(jax.scipy.stats.norm.cdf, *(jax.device_put(a, device) for a in (x, loc, scale)))
    expected = _scipy_norm_cdf(x.astype(np.float64), loc.astype(np.float64), scale.astype(np.float64))
    assert_near_reference(result, expected, np.float32, _TOL)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (0,)])
def test_norm_cdf_standard(bench, device, shape):
    # Default loc=0, scale=1.
    x = rand_default(np.random.default_rng(1), shape)
    result = bench(jax.scipy.stats.norm.cdf, jax.device_put(x, device))
    assert_near_reference(result, _scipy_norm_cdf(x.astype(np.float64)), np.float32, _TOL)


def test_norm_cdf_tails_and_special(bench, device):
    # Far tails (values underflow towards 0 / saturate at 1), the median point and infinities.
    x = np.array([-40.0, -10.0, -5.0, -1.0, 0.0, 1.0, 5.0, 10.0, np.inf, -np.inf], np.float32)
    result = bench(jax.scipy.stats.norm.cdf, jax.device_put(x, device))
    assert_near_reference(result, _scipy_norm_cdf(x.astype(np.float64)), np.float32, _TOL)


def test_norm_cdf_integer_input(bench, device):
    # Integer arguments promote to the default float type.
    x = np.arange(-4, 5, dtype=np.int32)
    result = bench(jax.scipy.stats.norm.cdf, jax.device_put(x, device))
    assert_near_reference(result, _scipy_norm_cdf(x.astype(np.float64)), np.float32, _TOL)


# The gradients of x, loc and scale (the normal density of the standardized value, scaled, times the cotangent), in
# broadcasting shapes, in float32 (ndtr, which norm.cdf calls, takes float32 and float64 only: bfloat16 raises
# TypeError); against the CPU's float64 gradient, with check_grads' eps of 1e-3 on the CPU.
@pytest.mark.parametrize("shapes", [((8,), (), ()), ((3, 4), (4,), (3, 1))])
def test_norm_cdf_backward(backward, device, shapes):
    rng = np.random.default_rng(3)
    x, loc, scale = rand_default(rng, shapes[0]), rand_default(rng, shapes[1]), _positive(rng, shapes[2])
    args = tuple(jax.device_put(a, device) for a in (x, loc, scale))
    grads = backward(jax.scipy.stats.norm.cdf, *args)
    check_gradients(grads, jax.scipy.stats.norm.cdf, args, tol=1e-5, eps=1e-3)


def test_norm_cdf_large(bench, device):
    x = rand_default(np.random.default_rng(4), (512, 512))
    result = bench(jax.scipy.stats.norm.cdf, jax.device_put(x, device))
    assert_near_reference(result, _scipy_norm_cdf(x.astype(np.float64)), np.float32, _TOL)
