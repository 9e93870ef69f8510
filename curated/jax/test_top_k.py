"""jax.lax.top_k: cases adapted from tests/lax_test.py (LaxTest.testTopK), tests/lax_vmap_test.py (LaxVmapTest.testTopK: top_k batched over a leading axis) and tests/lax_autodiff_test.py (LaxAutodiffTest.testTopKGrad: the values' gradient, order 2, distinct inputs, float32, shapes (4,), (5, 5) and (3, 1, 4), k 1 and 3); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients

pytestmark = pytest.mark.function("jax.lax.top_k", decile=70, top20=False)

UPSTREAM_TESTS = {
    "tests/lax_test.py::LaxTest::testTopK": [
        "test_top_k_shapes", "test_top_k_dtypes", "test_top_k_negative_and_inf", "test_top_k_large"],
    "tests/lax_vmap_test.py::LaxVmapTest::testTopK": ["test_top_k_vmap"],
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testTopKGrad": ["test_top_k_backward"],
}


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


def test_top_k_vmap(bench, device):
    # LaxVmapTest.testTopK: batched over the leading axis, each row's top k as one row's.
    x = _unique_values(np.random.default_rng(4), (5, 3, 4), np.float32)
    result = bench(jax.vmap(lambda a: jax.lax.top_k(a, 3)), jax.device_put(x, device))
    _check(result, x, 3)


# testTopKGrad: the values' gradient scatters the cotangent back to the selected positions (the indices are integers:
# no gradient); to order 2 (zero: piecewise linear), on distinct values so that no tie makes it ambiguous, in the dtypes
# a device trains in (the values stay exact in bfloat16), against the CPU's float64 gradient; check_grads steps by
# upstream's eps, well inside the gap between distinct values.
@pytest.mark.parametrize("shape,k", [((4,), 1), ((5, 5), 3), ((3, 1, 4), 3)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_top_k_backward(backward, device, dtype, shape, k):
    x = jax.device_put(_unique_values(np.random.default_rng(3), shape, dtype), device)
    grads = backward(jax.lax.top_k, x, k)
    check_gradients(grads, jax.lax.top_k, (x, k), order=2, eps=1e-2)
