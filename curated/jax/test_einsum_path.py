"""jax.numpy.einsum_path: cases adapted from tests/lax_numpy_einsum_test.py (EinsumTest.test_einsum_path: the examples of NumPy's einsum_path docstring, with the "greedy" optimizer; test_einsum_path_optimization_modes for the other optimizers) and NumPy's own einsum_path semantics. UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

einsum_path returns a Python path and a report, not arrays, so the harness times it eagerly."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.einsum_path", decile=40, top20=False,
                                  backward="returns a contraction path and a report (Python objects): nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "tests/lax_numpy_einsum_test.py::EinsumTest::test_einsum_path": [
        "test_einsum_path_greedy", "test_einsum_path_report", "test_einsum_path_docstring_big"],
    "tests/lax_numpy_einsum_test.py::EinsumTest::test_einsum_path_optimization_modes": [
        "test_einsum_path_other_optimizers"],
}


def _operands(device, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    host = [rng.random(s).astype(np.float32) for s in shapes]
    return host, [jax.device_put(h, device) for h in host]


def _check_path(path, subscripts, host, optimize="greedy"):
    """The contraction path is a list of operand-index tuples that contracts all operands to one;
    for these examples it matches NumPy's greedy path (NumPy prefixes it with 'einsum_path')."""
    assert isinstance(path, list) and all(isinstance(step, tuple) for step in path)
    remaining = len(host)
    for step in path:
        assert all(0 <= i < remaining for i in step) and len(set(step)) == len(step)
        remaining = remaining - len(step) + 1
    assert remaining == 1
    np_path, _ = np.einsum_path(subscripts, *host, optimize=optimize)
    assert [tuple(s) for s in path] == [tuple(s) for s in np_path[1:]]


def _check_contraction(path, subscripts, host, devs):
    # Following the path gives the same result as the plain contraction.
    out = jnp.einsum(subscripts, *devs, optimize=path)
    np.testing.assert_allclose(np.asarray(out), np.einsum(subscripts, *host), rtol=1e-5, atol=1e-5)


# test_einsum_path's docstring example and other chains; greedy paths are deterministic.
@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk,kl->il", [(2, 2), (2, 5), (5, 2)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk,kl,lm->im", [(10, 3), (3, 20), (20, 4), (4, 6)]),
    ("i,i->", [(7,), (7,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
])
def test_einsum_path_greedy(bench, device, subscripts, shapes):
    host, devs = _operands(device, *shapes)
    path, info = bench(jnp.einsum_path, subscripts, *devs, optimize="greedy")
    _check_path(path, subscripts, host)
    assert isinstance(str(info), str)
    _check_contraction(path, subscripts, host, devs)


def test_einsum_path_report(bench, device):
    # The second result describes the contraction; its text names the full contraction.
    host, devs = _operands(device, (2, 2), (2, 5), (5, 2), seed=1)
    path, info = bench(jnp.einsum_path, "ij,jk,kl->il", *devs, optimize="greedy")
    text = str(info)
    assert "ij,jk,kl->il" in text
    _check_path(path, "ij,jk,kl->il", host)


def test_einsum_path_docstring_big(bench, device):
    # The larger docstring example: a 4-index tensor contracted with four matrices.
    host, devs = _operands(device, (10, 10), (10, 10), (10, 10, 10, 10), (10, 10), (10, 10), seed=2)
    c, _, i, _, _ = devs
    subscripts = "ea,fb,abcd,gc,hd->efgh"
    path, _ = bench(jnp.einsum_path, subscripts, c, c, i, c, c, optimize="greedy")
    hc, _, hi, _, _ = host
    _check_path(path, subscripts, [hc, hc, hi, hc, hc])
    _check_contraction(path, subscripts, [hc, hc, hi, hc, hc], [c, c, i, c, c])


@pytest.mark.parametrize("optimize", ["optimal", True])
def test_einsum_path_other_optimizers(bench, device, optimize):
    # Other strategies still give a valid path that reproduces the contraction.
    host, devs = _operands(device, (4, 6), (6, 8), (8, 3), seed=3)
    path, _ = bench(jnp.einsum_path, "ij,jk,kl->il", *devs, optimize=optimize)
    remaining = 3
    for step in path:
        remaining = remaining - len(step) + 1
    assert remaining == 1
    _check_contraction(path, "ij,jk,kl->il", host, devs)
