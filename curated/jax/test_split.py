"""jax.numpy.split: cases adapted from tests/lax_numpy_test.py (LaxBackedNumpyTests.testSplitStaticInt: shapes (3,), (2, 3), (6, 5, 4) with a section count along each axis; index lists as NumPy takes them; testSplitTypeError), checked exactly against np.split, and tests/lax_autodiff_test.py (LaxAutodiffTest.testSplitGrad: lax.split, which jnp.split lowers to in current releases, along each axis of shapes (4,), (3, 4), (2, 3, 4), order 2, the floating dtypes); UPSTREAM_TESTS below maps each to the cases here."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _gradients import check_gradients
from _support import assert_exact, rand_default

pytestmark = pytest.mark.function("jax.numpy.split", decile=100, top20=True)

UPSTREAM_TESTS = {
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testSplitStaticInt": [
        "test_split_sections", "test_split_indices", "test_split_dtypes", "test_split_large"],
    "tests/lax_numpy_test.py::LaxBackedNumpyTests::testSplitTypeError": "checks the error raised for traced "
                                                                       "(non-static) section arguments under jit",
    "tests/lax_autodiff_test.py::LaxAutodiffTest::testSplitGrad": ["test_split_backward"],
}


def _check(parts, expected):
    # split only moves values: every part is exact (assert_exact).
    assert isinstance(parts, (list, tuple)) and len(parts) == len(expected)
    for p, e in zip(parts, expected):
        assert_exact(p, e)


@pytest.mark.parametrize("shape,sections,axis", [
    ((3,), 1, 0), ((3,), 3, 0), ((2, 3), 3, 1), ((2, 3), 2, 0),
    ((6, 5, 4), 2, 0), ((6, 5, 4), 5, 1), ((6, 5, 4), 4, -1),
])
def test_split_sections(bench, device, shape, sections, axis):
    x = rand_default(np.random.default_rng(0), shape, np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), sections, axis)
    _check(parts, np.split(x, sections, axis))


@pytest.mark.parametrize("indices", [[1], [1, 3], [0, 2, 2, 5], [3, 6], [2, 4]])
def test_split_indices(bench, device, indices):
    # Index lists give uneven parts (empty where indices repeat or reach the end).
    x = rand_default(np.random.default_rng(1), (6, 2), np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), indices)
    _check(parts, np.split(x, indices))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32, np.uint8, np.bool_])
def test_split_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(2), (4, 6), dtype)
    parts = bench(jnp.split, jax.device_put(x, device), 3, 1)
    _check(parts, np.split(x, 3, 1))


def test_split_large(bench, device):
    x = rand_default(np.random.default_rng(3), (1024, 1024), np.float32)
    parts = bench(jnp.split, jax.device_put(x, device), 8, 0)
    _check(parts, np.split(x, 8, 0))


# testSplitGrad: the input's gradient is the pieces' cotangents joined back along the axis, to order 2, for equal
# and uneven pieces, in the floating dtypes a device trains in; against the CPU's float64 gradient.
@pytest.mark.parametrize("shape,sections,axis", [((4,), 2, 0), ((3, 4), [1], 0), ((2, 3, 4), [1, 3], 2)])
@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_split_backward(backward, device, dtype, shape, sections, axis):
    x = jax.device_put(rand_default(np.random.default_rng(4), shape, dtype), device)
    fn = lambda a: jnp.split(a, sections, axis)  # noqa: E731
    grads = backward(fn, x)
    check_gradients(grads, fn, (x,), order=2)
