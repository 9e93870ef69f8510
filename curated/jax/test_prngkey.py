"""jax.random.PRNGKey: cases adapted from tests/random_test.py (PrngTest.testPRNGValues) and tests/random_lax_test.py (CommonRandomTest.testRngUniform), as upstream names them now. UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.random.PRNGKey", decile=100, top20=True,
                                  backward="integer seed in, unsigned integer key out: not differentiable")

UPSTREAM_TESTS = {
    "tests/random_test.py::PrngTest::testPRNGValues": [
        "test_prngkey_seed_values", "test_prngkey_array_seed", "test_prngkey_split_and_fold_in"],
    "tests/random_lax_test.py::CommonRandomTest::testRngUniform": ["test_prngkey_feeds_uniform"],
}


def _expected_key(seed):
    # The default threefry2x32 key holds the seed's high and low 32-bit words.
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def _check_key(key, seed):
    assert key.shape == (2,)
    assert np.dtype(key.dtype) == np.uint32
    np.testing.assert_array_equal(np.asarray(key), _expected_key(seed))
    # Same seed -> same key; a different seed -> a different key.
    np.testing.assert_array_equal(np.asarray(jax.random.PRNGKey(seed)), np.asarray(key))
    assert not np.array_equal(np.asarray(jax.random.PRNGKey(seed + 1)), np.asarray(key))


def _check_uniform_samples(samples, dtype, n):
    """testRngUniform's checks: dtype/shape, range [0, 1), and a Kolmogorov-Smirnov test
    against U(0, 1) with upstream's 1% failure bound."""
    from scipy import stats  # SciPy is the statistical reference, as upstream (imported lazily)
    assert samples.shape == (n,)
    assert np.dtype(samples.dtype) == np.dtype(dtype)
    host = np.asarray(samples).astype(np.float64)
    assert np.all(host >= 0.0) and np.all(host < 1.0)
    assert stats.kstest(host, stats.uniform().cdf).pvalue > 0.01


@pytest.mark.parametrize("seed", [0, 1, 42, 1701, 2**31 - 1, 2**32 - 1])
def test_prngkey_seed_values(bench, device, seed):
    # A Python int seed is a static argument; seeds up to 2**32 - 1 fit the low word.
    key = bench(jax.random.PRNGKey, seed)
    _check_key(key, seed)


def test_prngkey_array_seed(bench, device):
    # The seed may also be a (device) integer scalar, as when keys are built under jit.
    seed = jax.device_put(np.asarray(7, np.int32), device)
    key = bench(jax.random.PRNGKey, seed)
    _check_key(key, 7)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16])
def test_prngkey_feeds_uniform(bench, device, dtype):
    key = bench(jax.random.PRNGKey, 0)
    n = 10000
    samples = jax.random.uniform(key, (n,), dtype)
    _check_uniform_samples(samples, dtype, n)
    # The key determines the stream: the same key repeats it, another seed changes it.
    again = jax.random.uniform(jax.random.PRNGKey(0), (n,), dtype)
    np.testing.assert_array_equal(np.asarray(again).astype(np.float32), np.asarray(samples).astype(np.float32))
    other = jax.random.uniform(jax.random.PRNGKey(1), (n,), dtype)
    assert not np.array_equal(np.asarray(other).astype(np.float32), np.asarray(samples).astype(np.float32))


def test_prngkey_split_and_fold_in(bench, device):
    # testPRNGValues: keys derived from PRNGKey(0) are distinct from it and from each other.
    key = bench(jax.random.PRNGKey, 0)
    _check_key(key, 0)
    children = np.asarray(jax.random.split(key, 4))
    folded = np.asarray(jax.random.fold_in(key, 4))
    assert children.shape == (4, 2) and children.dtype == np.uint32
    rows = {tuple(r) for r in children} | {tuple(folded), tuple(np.asarray(key))}
    assert len(rows) == 6
