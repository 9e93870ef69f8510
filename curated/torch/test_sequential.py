"""torch.nn.Sequential: cases adapted from pytorch/pytorch test/test_nn.py (test_Sequential_getitem, test_Sequential_setitem_named, test_add_module / OrderedDict construction, test_Sequential_forward-style chains of Linear and activations) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_Sequential: an empty container acts as the identity), as test/test_modules.py runs module inputs (TestModule's test_forward, and test_grad and test_gradgrad: the gradients of the input and of every child's parameters through the chain); UPSTREAM_TESTS below maps each to the cases here.

Two kinds of timed call: the forward of a Sequential (the chain's output is checked against the
same chain computed in float64 NumPy, with assert_close's defaults for the dtype) and the
container's own construction and slicing (checked for order, names and identity of the children).
"""
from collections import OrderedDict

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, init_uniform, np_linear, randn
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Sequential", decile=100, top20=True)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_Sequential_getitem": [
        "test_sequential_construct_positional", "test_sequential_getitem_slice"],
    "test/test_nn.py::TestNN::test_Sequential_setitem_named": ["test_sequential_construct_ordered_dict"],
    "test/test_nn.py::TestNN::test_add_module": ["test_sequential_forward_ordered_dict_nested"],
    "test/test_modules.py::TestModule::test_forward": [
        "test_sequential_forward_mlp", "test_sequential_forward_empty", "test_sequential_forward_large"],
    "test/test_modules.py::TestModule::test_grad": ["test_sequential_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_sequential_backward"],
}


def _linear(in_f, out_f, rng, device, dtype):
    return init_uniform(nn.Linear(in_f, out_f).to(device=device, dtype=dtype), rng)


def _np_forward(modules, x):
    """The chain in float64 NumPy, for the module kinds used here."""
    for m in modules:
        if isinstance(m, nn.Linear):
            x = np_linear(m, x)
        elif isinstance(m, nn.ReLU):
            x = np.maximum(x, 0)
        elif isinstance(m, nn.Tanh):
            x = np.tanh(x)
        elif isinstance(m, nn.Sigmoid):
            x = 1 / (1 + np.exp(-x))
        elif isinstance(m, nn.Sequential):
            x = _np_forward(list(m), x)
        elif isinstance(m, nn.Flatten):
            x = x.reshape(x.shape[0], -1)
        else:
            raise AssertionError(f"no reference for {type(m).__name__}")
    return x


def _check_forward(result, seq, x):
    check_close(result, _np_forward(list(seq), host64(x)), x.dtype)


# An MLP: Linear(10, 20) - ReLU - Linear(20, 5) on a (4, 10) batch, and a no-batch (10,) input.
@pytest.mark.parametrize("input_shape", [(4, 10), (10,), (2, 3, 10)], ids=["batch", "no_batch_dim", "extra_dims"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_sequential_forward_mlp(bench, device, dtype, input_shape):
    rng = np.random.default_rng(0)
    seq = nn.Sequential(_linear(10, 20, rng, device, dtype), nn.ReLU(), _linear(20, 5, rng, device, dtype))
    x = randn(input_shape, device, dtype, 1)
    result = bench(seq, x)
    _check_forward(result, seq, x)


# Named children from an OrderedDict, a nested Sequential and a Flatten in front.
def test_sequential_forward_ordered_dict_nested(bench, device):
    rng = np.random.default_rng(2)
    dtype = torch.float64
    inner = nn.Sequential(_linear(12, 8, rng, device, dtype), nn.Tanh())
    seq = nn.Sequential(OrderedDict([("flatten", nn.Flatten()), ("block", inner),
                                     ("head", _linear(8, 3, rng, device, dtype)), ("out", nn.Sigmoid())]))
    x = randn((5, 3, 4), device, dtype, 3)
    result = bench(seq, x)
    _check_forward(result, seq, x)
    assert [name for name, _ in seq.named_children()] == ["flatten", "block", "head", "out"]


# module_inputs_torch_nn_Sequential: an empty Sequential returns its input itself.
@pytest.mark.parametrize("shape", [(3,), (2, 4)], ids=str)
def test_sequential_forward_empty(bench, device, shape):
    seq = nn.Sequential()
    x = randn(shape, device, torch.float32, 4)
    result = bench(seq, x)
    assert result is x


# A larger MLP, to time a realistic chain.
def test_sequential_forward_large(bench, device):
    rng = np.random.default_rng(5)
    dtype = torch.float32
    seq = nn.Sequential(_linear(256, 512, rng, device, dtype), nn.ReLU(), _linear(512, 512, rng, device, dtype),
                        nn.Tanh(), _linear(512, 10, rng, device, dtype))
    x = randn((128, 256), device, dtype, 6)
    result = bench(seq, x)
    _check_forward(result, seq, x)


# Construction from positional modules: children named "0", "1", ... in order (test_Sequential_getitem's setup).
def test_sequential_construct_positional(bench, device):
    rng = np.random.default_rng(7)
    l1, l2, l3, l4 = (_linear(2, 3, rng, device, torch.float32), _linear(3, 4, rng, device, torch.float32),
                      _linear(4, 5, rng, device, torch.float32), _linear(5, 6, rng, device, torch.float32))
    seq = bench(nn.Sequential, l1, l2, l3, l4)
    assert isinstance(seq, nn.Sequential) and len(seq) == 4
    assert list(seq) == [l1, l2, l3, l4]
    assert [name for name, _ in seq.named_children()] == ["0", "1", "2", "3"]
    assert seq[0] is l1 and seq[-1] is l4
    assert len(list(seq.parameters())) == 8


# Construction from an OrderedDict keeps the given names (test_Sequential_setitem_named).
def test_sequential_construct_ordered_dict(bench, device):
    modules = OrderedDict([("linear1", nn.Linear(2, 3)), ("relu", nn.ReLU()), ("linear2", nn.Linear(3, 1))])
    for m in modules.values():
        m.to(device)
    seq = bench(nn.Sequential, modules)
    assert list(seq._modules) == ["linear1", "relu", "linear2"]
    assert seq.linear1 is modules["linear1"] and seq[1] is modules["relu"]


# test_Sequential_getitem: slicing gives a new Sequential over the same modules.
@pytest.mark.parametrize("index", [slice(1, None), slice(1, 3), slice(None, None, 2), slice(None, -1)],
                         ids=["1:", "1:3", "::2", ":-1"])
def test_sequential_getitem_slice(bench, device, index):
    modules = [nn.Linear(2, 2).to(device) for _ in range(4)]
    seq = nn.Sequential(*modules)
    result = bench(seq.__getitem__, index)
    assert isinstance(result, nn.Sequential)
    assert list(result) == modules[index]


# test_grad / test_gradgrad: the gradients of the input and of both Linear layers' weights and biases through
# Linear - Tanh - Linear (tanh: a second derivative that is not zero), against the CPU's float64 ones, with
# gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_sequential_backward(backward, device, dtype):
    rng = np.random.default_rng(8)
    seq = nn.Sequential(_linear(5, 6, rng, device, dtype), nn.Tanh(), _linear(6, 3, rng, device, dtype))
    x = randn((4, 5), device, dtype, 9, requires_grad=True)
    grads = backward(seq, x)
    assert len(grads) == 5
    check_gradients(grads, seq, (x,), second_order=True, **({"rtol": 1e-5} if dtype == torch.float32 else {}))
