"""jax.numpy.tril: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTriLU with op="tril") and tests/lax_autodiff_test.py (LaxAutodiffTest.testSelectGrad: lax.select, which tril lowers to with a mask of the kept entries, order 2, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.tril", decile=50, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testTriLU": [
        "test_tril_k", "test_tril_shapes", "test_tril_dtypes", "test_tril_large"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testSelectGrad": ["test_tril_backward"],
}

# tril only selects entries or writes zeros: the comparison is exact (assert_exact).


@pytest.mark.parametrize("k", list(range(-3, 3)))
def test_tril_k(bench, device, k):
    x = rand_default(np.random.default_rng(0), (3, 4), np.float32)
    result = bench(jnp.tril, jax.device_put(x, device), k=k)
    assert_exact(result, np.tril(x, k=k))


# Upstream's shapes with at least two dims: non-square, degenerate, batched and empty.
@pytest.mark.parametrize("shape", [(3, 1), (1, 4), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)])
def test_tril_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    result = bench(jnp.tril, jax.device_put(x, device), k=-1)
    assert_exact(result, np.tril(x, k=-1))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.complex64, np.bool_])
def test_tril_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (4, 5), dtype)
    result = bench(jnp.tril, jax.device_put(x, device), k=1)
    assert_exact(result, np.tril(x, k=1))


def test_tril_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    result = bench(jnp.tril, jax.device_put(x, device))
    assert_exact(result, np.tril(x))


# testSelectGrad: the cotangent flows back where tril keeps the entry and is zero above the k-th diagonal, to order
# 2, in the floating dtypes a device trains in (complex too: tril takes every dtype); against the CPU's float64
# gradient.
@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((4, 3), -1), ((2, 3, 4), 1)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.complex64])
def test_tril_backward(backward, device, dtype, shape, k):
    x = jax.device_put(rand_default(np.random.default_rng(4), shape, dtype), device)
    fn = lambda a: jnp.tril(a, k=k)  # noqa: E731
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), order=2)
    assert not np.triu(np.asarray(grads[0].astype(np.complex64)), k + 1).any()  # nothing flows from a zeroed entry
