"""torch.nn.Module.register_parameter: cases adapted from pytorch/pytorch test/test_nn.py (test_register_parameter_raises_error_if_name_is_not_string, test_register_parameter_raises_error_if_attr_exists (a plain attribute, a buffer, a submodule), test_register_parameter_allows_overwriting_with_same_name, the None-parameter and non-Parameter TypeError checks of test_parameter_assignment, and "." / "" names raising KeyError) and test/test_module_hooks.py (a parameter registered on a module is seen by parameters(), state_dict(), to() and the forward). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `module.register_parameter(name, param)`. The harness repeats it; registering the
same Parameter under the same name again is allowed (it overwrites the entry with itself), so the
module is as after the first call and every check holds. Each case checks the registration
(identity, named_parameters order, state_dict keys) and, where the module runs, its forward and
gradient on the cell's device against NumPy.
"""
import numpy as np
import pytest
import torch
from _support import check_close, np_linear, to_device, uniform
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Module.register_parameter", decile=90, top20=False,
                                  paper_label="torch.nn.Parameter.register_parameter",
                                  backward="module bookkeeping (registers a Parameter): returns None, no tensor "
                                           "output to differentiate")

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_register_parameter_raises_error_if_name_is_not_string":
        ["test_register_parameter_errors"],
    "test/test_nn.py::TestNN::test_register_parameter_raises_error_if_attr_exists": ["test_register_parameter_errors"],
    "test/test_nn.py::TestNN::test_register_parameter_allows_overwriting_with_same_name":
        ["test_register_parameter_overwrite", "test_register_parameter_linear_weight"],
    "test/test_nn.py::TestNN::test_parameter_assignment": ["test_register_parameter_new",
        "test_register_parameter_none", "test_register_parameter_nested", "test_register_parameter_large"],
}


def _param(shape, device, seed, dtype=torch.float32, requires_grad=True):
    return nn.Parameter(uniform(shape, device, dtype, seed, -1, 1), requires_grad=requires_grad)


class _Scale(nn.Module):
    """y = x * scale + shift, with `scale` and `shift` registered by the case."""

    def forward(self, x):
        return x * self.scale + self.shift


# A new parameter on a plain Module, in several dtypes and with requires_grad on and off.
@pytest.mark.parametrize("dtype,requires_grad", [(torch.float32, True), (torch.float64, True),
                                                 (torch.float16, False), (torch.complex64, True)],
                         ids=["float32", "float64", "float16_frozen", "complex64"])
def test_register_parameter_new(bench, device, dtype, requires_grad):
    m = nn.Module()
    p = _param((3, 4), device, 0, dtype, requires_grad)
    result = bench(m.register_parameter, "weight", p)
    assert result is None
    assert m.weight is p and m._parameters["weight"] is p
    assert [n for n, _ in m.named_parameters()] == ["weight"] and list(m.parameters())[0] is p
    assert list(m.state_dict()) == ["weight"]
    sd = m.state_dict()["weight"]
    assert sd.dtype == dtype and sd.device == p.device and tuple(sd.shape) == (3, 4)
    assert torch.equal(sd, p.detach()) and m.weight.requires_grad is requires_grad


# Registering None keeps the name (as a parameter slot) but adds nothing to parameters/state_dict.
def test_register_parameter_none(bench, device):
    m = nn.Linear(3, 2).to(device)
    result = bench(m.register_parameter, "extra", None)
    assert result is None and m.extra is None and "extra" in m._parameters
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert list(m.state_dict()) == ["weight", "bias"]
    # a None bias slot: Linear's forward then runs without a bias
    m.register_parameter("bias", None)
    x = torch.ones(4, 3, device=device)
    torch.testing.assert_close(m(x).detach().cpu(), (x @ m.weight.t()).detach().cpu())


# test_register_parameter_allows_overwriting_with_same_name: a new Parameter replaces the old one in
# place (same position in named_parameters), and the forward uses it.
def test_register_parameter_overwrite(bench, device):
    m = _Scale()
    m.register_parameter("scale", _param((5,), device, 1))
    m.register_parameter("shift", _param((5,), device, 2))
    new_scale = _param((5,), device, 3)
    bench(m.register_parameter, "scale", new_scale)
    assert m.scale is new_scale
    assert [n for n, _ in m.named_parameters()] == ["scale", "shift"]
    x_np = np.random.default_rng(4).standard_normal((2, 5)).astype(np.float32)
    x = torch.from_numpy(x_np).to(device)
    out = m(x)
    expected = x_np * new_scale.detach().cpu().numpy() + m.shift.detach().cpu().numpy()
    torch.testing.assert_close(out.detach().cpu(), torch.from_numpy(expected))
    # gradients reach the registered parameters
    out.sum().backward()
    torch.testing.assert_close(new_scale.grad.cpu(), torch.from_numpy(x_np.sum(0)))
    torch.testing.assert_close(m.shift.grad.cpu(), torch.full((5,), 2.0))


# Replacing a built-in layer's weight: Linear's forward then computes with the new Parameter.
def test_register_parameter_linear_weight(bench, device):
    m = nn.Linear(4, 3).to(device)
    w = _param((3, 4), device, 5)
    bench(m.register_parameter, "weight", w)
    assert m.weight is w and [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    x_np = np.random.default_rng(6).standard_normal((8, 4))
    out = m(to_device(x_np, device, torch.float32))
    check_close(out, np_linear(m, x_np), torch.float32)


# A parameter registered on a submodule appears under its dotted path in the parent, and module.to()
# converts it.
def test_register_parameter_nested(bench, device):
    parent = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    child = parent[1]
    p = _param((2,), device, 7)
    bench(child.register_parameter, "alpha", p)
    names = [n for n, _ in parent.named_parameters()]
    assert names == ["0.weight", "0.bias", "1.alpha"]
    parent.to(dtype=torch.float64)
    assert child.alpha.dtype == torch.float64 and isinstance(child.alpha, nn.Parameter)


# test_register_parameter_raises_error_if_name_is_not_string / _if_attr_exists and the name and type
# rules, checked around one valid call.
def test_register_parameter_errors(bench, device):
    m = nn.Module()
    p = _param((2,), device, 8)
    bench(m.register_parameter, "ok", p)
    assert m.ok is p
    with pytest.raises(TypeError, match="parameter name should be a string"):
        m.register_parameter(1, p)
    with pytest.raises(KeyError):
        m.register_parameter("a.b", p)
    with pytest.raises(KeyError):
        m.register_parameter("", p)
    with pytest.raises(TypeError):
        m.register_parameter("plain", torch.ones(2, device=device))  # not a Parameter
    m.attribute_name = 5
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("attribute_name", p)
    m.register_buffer("buf", torch.ones(1, device=device))
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("buf", p)
    m.add_module("sub", nn.Identity())
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("sub", p)
    assert [n for n, _ in m.named_parameters()] == ["ok"]


# A large parameter (an embedding-sized table): registration does not copy it.
def test_register_parameter_large(bench, device):
    m = nn.Module()
    p = nn.Parameter(torch.zeros(1000, 1000, device=device))
    bench(m.register_parameter, "table", p)
    assert m.table.data_ptr() == p.data_ptr() and m.table.numel() == 1000000
    assert sum(q.numel() for q in m.parameters()) == 1000000
