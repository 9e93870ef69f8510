"""jax.lax.top_k: cases adapted from tests/lax_test.py (LaxTest.testTopK), tests/lax_vmap_op_test.py (testTopK) and tests/lax_autodiff_test.py (testTopKGrad)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.lax.top_k", decile=70, top20=False)


def _unique_values(rng, shape, dtype):
    """A shuffled arange like upstream: no ties, so the expected indices are unambiguous
    (the values stay exactly representable in every dtype used here)."""
    flat = np.arange(int(np.prod(shape))).astype(dtype)
    return rng.permutation(flat).reshape(shape)


def _reference(x, k):
    # Descending order; a float64 view orders every dtype used here (incl. bfloat16) exactly.
    idx = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx


def _check(result, x, k):
    values, indices = result
    exp_values, exp_indices = _reference(x, k)
    assert values.shape == exp_values.shape and indices.shape == exp_indices.shape
    assert np.dtype(values.dtype) == x.dtype
    assert np.issubdtype(indices.dtype, np.integer)
    np.testing.assert_array_equal(np.asarray(indices), exp_indices)
    np.testing.assert_array_equal(np.asarray(values).astype(np.float64), exp_values.astype(np.float64))


@pytest.mark.parametrize("shape", [(3,), (5, 3)])
@pytest.mark.parametrize("k", [1, 3])
def test_top_k_shapes(bench, device, shape, k):
    x = _unique_values(np.random.default_rng(0), shape, np.float32)
    result = bench(jax.lax.top_k, jax.device_put(x, device), k)
    _check(result, x, k)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.float16, jnp.bfloat16])
def test_top_k_dtypes(bench, device, dtype):
    # 3 * 5 * 3 = 45 distinct values are exact even in bfloat16 (as upstream notes).
    x = _unique_values(np.random.default_rng(1), (3, 5, 3), dtype)
    result = bench(jax.lax.top_k, jax.device_put(x, device), 2)
    _check(result, x, 2)


def test_top_k_negative_and_inf(bench, device):
    # Ordering must handle negative numbers and infinities.
    x = np.array([[-1.5, np.inf, 0.0, -np.inf, 2.25, -7.0]], np.float32)
    result = bench(jax.lax.top_k, jax.device_put(x, device), 4)
    _check(result, x, 4)


def test_top_k_large(bench, device):
    x = _unique_values(np.random.default_rng(2), (64, 1000), np.float32)
    result = bench(jax.lax.top_k, jax.device_put(x, device), 10)
    _check(result, x, 10)


@pytest.mark.parametrize("shape", [(4,), (5, 5), (2, 1, 4)])
def test_top_k_grad(bench, device, shape):
    # The gradient of the top-k values scatters the cotangent back to the selected positions.
    rng = np.random.default_rng(3)
    x = _unique_values(rng, shape, np.float32)
    k = 3
    weights = rng.standard_normal(shape[:-1] + (k,)).astype(np.float32)
    grad_fn = jax.grad(lambda a, w: jnp.sum(jax.lax.top_k(a, k)[0] * w))
    result = bench(grad_fn, jax.device_put(x, device), jax.device_put(weights, device))
    _, idx = _reference(x, k)
    expected = np.zeros(shape, np.float32)
    np.put_along_axis(expected, idx, weights, axis=-1)
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-6, atol=0)
