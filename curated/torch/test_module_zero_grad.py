"""torch.nn.Module.zero_grad: cases adapted from pytorch/pytorch test/test_nn.py (test_zero_grad: a Linear(5, 5) whose parameters do or do not require grad; after backward the gradients are non-zero, zero_grad clears them, set_to_none=False zeroes them in place and set_to_none=True drops them; parameters without a gradient stay without one). Added from zero_grad's documented behaviour: gradients of several dtypes (which the 2.x implementation zeroes per device and dtype group), and a gradient that is itself part of a graph (backward(create_graph=True)), which zero_grad detaches before zeroing. UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `module.zero_grad(...)`, in place. The harness calls it many times; each check is a
state that the first call reaches and later calls keep: every gradient is None (set_to_none=True),
or is the same tensor as before, now all zeros, detached, with its shape, dtype and device
(set_to_none=False). The default changed from False (PyTorch 1.x) to True (2.0): the default case
accepts either outcome and checks which one matches the installed version's signature.
"""
import inspect

import numpy as np
import pytest
import torch
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Module.zero_grad", decile=100, top20=False,
                                  backward="clears the parameters' gradients in place: returns None, nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_zero_grad": ["test_zero_grad_set_to_none", "test_zero_grad_in_place",
        "test_zero_grad_partial_requires_grad", "test_zero_grad_default", "test_zero_grad_mixed_dtypes",
        "test_zero_grad_detaches_graph_grad", "test_zero_grad_large"],
}


def _with_grads(module, device, seed=0):
    """Run a forward and backward so that every parameter that requires grad has a non-zero grad."""
    torch.manual_seed(seed)
    module.to(device)
    in_features = next(m for m in module.modules() if isinstance(m, nn.Linear)).in_features
    x = torch.randn(4, in_features, device=device, dtype=next(module.parameters()).dtype)
    module(x).pow(2).sum().backward()
    grads = {name: p.grad for name, p in module.named_parameters() if p.grad is not None}
    assert grads and all(float(g.abs().sum()) > 0 for g in grads.values())
    return grads


def _check_zeroed(module, grads):
    for name, p in module.named_parameters():
        if name in grads:
            assert p.grad is grads[name]  # zeroed in place, not replaced
            assert p.grad.shape == p.shape and p.grad.dtype == p.dtype and p.grad.device == p.device
            assert not p.grad.requires_grad and p.grad.grad_fn is None
            np.testing.assert_array_equal(p.grad.cpu().float().numpy(), np.zeros(tuple(p.shape), dtype=np.float32))
        else:
            assert p.grad is None


def _net(kind):
    if kind == "linear":
        return nn.Linear(5, 5)
    return nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))


# test_zero_grad: set_to_none=True drops every gradient.
@pytest.mark.parametrize("kind", ["linear", "sequential"])
def test_zero_grad_set_to_none(bench, device, kind):
    module = _net(kind)
    _with_grads(module, device)
    result = bench(module.zero_grad, set_to_none=True)
    assert result is None
    assert all(p.grad is None for p in module.parameters())


# test_zero_grad: set_to_none=False zeroes the existing gradient tensors in place.
@pytest.mark.parametrize("kind", ["linear", "sequential"])
def test_zero_grad_in_place(bench, device, kind):
    module = _net(kind)
    grads = _with_grads(module, device)
    result = bench(module.zero_grad, set_to_none=False)
    assert result is None
    _check_zeroed(module, grads)


# test_zero_grad: parameters that do not require grad (so never got a gradient) stay at None, with
# either setting; the bias that does require grad is cleared.
@pytest.mark.parametrize("set_to_none", [True, False], ids=["to-none", "to-zero"])
def test_zero_grad_partial_requires_grad(bench, device, set_to_none):
    module = nn.Linear(5, 5)
    module.weight.requires_grad = False
    grads = _with_grads(module, device)
    assert module.weight.grad is None and "bias" in grads
    bench(module.zero_grad, set_to_none=set_to_none)
    if set_to_none:
        assert module.bias.grad is None and module.weight.grad is None
    else:
        _check_zeroed(module, grads)


# The default: zero in place on PyTorch 1.x, set to None from 2.0 on, as the signature states.
def test_zero_grad_default(bench, device):
    module = _net("sequential")
    grads = _with_grads(module, device)
    default = inspect.signature(module.zero_grad).parameters["set_to_none"].default
    result = bench(module.zero_grad)
    assert result is None
    if default:
        assert all(p.grad is None for p in module.parameters())
    else:
        _check_zeroed(module, grads)


# Mixed dtypes (float64 and float32 submodules, grouped separately by the foreach path): every
# gradient is zeroed in its own dtype.
def test_zero_grad_mixed_dtypes(bench, device):
    module = nn.Sequential(nn.Linear(6, 6), nn.Linear(6, 6))
    module[1].double()
    module.to(device)
    torch.manual_seed(1)
    x = torch.randn(3, 6, device=device)
    module[1](module[0](x).double()).sum().backward()
    grads = {name: p.grad for name, p in module.named_parameters()}
    assert {g.dtype for g in grads.values()} == {torch.float32, torch.float64}
    bench(module.zero_grad, set_to_none=False)
    _check_zeroed(module, grads)


# A gradient that is part of a graph (create_graph=True) is detached before it is zeroed.
def test_zero_grad_detaches_graph_grad(bench, device):
    module = nn.Linear(4, 2).double().to(device)
    x = torch.randn(3, 4, dtype=torch.float64, device=device)
    module(x).pow(2).sum().backward(create_graph=True)
    assert module.weight.grad.requires_grad
    grads = {name: p.grad for name, p in module.named_parameters()}
    bench(module.zero_grad, set_to_none=False)
    _check_zeroed(module, grads)


# A larger model (about 0.8M parameters): the timed call touches every gradient.
@pytest.mark.parametrize("set_to_none", [True, False], ids=["to-none", "to-zero"])
def test_zero_grad_large(bench, device, set_to_none):
    module = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 256))
    grads = _with_grads(module, device)
    bench(module.zero_grad, set_to_none=set_to_none)
    if set_to_none:
        assert all(p.grad is None for p in module.parameters())
    else:
        _check_zeroed(module, grads)
