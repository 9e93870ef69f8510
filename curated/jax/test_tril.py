"""jax.numpy.tril: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testTriLU with op="tril")."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.tril", decile=50, top20=False)

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
