"""torch.randperm: cases adapted from pytorch/pytorch test/test_tensor_creation_ops.py (TestRandomTensorCreation.test_randperm: n in 5, 100, 50000, 100000 with dtypes int64, float16 (n <= 2049), float32 and bfloat16 (n <= 256), the result sorted equals arange(n), the same seed gives the same permutation, the out= variant, the default dtype int64, randperm(0) empty; the errors for an n too large for the dtype, e.g. uint8 2**8 + 1 and float16 2**11 + 2; test_randperm_device_compatibility). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is torch.randperm(n, dtype=..., device=device) (or with out=). The result must be a
1-d tensor of n elements of the requested dtype on the cell's device that, sorted, equals
arange(n) exactly, i.e. a permutation. Where the case seeds the global generator first, the
result must also equal the permutation drawn again after re-seeding with the same seed (bench
returns its first call's result, which follows the seeding).
"""
import numpy as np
import pytest
import torch
from _support import ids

pytestmark = pytest.mark.function("torch.randperm", decile=80, top20=False,
                                  backward="integer output (a random permutation of indices), made from Python "
                                           "numbers: not differentiable")

UPSTREAM_TESTS = {
    "test/test_tensor_creation_ops.py::TestRandomTensorCreation::test_randperm": ["test_randperm_dtypes",
        "test_randperm_seeded", "test_randperm_out", "test_randperm_default_dtype", "test_randperm_trivial",
        "test_randperm_dtype_limit"],
    "test/test_tensor_creation_ops.py::TestRandomTensorCreation::test_randperm_device_compatibility":
        "mixes a CUDA generator with CPU output and the reverse: an error check across two devices, which one cell "
        "does not have",
}


def _check_perm(result, n, dtype, device):
    assert result.dtype == dtype and tuple(result.shape) == (n,) and result.device == device
    values = result.cpu().double().numpy()
    np.testing.assert_array_equal(np.sort(values), np.arange(n, dtype=np.float64))


def _device(device):
    return torch.empty(0, device=device).device  # a normalised torch.device (index filled in)


# test_randperm: n of 5, 100, 50000, 100000 in int64, float16 (n <= 2049), float32, bfloat16 (n <= 256).
_CASES = [(n, dt) for n in (5, 100, 50000, 100000)
          for dt in (torch.int64, torch.float16, torch.float32, torch.bfloat16)
          if not (dt == torch.float16 and n > 2049) and not (dt == torch.bfloat16 and n > 256)]


@pytest.mark.parametrize("n,dtype", _CASES, ids=["%d-%s" % (n, ids(d)) for n, d in _CASES])
def test_randperm_dtypes(bench, device, n, dtype):
    result = bench(torch.randperm, n, dtype=dtype, device=device)
    _check_perm(result, n, dtype, _device(device))


# test_randperm: the same seed gives the same permutation.
@pytest.mark.parametrize("n", [10, 1000, 50000])
def test_randperm_seeded(bench, device, n):
    torch.manual_seed(1234)
    result = bench(torch.randperm, n, device=device)
    torch.manual_seed(1234)
    again = torch.randperm(n, device=device)
    _check_perm(result, n, torch.int64, _device(device))
    assert torch.equal(result, again)


# test_randperm: the out= variant resizes and fills the given tensor; the default dtype is int64.
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float64], ids=ids)
def test_randperm_out(bench, device, dtype):
    out = torch.empty(0, dtype=dtype, device=device)
    result = bench(torch.randperm, 1000, out=out)
    assert result.data_ptr() == out.data_ptr()
    _check_perm(result, 1000, dtype, _device(device))


def test_randperm_default_dtype(bench, device):
    result = bench(torch.randperm, 10000, device=device)
    _check_perm(result, 10000, torch.int64, _device(device))
    assert not torch.equal(result.cpu(), torch.arange(10000))  # shuffled (probability 1 - 1/10000!)


# test_randperm: randperm(0) and randperm(1).
@pytest.mark.parametrize("n", [0, 1])
def test_randperm_trivial(bench, device, n):
    result = bench(torch.randperm, n, device=device)
    _check_perm(result, n, torch.int64, _device(device))


# test_randperm: the largest n a dtype can hold works; one more raises.
@pytest.mark.parametrize("dtype,small_n,large_n", [(torch.uint8, 2 ** 8, 2 ** 8 + 1),
                                                   (torch.float16, 2 ** 11 + 1, 2 ** 11 + 2)],
                         ids=["uint8", "float16"])
def test_randperm_dtype_limit(bench, device, dtype, small_n, large_n):
    result = bench(torch.randperm, small_n, dtype=dtype, device=device)
    _check_perm(result, small_n, dtype, _device(device))
    with pytest.raises(RuntimeError):
        torch.randperm(large_n, dtype=dtype, device=device)
