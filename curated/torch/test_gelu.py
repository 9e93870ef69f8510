"""torch.nn.GELU: cases adapted from pytorch/pytorch test/test_nn.py (test_gelu: n x m inputs, contiguous and transposed, float/double/bfloat16 against X * Phi(X), bfloat16 at 1e-2) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_GELU: approximate 'none' and 'tanh', 0-d and no-batch inputs, as test/test_modules.py runs them, gradients included: TestModule's test_forward, test_grad, test_gradgrad); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the module's forward. The reference is computed in float64 NumPy: the exact form
0.5 * x * (1 + erf(x / sqrt(2))) and the tanh approximation of the module's docs.
"""
import math

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, randn
from _transformer_reference import np_gelu

pytestmark = pytest.mark.function("torch.nn.GELU", decile=50, top20=False)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_gelu": ["test_gelu_n_by_m", "test_gelu_large"],
    "test/test_modules.py::TestModule::test_forward": ["test_gelu_module_inputs", "test_gelu_special_values"],
    "test/test_modules.py::TestModule::test_grad": ["test_gelu_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_gelu_backward"],
}

def _gelu_ref(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return np_gelu(x)


def _check(result, x, approximate):
    check_close(result, _gelu_ref(host64(x), approximate), x.dtype, bfloat16_tol=(1e-2, 1e-2))


# test_gelu: n x m inputs in float, double and bfloat16, contiguous and not (a transposed view).
@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("shape", [(1, 1), (5, 7), (9, 3)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_n_by_m(bench, device, approximate, dtype, shape, contiguous):
    x = randn(shape if contiguous else shape[::-1], device, dtype, shape[0] * 10 + shape[1], scale=3.0)
    if not contiguous:
        x = x.t()
        assert not x.is_contiguous() or 1 in shape
    module = torch.nn.GELU(approximate=approximate)
    result = bench(module, x)
    _check(result, x, approximate)


# module_inputs_torch_nn_GELU: a 0-d input and a no-batch-dim input, both approximations.
@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)], ids=["scalar", "no_batch_dim", "3d"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_module_inputs(bench, device, approximate, shape):
    x = randn(shape, device, torch.float64, 7, scale=3.0)
    result = bench(torch.nn.GELU(approximate=approximate), x)
    _check(result, x, approximate)


# Special values: GELU(0) = 0, NaN stays NaN, far tails saturate to 0 and to x. (Infinities are left
# out: for the exact form inf * Phi(inf) and -inf * Phi(-inf) give NaN or inf depending on the kernel.)
def test_gelu_special_values(bench, device):
    x = torch.tensor([0.0, -0.0, float("nan"), -40.0, 40.0, -1e4, 1e4], device=device)
    result = bench(torch.nn.GELU(), x)
    got = result.cpu()
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, torch.tensor([0.0, 0.0, float("nan"), 0.0, 40.0, 0.0, 1e4]),
                               equal_nan=True)


# A larger activation map than upstream's.
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_large(bench, device, approximate):
    x = randn((256, 1024), device, torch.float32, 11, scale=3.0)
    result = bench(torch.nn.GELU(approximate=approximate), x)
    _check(result, x, approximate)


# test_grad / test_gradgrad: the input's gradient, the cotangent times GELU's derivative (exact or tanh form),
# against the CPU's float64 one, with gradcheck and gradgradcheck on the CPU. Upstream checks float32 and float64; a
# device trains in bfloat16 too, at test_gelu's bfloat16 tolerance of 1e-2.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=ids)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward(backward, device, approximate, dtype):
    x = randn((4, 5), device, dtype, 12, scale=3.0, requires_grad=True)
    module = torch.nn.GELU(approximate=approximate)
    grads = backward(module, x)
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if dtype == torch.bfloat16 else {}
    check_gradients(grads, module, (x,), second_order=True, **tolerance)
