"""torch.nn.Linear: cases adapted from pytorch/pytorch torch/testing/_internal/common_modules.py (module_inputs_torch_nn_Linear, used by test/test_modules.py test_forward) and test/test_nn.py (test_linear_empty, and TestNNDeviceType.test_linear_autograd: gradients of a 4 -> 4 layer whose weight is strided, sparse COO or sparse CSR); the gradients of test/test_modules.py's test_grad and test_gradgrad over the same module inputs; UPSTREAM_TESTS below maps each to the cases here.

The module is built and its parameters are set from NumPy before timing; the timed call is the
module's forward. The reference is input @ W.T + b in float64 NumPy, compared with assert_close's
defaults for the module dtype (floating_types(), ModuleInfo's default dtypes).
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients, functional_call
from _support import SPARSE, check_close, host64, ids, init_uniform, np_linear, uniform

pytestmark = pytest.mark.function("torch.nn.Linear", decile=100, top20=True)

UPSTREAM_TESTS = {
    "test/test_modules.py::TestModule::test_forward": [
        "test_linear_module_inputs", "test_linear_batch_dims", "test_linear_large"],
    "test/test_modules.py::TestModule::test_grad": ["test_linear_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_linear_backward"],
    "test/test_nn.py::TestNN::test_linear_empty": ["test_linear_empty"],
    "test/test_nn.py::TestNNDeviceType::test_linear_autograd": [
        "test_linear_autograd", "test_linear_sparse_weight", "test_linear_sparse_weight_backward"],
}

# module_inputs_torch_nn_Linear: "default" (10 -> 8, input 4x10), "no_bias", "no_batch_dim" (3 -> 5, input 3).
_MODULE_INPUTS = pytest.mark.parametrize(
    "in_features, out_features, bias, input_shape",
    [(10, 8, True, (4, 10)), (10, 8, False, (4, 10)), (3, 5, True, (3,))],
    ids=["default", "no_bias", "no_batch_dim"],
)


def _make_linear(in_features, out_features, bias, device, dtype, seed):
    """Linear with deterministic parameters (U(-1/sqrt(in), 1/sqrt(in)) like the default init)."""
    module = torch.nn.Linear(in_features, out_features, bias=bias).to(device=device, dtype=dtype)
    return init_uniform(module, np.random.default_rng(seed))


def _make_input(shape, device, dtype, seed, requires_grad=False):
    # make_tensor's default range for floating dtypes is [-9, 9).
    return uniform(shape, device, dtype, seed, -9, 9, requires_grad)


def _assert_forward(result, module, x):
    check_close(result, np_linear(module, host64(x)), x.dtype)


@_MODULE_INPUTS
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_linear_module_inputs(bench, device, dtype, in_features, out_features, bias, input_shape):
    module = _make_linear(in_features, out_features, bias, device, dtype, seed=0)
    x = _make_input(input_shape, device, dtype, seed=1)
    result = bench(module, x)
    assert tuple(result.shape) == tuple(input_shape[:-1]) + (out_features,)
    _assert_forward(result, module, x)


# test_linear_empty: a batch of zero rows gives a (0, 7) output.
def test_linear_empty(bench, device):
    module = _make_linear(7, 7, True, device, torch.float32, seed=2)
    x = torch.empty((0, 7), device=device)
    result = bench(module, x)
    assert tuple(result.shape) == (0, 7)
    _assert_forward(result, module, x)


# Extra leading batch dims are flattened through the matmul.
def test_linear_batch_dims(bench, device):
    module = _make_linear(10, 8, True, device, torch.float32, seed=3)
    x = _make_input((2, 3, 10), device, torch.float32, seed=4)
    result = bench(module, x)
    assert tuple(result.shape) == (2, 3, 8)
    _assert_forward(result, module, x)


# A larger layer than upstream's, to time a realistic GEMM.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_linear_large(bench, device, dtype):
    module = _make_linear(256, 128, True, device, dtype, seed=5)
    x = _make_input((128, 256), device, dtype, seed=6)
    result = bench(module, x)
    _assert_forward(result, module, x)


# test_linear_autograd (strided weight): gradients of a 4 -> 4 layer on a 1-D input.
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
def test_linear_autograd(bench, device, bias):
    dtype = torch.float64
    module = _make_linear(4, 4, bias, device, dtype, seed=7)
    x = _make_input((4,), device, dtype, seed=8, requires_grad=True)
    result = bench(module, x)
    _assert_forward(result, module, x)
    grad_output = np.random.default_rng(9).standard_normal(4)
    result.backward(torch.from_numpy(grad_output).to(device))
    weight = module.weight.detach().cpu().numpy()
    torch.testing.assert_close(x.grad.cpu(), torch.from_numpy(weight.T @ grad_output))
    torch.testing.assert_close(module.weight.grad.cpu(),
                               torch.from_numpy(np.outer(grad_output, x.detach().cpu().numpy())))
    if bias:
        torch.testing.assert_close(module.bias.grad.cpu(), torch.from_numpy(grad_output))


# test_grad / test_gradgrad over module_inputs_torch_nn_Linear: the gradients of the input, the weight and the bias
# against the CPU's float64 ones, with gradcheck and gradgradcheck on the CPU.
@_MODULE_INPUTS
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_linear_backward(backward, device, dtype, in_features, out_features, bias, input_shape):
    module = _make_linear(in_features, out_features, bias, device, dtype, seed=10)
    x = _make_input(input_shape, device, dtype, seed=11, requires_grad=True)
    grads = backward(module, x)
    assert len(grads) == 2 + bias
    check_gradients(grads, module, (x,), second_order=True)


def _sparse_weight_linear(layout, bias, device, seed):
    """test_linear_autograd's 4 -> 4 float64 layer with its weight made a sparse COO or CSR parameter."""
    module = _make_linear(4, 4, bias, device, torch.float64, seed)
    module.weight = torch.nn.Parameter(_sparse_weight(module.weight.detach(), layout))
    return module


def _sparse_weight(weight, layout):
    return weight.to_sparse() if layout == "sparse_coo" else weight.to_sparse_csr()


# test_linear_autograd, sparse weights: the output equals x @ W^T + b with W's dense form.
@pytest.mark.parametrize("layout", SPARSE)
def test_linear_sparse_weight(bench, device, layout):
    module = _sparse_weight_linear(layout, True, device, seed=12)
    x = _make_input((4,), device, torch.float64, seed=13)
    result = bench(module, x)
    expected = host64(x) @ host64(module.weight.to_dense()).T + host64(module.bias)
    check_close(result, expected, torch.float64)


# test_linear_autograd, sparse weights: the gradients of the input, the sparse weight and the bias against the CPU's
# float64 ones (gradcheck with sparse inputs on the CPU). Upstream compares the weight's gradient by value: linear's
# backward returns it strided, whatever the weight's layout. The parameters are passed to the layer's forward as
# arguments (functional_call), so that the harness converts the sparse weight as a tensor for its
# reference (a module holding a sparse parameter does not take Module.to(torch.float64)).
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("layout", SPARSE)
def test_linear_sparse_weight_backward(backward, device, layout, bias):
    module = _make_linear(4, 4, bias, device, torch.float64, seed=14)
    params = {name: p.detach().clone().requires_grad_(True) for name, p in module.named_parameters()}
    params["weight"] = _sparse_weight(params["weight"].detach(), layout).requires_grad_(True)
    x = _make_input((4,), device, torch.float64, seed=15, requires_grad=True)

    def forward(x, params):
        return functional_call(module, params, (x,))

    grads = backward(forward, x, params)
    assert len(grads) == 2 + bias
    check_gradients(grads, forward, (x, params))
