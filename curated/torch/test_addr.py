"""torch.addr: cases adapted from pytorch/pytorch test/test_linalg.py (_test_addr_vs_numpy, test_addr_float_and_complex, test_addr_integral, test_addr_bool, test_outer_ger_addr_legacy_tests) and test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over addr's OpInfo, whose sample_inputs_addr broadcasts a 0-d M); UPSTREAM_TESTS below maps each to the cases here.

Inputs follow upstream: a 50x50 matrix and two 50-vectors drawn from [-2, 2), also a transposed
matrix, a zero-strided vector, a broadcast 0-d matrix, beta == 0 with inf/NaN in the matrix (they
must not reach the output) and empty shapes. As upstream, the NumPy reference beta * M + alpha * outer(a, b) is
computed in the input dtype (bfloat16 in float64, integers in int64 then wrapped back); tolerances
are assert_close's defaults for the dtype except bfloat16, where upstream uses
precisionOverride({torch.bfloat16: 1e-1}).
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host, ids, random_tensor

pytestmark = pytest.mark.function("torch.addr", decile=10, top20=False)

UPSTREAM_TESTS = {
    "test/test_linalg.py::TestLinalg::test_addr_float_and_complex": [
        "test_addr_float_and_complex", "test_addr_complex_scalars", "test_addr_layouts", "test_addr_large"],
    "test/test_linalg.py::TestLinalg::test_addr_integral": ["test_addr_integral"],
    "test/test_linalg.py::TestLinalg::test_addr_bool": ["test_addr_bool"],
    "test/test_linalg.py::TestLinalg::test_outer_ger_addr_legacy_tests": ["test_addr_empty"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_addr_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_addr_backward"],
}

FLOAT_AND_COMPLEX = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64]
INTEGRAL = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]


def _sample(shape, dtype, device, seed):
    """Like upstream make_tensor(low=-2, high=2)."""
    return random_tensor(shape, dtype, device, seed, ints=(-2, 2), reals=(-2, 2))


def _operands(n, dtype, device, seed):
    """M (n x n), a and b (n,), from seeds seed, seed + 1 and seed + 2."""
    return (_sample((n, n), dtype, device, seed), _sample((n,), dtype, device, seed + 1),
            _sample((n,), dtype, device, seed + 2))


def _reference(m, a, b, beta, alpha):
    # Like upstream, only bfloat16 (which NumPy lacks) is widened, to float64.
    m_np, a_np, b_np = (host(t, widen=torch.float64) for t in (m, a, b))
    if m_np.dtype.kind in "iu":
        m_np, a_np, b_np = m_np.astype(np.int64), a_np.astype(np.int64), b_np.astype(np.int64)
    outer = np.outer(a_np, b_np)
    if beta == 0:  # beta == 0 ignores M entirely, inf and NaN included
        return alpha * outer + np.zeros(np.broadcast(m_np, outer).shape, outer.dtype)
    return beta * m_np + alpha * outer


def _assert_addr(result, m, a, b, beta, alpha):
    check_close(result, _reference(m, a, b, beta, alpha), m.dtype, bfloat16_tol=(1.6e-2, 1e-1))


@pytest.mark.parametrize("beta, alpha", [(0.5, 2), (0.0, 2)], ids=["beta0.5", "beta0"])
@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=ids)
def test_addr_float_and_complex(bench, device, dtype, beta, alpha):
    m, a, b = _operands(50, dtype, device, 0)
    if beta == 0:
        # upstream: NaN and inf in M must not propagate when beta == 0
        m[0, 10] = m[10, 10] = m[20, 20] = float("inf")
        m[1, 10] = m[11, 10] = m[21, 20] = float("nan")
    result = bench(torch.addr, m, a, b, beta=beta, alpha=alpha)
    _assert_addr(result, m, a, b, beta, alpha)


def test_addr_complex_scalars(bench, device):
    dtype = torch.complex64
    m, a, b = _operands(50, dtype, device, 3)
    beta, alpha = 0.1j, 0.2 - 0.2j
    result = bench(torch.addr, m, a, b, beta=beta, alpha=alpha)
    _assert_addr(result, m, a, b, beta, alpha)


@pytest.mark.parametrize("beta, alpha", [(2, 2), (0, 2)], ids=["beta2", "beta0"])
@pytest.mark.parametrize("dtype", INTEGRAL, ids=ids)
def test_addr_integral(bench, device, dtype, beta, alpha):
    m, a, b = _operands(50, dtype, device, 6)
    result = bench(torch.addr, m, a, b, beta=beta, alpha=alpha)
    # Wrap-around of the small integer types is part of the contract: compare after the cast.
    check_close(result, _reference(m, a, b, beta, alpha), dtype, rtol=0, atol=0)


@pytest.mark.parametrize("beta, alpha", [(True, True), (True, False), (False, True), (False, False)],
                         ids=["TT", "TF", "FT", "FF"])
def test_addr_bool(bench, device, beta, alpha):
    rng = np.random.default_rng(9)
    m = torch.from_numpy(rng.random((50, 50)) < 0.5).to(device)
    a = torch.from_numpy(rng.random(50) < 0.5).to(device)
    b = torch.from_numpy(rng.random(50) < 0.5).to(device)
    result = bench(torch.addr, m, a, b, beta=beta, alpha=alpha)
    m_np, outer = m.cpu().numpy(), np.outer(a.cpu().numpy(), b.cpu().numpy())
    expected = (beta & m_np) | (alpha & outer)
    assert result.dtype == torch.bool
    np.testing.assert_array_equal(result.cpu().numpy(), expected)


# _test_addr_vs_numpy layouts: transposed M, zero-strided vector, 0-d M broadcast to the outer shape.
@pytest.mark.parametrize("layout", ["transposed_m", "zero_strided_a", "scalar_m"])
def test_addr_layouts(bench, device, layout):
    dtype = torch.float32
    m, a, b = _operands(50, dtype, device, 10)
    if layout == "transposed_m":
        m = m.t()
    elif layout == "zero_strided_a":
        a = _sample((1,), dtype, device, 13).expand(50)
    else:
        m = torch.tensor(1.0, device=device, dtype=dtype)
    result = bench(torch.addr, m, a, b, beta=1, alpha=1)
    assert tuple(result.shape) == (50, 50)
    _assert_addr(result, m, a, b, 1, 1)


# test_outer_ger_addr_legacy_tests: empty vectors give empty results of the outer shape.
@pytest.mark.parametrize("size", [(0, 0), (0, 5), (5, 0)], ids=str)
def test_addr_empty(bench, device, size):
    m = torch.zeros(size, device=device)
    a = _sample((size[0],), torch.float32, device, 14)
    b = _sample((size[1],), torch.float32, device, 15)
    result = bench(torch.addr, m, a, b)
    assert tuple(result.shape) == size
    _assert_addr(result, m, a, b, 1, 1)


# A larger outer product than upstream's 50x50.
def test_addr_large(bench, device):
    dtype = torch.float32
    m, a, b = _operands(1024, dtype, device, 16)
    result = bench(torch.addr, m, a, b, beta=0.5, alpha=2)
    _assert_addr(result, m, a, b, 0.5, 2)


# test_fn_grad / test_fn_gradgrad: the gradients of M (full, or 0-d and broadcast as in sample_inputs_addr), a and b
# against the CPU's float64 ones, with gradcheck and gradgradcheck on the CPU. Upstream checks float64 and complex128;
# a device trains in float32 and bfloat16 too (bfloat16 at upstream's precisionOverride of 1e-1).
@pytest.mark.parametrize("m_shape", [(4, 5), ()], ids=["matrix", "scalar_m"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_addr_backward(backward, device, dtype, m_shape):
    m, a, b = (_sample(shape, dtype, device, seed).requires_grad_(True)
               for seed, shape in ((17, m_shape), (18, (4,)), (19, (5,))))
    kwargs = {"beta": 0.5, "alpha": 2}
    grads = backward(torch.addr, m, a, b, **kwargs)
    tolerance = {"rtol": 1.6e-2, "atol": 1e-1} if dtype == torch.bfloat16 else {}
    check_gradients(grads, torch.addr, (m, a, b), kwargs, second_order=True, **tolerance)
