"""jax.numpy.fliplr: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testFliplr over nonempty shapes of rank >= 2 and the default dtypes) and tests/lax_autodiff_test.py (LaxAutodiffTest.testReverseGrad: lax.rev, which fliplr lowers to, order 2); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.fliplr", decile=30, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testFliplr": [
        "test_fliplr_shapes", "test_fliplr_dtypes", "test_fliplr_matches_slice", "test_fliplr_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testReverseGrad": ["test_fliplr_backward"],
}

# fliplr reverses the second axis: exact values, same dtype and shape (assert_exact).


# Upstream's shapes with at least two dimensions; the second axis is the one reversed.
@pytest.mark.parametrize("shape", [(3, 4), (3, 1), (1, 4), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_fliplr_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    assert_exact(result, np.fliplr(x))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_fliplr_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(1), (4, 5), dtype)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    assert_exact(result, np.fliplr(x))


def test_fliplr_matches_slice(bench, device):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    assert_exact(result, x[:, ::-1])


# testReverseGrad: the cotangent of fliplr is reversed back along the second axis, to order 2, in the floating dtypes
# a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_fliplr_backward(backward, device, dtype, shape):
    x = jax.device_put(rand_default(np.random.default_rng(2), shape, dtype), device)
    grads = backward(jnp.fliplr, x)
    check_gradients(grads, jnp.fliplr, (x,), order=2)


def test_fliplr_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.fliplr, jax.device_put(x, device))
    assert_exact(result, np.fliplr(x))
