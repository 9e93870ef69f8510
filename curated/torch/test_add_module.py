"""torch.nn.Module.add_module: cases adapted from pytorch/pytorch test/test_nn.py (test_add_module: adding None, adding a module under a second name, replacing an existing child, and the TypeErrors for a non-module value and a non-string name; test_add_module_raises_error_if_attr_exists; test_module_apply / named_modules after adding children; Sequential.add_module appending a layer). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `module.add_module(name, child)`; the harness repeats it, and adding the same child
under the same name again leaves the module as after the first call, so every check holds. Each
case checks the registered children (order and identity), that the child's parameters and buffers
are now the parent's (parameters(), state_dict keys), and where the parent can run, its forward on
the cell's device against NumPy.
"""
import numpy as np
import pytest
import torch
from _support import check_close, host64, init_uniform, np_linear, randn
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Module.add_module", decile=100, top20=False,
                                  backward="module bookkeeping (registers a child): returns None, no tensor output "
                                           "to differentiate")

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_add_module": ["test_add_module_to_module", "test_add_module_replace",
        "test_add_module_name_rules"],
    "test/test_nn.py::TestNN::test_add_module_raises_error_if_attr_exists": ["test_add_module_name_rules"],
    "test/test_nn.py::TestNN::test_module_apply": ["test_add_module_with_buffers"],
    "test/test_nn.py::TestNN::test_Sequential_append": ["test_add_module_sequential_append"],
}


def _linear(in_f, out_f, device, seed):
    return init_uniform(nn.Linear(in_f, out_f).to(device), np.random.default_rng(seed), bound=0.5)


# test_add_module: a new name, None, and the same Linear under a second name.
@pytest.mark.parametrize("what", ["new", "none", "alias"])
def test_add_module_to_module(bench, device, what):
    l = _linear(10, 20, device, 0)
    net = nn.Module()
    net.l = l
    child = {"new": _linear(20, 5, device, 1), "none": None, "alias": l}[what]
    name = {"new": "l2", "none": "empty", "alias": "l3"}[what]
    result = bench(net.add_module, name, child)
    assert result is None
    assert getattr(net, name) is child
    assert list(net._modules) == ["l", name]
    assert net.l is l
    names = [n for n, _ in net.named_parameters()]
    # A module registered twice shares its parameters: named_parameters lists them once.
    expected = {"new": ["l.weight", "l.bias", "l2.weight", "l2.bias"], "none": ["l.weight", "l.bias"],
                "alias": ["l.weight", "l.bias"]}[what]
    assert names == expected
    keys = list(net.state_dict())
    if what == "alias":
        assert keys == ["l.weight", "l.bias", "l3.weight", "l3.bias"]
    else:
        assert keys == expected
    # test_add_module's TypeErrors (checked outside the timed call).
    with pytest.raises(TypeError):
        net.add_module("x", "non-module")
    with pytest.raises(TypeError, match="module name should be a string"):
        net.add_module(1, l)
    with pytest.raises(KeyError):
        net.add_module("training", l)  # an attribute that already exists


# test_add_module: add_module on an existing name replaces that child in place (its position stays).
def test_add_module_replace(bench, device):
    net = nn.Sequential(_linear(4, 8, device, 2), nn.ReLU(), _linear(8, 3, device, 3))
    replacement = _linear(8, 6, device, 4)
    bench(net.add_module, "2", replacement)
    assert list(net._modules) == ["0", "1", "2"] and net[2] is replacement
    x = randn((5, 4), device, torch.float32, 5)
    out = net(x)
    expected = np_linear(replacement, np.maximum(np_linear(net[0], host64(x)), 0))
    assert tuple(out.shape) == (5, 6)
    check_close(out, expected, torch.float32)


# Sequential.add_module with a new name appends a layer that the forward then runs.
def test_add_module_sequential_append(bench, device):
    net = nn.Sequential(_linear(4, 8, device, 6), nn.Tanh())
    head = _linear(8, 2, device, 7)
    bench(net.add_module, "head", head)
    assert list(net._modules) == ["0", "1", "head"] and net.head is head and len(net) == 3
    x = randn((3, 4), device, torch.float32, 8)
    out = net(x)
    check_close(out, np_linear(head, np.tanh(np_linear(net[0], host64(x)))), torch.float32)


# A child with buffers (BatchNorm1d): its buffers join the parent's state_dict and named_modules.
def test_add_module_with_buffers(bench, device):
    net = nn.Module()
    bn = nn.BatchNorm1d(6).to(device)
    bench(net.add_module, "bn", bn)
    assert [n for n, _ in net.named_modules()] == ["", "bn"]
    assert list(net.state_dict()) == ["bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked"]
    assert net.state_dict()["bn.running_var"].device == bn.weight.device
    np.testing.assert_array_equal(net.bn.running_var.cpu().numpy(), np.ones(6, dtype=np.float32))


# Dotted and empty names are rejected (KeyError), checked around one valid add.
def test_add_module_name_rules(bench, device):
    net = nn.Module()
    child = _linear(2, 2, device, 9)
    bench(net.add_module, "valid_name", child)
    assert net.valid_name is child
    with pytest.raises(KeyError):
        net.add_module("a.b", child)
    with pytest.raises(KeyError):
        net.add_module("", child)
