"""torch.argsort: cases adapted from pytorch/pytorch test/test_sort_and_select.py (test_sort, test_stable_sort_against_numpy, test_msort); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Ties make the index order of equal keys implementation-defined (`stable=` only exists from
PyTorch 1.13 on, so it is not used), hence every case checks that the indices are a permutation
along `dim` and that gathering with them yields NumPy's sorted values exactly.
"""
import numpy as np
import pytest
import torch
from _support import host, ids, randn, to_device

pytestmark = pytest.mark.function("torch.argsort", decile=90, top20=False,
                                  backward="integer output (indices): not differentiable")

UPSTREAM_TESTS = {
    "test/test_sort_and_select.py::TestSortAndSelect::test_sort": [
        "test_argsort_random_rows", "test_argsort_duplicate_keys", "test_argsort_nan"],
    "test/test_sort_and_select.py::TestSortAndSelect::test_stable_sort_against_numpy": [
        "test_argsort_binary_dtypes", "test_argsort_3d_dims"],
    "test/test_sort_and_select.py::TestSortAndSelect::test_msort": ["test_argsort_shapes"],
    "test/test_ops_gradients.py::TestBwdGradients::test_fn_grad": "argsort's OpInfo says supports_autograd=False: "
                                                                  "integer indices have no gradient",
}


def _check_argsort(x, idx, dim=-1, descending=False):
    """idx must permute x along dim into NumPy's (ascending, NaN last) order, or its reverse."""
    assert idx.dtype == torch.int64
    assert tuple(idx.shape) == tuple(x.shape)
    x_np, idx_np = host(x), idx.cpu().numpy()
    n = x_np.shape[dim] if x_np.ndim else 1
    arange_shape = [1] * x_np.ndim
    if x_np.ndim:
        arange_shape[dim] = n
        expected_perm = np.broadcast_to(np.arange(n).reshape(arange_shape), x_np.shape)
        np.testing.assert_array_equal(np.sort(idx_np, axis=dim), expected_perm)
        got = np.take_along_axis(x_np, idx_np, axis=dim)
        want = np.sort(x_np, axis=dim, kind="stable")
        if descending:
            # NumPy puts NaN last in ascending order; torch puts it first when descending.
            want = np.flip(want, axis=dim)
        np.testing.assert_array_equal(got, want)
    else:
        assert int(idx_np) == 0


# test_sort: rows of 4 and 2049 (CUDA switches algorithm above 2048), both directions.
@pytest.mark.parametrize("size", [4, 2049])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_random_rows(bench, device, size, descending):
    x = to_device(np.random.default_rng(0).random((4, size), dtype=np.float32), device, torch.float32)
    idx = bench(torch.argsort, x, -1, descending)
    _check_argsort(x, idx, -1, descending)


# test_sort: "proper sorting with duplicate keys" (floor(rand * 10)).
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_duplicate_keys(bench, device, descending):
    keys = np.floor(np.random.default_rng(1).random((4, 2049)) * 10).astype(np.float32)
    x = to_device(keys, device, torch.float32)
    idx = bench(torch.argsort, x, dim=1, descending=descending)
    _check_argsort(x, idx, 1, descending)


# test_sort: "sorting with NaNs" (NaN sorts last ascending, first descending).
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_nan(bench, device, descending):
    values = np.random.default_rng(2).random((4, 2049), dtype=np.float32)
    values[1, 2] = np.nan
    values[3, 0] = np.nan
    x = to_device(values, device, torch.float32)
    idx = bench(torch.argsort, x, dim=-1, descending=descending)
    _check_argsort(x, idx, -1, descending)


# test_stable_sort_against_numpy: binary strings [0, 1] * 1025 for every real dtype.
@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
     torch.int16, torch.int8, torch.uint8],
    ids=ids,
)
def test_argsort_binary_dtypes(bench, device, dtype):
    x = to_device(np.tile(np.array([0, 1], dtype=np.float32), 1025), device, dtype)
    idx = bench(torch.argsort, x)
    _check_argsort(x, idx)


# test_stable_sort_against_numpy: (randn * size) over (10, 10, 10), sorted along each dim,
# with inf / -inf / NaN fill values for the floating dtypes.
@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64], ids=ids)
def test_argsort_3d_dims(bench, device, dim, dtype):
    rng = np.random.default_rng(3)
    values = (rng.standard_normal((10, 10, 10)) * 10).astype(np.float32)
    if dtype.is_floating_point:
        values[rng.random(values.shape) < 0.05] = np.inf
        values[rng.random(values.shape) < 0.05] = -np.inf
        values[rng.random(values.shape) < 0.05] = np.nan
    x = to_device(values, device, dtype)
    idx = bench(torch.argsort, x, dim=dim)
    _check_argsort(x, idx, dim)


# test_msort shapes: empty, 1-D, a singleton batch dim, and a 3-D block.
@pytest.mark.parametrize("shape", [(0,), (20,), (1, 20), (30, 30), (10, 20, 30)], ids=str)
def test_argsort_shapes(bench, device, shape):
    values = np.random.default_rng(4).integers(-9, 9, size=shape).astype(np.float32)
    x = to_device(values, device, torch.float32)
    idx = bench(torch.argsort, x, dim=0)
    _check_argsort(x, idx, 0)


# Larger input: a 1-D sort of 2**16 keys.
def test_argsort_large_1d(bench, device):
    x = randn(1 << 16, device, torch.float32, 5)
    idx = bench(torch.argsort, x)
    _check_argsort(x, idx)
