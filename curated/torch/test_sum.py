"""torch.sum: cases adapted from pytorch/pytorch test/test_reductions.py (test_sum_vs_numpy, _test_sum_reduction_vs_numpy, _test_reduction_function_with_numpy, test_sum_integer_upcast, test_sum_out, test_sum_parallel), test/test_ops_gradients.py (test_fn_grad, test_fn_gradgrad over sum's OpInfo) and test/test_sparse.py (TestSparseAny: test_reductions, test_reductions_backward, test_as_sparse_gradcheck on sparse COO and CSR inputs); UPSTREAM_TESTS below maps each to the cases here.

Inputs follow upstream's _generate_input: randn scaled by 30..100 with zeros sprinkled in for
floating dtypes, optionally NaN / inf / -inf ("extremal"); randint(15, 100) for integers.
The NumPy reference sums in float64 (int64 for integers); tolerances are upstream's
_get_relaxed_tolerances_for (float16: atol 0.4, rtol 1e-2; float32: atol 7e-5, rtol 3e-6),
else assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import ids, to_device

pytestmark = pytest.mark.function("torch.sum", decile=100, top20=True)

UPSTREAM_TESTS = {
    "test/test_reductions.py::TestReductions::test_sum_vs_numpy": [
        "test_sum_vs_numpy", "test_sum_keepdim", "test_sum_extremal", "test_sum_empty"],
    "test/test_reductions.py::TestReductions::test_sum_integer_upcast": ["test_sum_integer_upcast"],
    "test/test_reductions.py::TestReductions::test_sum_out": ["test_sum_large_dims", "test_sum_noncontiguous"],
    "test/test_reductions.py::TestReductions::test_sum_parallel": ["test_sum_parallel"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": ["test_sum_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_gradgrad": ["test_sum_backward"],
    "test/test_ops_gradients.py::TestBwdGradients::test_inplace_grad": "sum has no in-place variant (upstream skips it)",
    "test/test_sparse.py::TestSparseAny::test_reductions": ["test_sum_sparse"],
    "test/test_sparse.py::TestSparseAny::test_reductions_backward": ["test_sum_sparse_backward"],
    "test/test_sparse.py::TestSparseAny::test_as_sparse_gradcheck": ["test_sum_sparse_backward"],
    "test/test_sparse.py::TestSparseAny::test_sum_meta": "the meta device computes shapes only: no hardware runs it",
}

TOLERANCES = {torch.float16: (1e-2, 0.4), torch.float32: (3e-6, 7e-5)}


def _generate_input(shape, dtype, device, seed, extremal=False):
    rng = np.random.default_rng(seed)
    if dtype.is_floating_point or dtype.is_complex:
        values = rng.standard_normal(shape) * rng.integers(30, 100)
        if dtype.is_complex:
            values = values + 1j * rng.standard_normal(shape) * rng.integers(30, 100)
        values[rng.standard_normal(shape) > 0.5] = 0
        if extremal:
            values[rng.standard_normal(shape) > 0.5] = np.nan
            values[rng.standard_normal(shape) > 0.5] = np.inf
            values[rng.standard_normal(shape) > 0.5] = -np.inf
    elif dtype == torch.bool:
        values = rng.standard_normal(shape) > 0.5
    else:
        values = rng.integers(15, 100, size=shape)
    return to_device(values, device, dtype)


def _expected(x, dim=None, keepdim=False):
    """float64 / complex128 / int64 NumPy sum of the values actually held on the device."""
    host = x.cpu()
    if host.dtype.is_complex:
        array = host.to(torch.complex128).numpy()
    elif host.dtype.is_floating_point:
        array = host.double().numpy()
    else:
        array = host.numpy().astype(np.int64)
    with np.errstate(invalid="ignore"):  # inf + -inf is NaN, as in torch
        if dim is None:
            return np.asarray(np.sum(array))
        return np.asarray(np.sum(array, axis=dim, keepdims=keepdim))


def _assert_sum(result, expected, dtype):
    got = result.cpu()
    if dtype in TOLERANCES:
        rtol, atol = TOLERANCES[dtype]
        torch.testing.assert_close(got.double(), torch.from_numpy(expected), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        # Reference rounded once to the result dtype, then assert_close's defaults for it.
        torch.testing.assert_close(got, torch.from_numpy(expected).to(got.dtype), equal_nan=True)


VS_NUMPY_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                   torch.int32, torch.int16, torch.int8]


# test_sum_vs_numpy: all dims, one dim, and a tuple of dims over a 3-D input.
@pytest.mark.parametrize("dim", [None, 1, (0, 2)], ids=["all", "dim1", "dims02"])
@pytest.mark.parametrize("dtype", VS_NUMPY_DTYPES, ids=ids)
def test_sum_vs_numpy(bench, device, dtype, dim):
    x = _generate_input((7, 9, 8), dtype, device, seed=0)
    result = bench(torch.sum, x) if dim is None else bench(torch.sum, x, dim)
    # Integers (and bool) accumulate in int64; floating dtypes keep their dtype.
    expected_dtype = dtype if dtype.is_floating_point else torch.int64
    assert result.dtype == expected_dtype
    _assert_sum(result, _expected(x, dim), dtype)


# _test_sum_reduction_vs_numpy(with_keepdim=True).
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64], ids=ids)
def test_sum_keepdim(bench, device, dtype):
    x = _generate_input((6, 5, 10), dtype, device, seed=1)
    result = bench(torch.sum, x, (0, 2), keepdim=True)
    assert tuple(result.shape) == (1, 5, 1)
    _assert_sum(result, _expected(x, (0, 2), keepdim=True), dtype)


# _test_sum_reduction_vs_numpy(with_extremal=True): NaN / inf / -inf propagate like NumPy's.
@pytest.mark.parametrize("dim", [None, 0], ids=["all", "dim0"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=ids)
def test_sum_extremal(bench, device, dtype, dim):
    x = _generate_input((8, 6, 5), dtype, device, seed=2, extremal=True)
    result = bench(torch.sum, x) if dim is None else bench(torch.sum, x, dim)
    _assert_sum(result, _expected(x, dim), dtype)


# test_sum_integer_upcast: integer and bool inputs sum to int64, or to the dtype= given.
@pytest.mark.parametrize(
    "dtype, out_dtype",
    [(torch.bool, None), (torch.uint8, None), (torch.int8, None), (torch.int16, None),
     (torch.int32, None), (torch.int32, torch.int16), (torch.int32, torch.float32),
     (torch.float32, torch.float64), (torch.float64, torch.float32), (torch.float32, torch.complex64)],
    ids=ids,
)
def test_sum_integer_upcast(bench, device, dtype, out_dtype):
    x = _generate_input((5, 5), dtype, device, seed=3)
    if out_dtype is None:
        result = bench(torch.sum, x, 0)
        assert result.dtype == torch.int64
        expected = _expected(x, 0)
    else:
        result = bench(torch.sum, x, 0, dtype=out_dtype)
        assert result.dtype == out_dtype
        expected = _expected(x.to(out_dtype), 0)
    _assert_sum(result, expected, result.dtype)


# Complex inputs (sum's OpInfo covers complex dtypes).
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=ids)
def test_sum_complex(bench, device, dtype):
    x = _generate_input((7, 9, 8), dtype, device, seed=4)
    result = bench(torch.sum, x, 1)
    _assert_sum(result, _expected(x, 1), dtype)


# _test_reduction_function_with_numpy's ndims == 0 input is an empty tensor: sums to 0.
# A (3, 0) input reduced over its empty dim gives zeros.
@pytest.mark.parametrize("shape, dim", [((0,), None), ((3, 0), 1), ((3, 0), 0)], ids=["0", "3x0_dim1", "3x0_dim0"])
def test_sum_empty(bench, device, shape, dim):
    x = torch.empty(shape, device=device)
    result = bench(torch.sum, x) if dim is None else bench(torch.sum, x, dim)
    _assert_sum(result, _expected(x, dim), torch.float32)


# test_sum_out: a 100**3 float64 block reduced over (2, 1), and a non-contiguous input.
def test_sum_large_dims(bench, device):
    x = torch.from_numpy(np.random.default_rng(5).random((100, 100, 100))).to(device)
    result = bench(torch.sum, x, (2, 1))
    _assert_sum(result, _expected(x, (2, 1)), torch.float64)


def test_sum_noncontiguous(bench, device):
    x = _generate_input((40, 30, 20), torch.float32, device, seed=6).permute(2, 0, 1)[:, ::2]
    result = bench(torch.sum, x, 2)
    _assert_sum(result, _expected(x, 2), torch.float32)


# test_sum_parallel: 0/1 float64 values large enough for the parallel path, summed exactly.
@pytest.mark.parametrize("dim", [None, 0, 5, 9], ids=["all", "dim0", "dim5", "dim9"])
def test_sum_parallel(bench, device, dim):
    values = np.round(np.random.default_rng(7).random([4] * 10))
    x = torch.from_numpy(values).to(device)
    result = bench(torch.sum, x) if dim is None else bench(torch.sum, x, dim)
    expected = values.sum() if dim is None else values.sum(dim)
    torch.testing.assert_close(result.cpu(), torch.from_numpy(np.asarray(expected)), rtol=0, atol=0)


# test_fn_grad / test_fn_gradgrad: sum's gradient (the cotangent broadcast back over the reduced dims) against the
# CPU's float64 one, with gradcheck and gradgradcheck on the CPU; upstream checks float64 and complex128, a device
# trains in float32 and bfloat16 too.
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), ((0, 2), True)], ids=["all", "dim1", "dims02_keep"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex64], ids=ids)
def test_sum_backward(backward, device, dtype, dim, keepdim):
    x = _generate_input((4, 5, 3), dtype, device, seed=8).requires_grad_(True)
    kwargs = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    grads = backward(torch.sum, x, **kwargs)
    check_gradients(grads, torch.sum, (x,), kwargs, second_order=True)


def _sparse(layout, dtype, device, seed):
    """A (6, 5) matrix with about half of its entries zero, in the sparse layout (COO or CSR)."""
    values = np.random.default_rng(seed).standard_normal((6, 5))
    values[np.random.default_rng(seed + 1).random((6, 5)) < 0.5] = 0
    dense = to_device(values, device, dtype)
    return dense.to_sparse() if layout == "sparse_coo" else dense.to_sparse_csr()


SPARSE = [pytest.param("sparse_coo", marks=pytest.mark.layout("sparse_coo")),
          pytest.param("sparse_csr", marks=pytest.mark.layout("sparse_csr"))]


# test_reductions: sum of a sparse input equals the sum of its dense form.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("layout", SPARSE)
def test_sum_sparse(bench, device, layout, dtype):
    x = _sparse(layout, dtype, device, seed=9)
    result = bench(torch.sum, x)
    _assert_sum(result, _expected(x.to_dense()), dtype)


# test_reductions_backward / test_as_sparse_gradcheck: the gradient of a sparse input's sum (every element's, as
# upstream's ones * sgn(r)), and gradcheck with sparse inputs on the CPU.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("layout", SPARSE)
def test_sum_sparse_backward(backward, device, layout, dtype):
    x = _sparse(layout, dtype, device, seed=10).requires_grad_(True)
    grads = backward(torch.sum, x)
    check_gradients(grads, torch.sum, (x,))
