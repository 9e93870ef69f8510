"""torch.autograd.Variable: cases adapted from pytorch/pytorch test/test_autograd.py (the legacy-constructor uses there: leaves made with Variable(tensor, requires_grad=True) whose gradient backward() fills; test_volatile_deprecated: volatile is gone and only warns, here through the constructor's volatile= argument; test_requires_grad and the indexing-backward tests: Variable(x) and Variable(x, requires_grad=True); Variable(x) of a tensor that requires grad is detached; isinstance(tensor, Variable) holds for every Tensor) and the constructor's contract in torch/csrc/autograd/python_legacy_variable.cpp (data must be a Tensor, the result shares the input's storage and version counter, requires_grad only on floating and complex dtypes). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Since PyTorch 0.4 Variable(t) returns a plain torch.Tensor: a detached alias of t. The timed call is
`Variable(t, ...)`; it does not change t, so the harness may repeat it. Each case checks the
result's type, dtype, shape, device and values, its autograd flags (requires_grad, is_leaf,
grad_fn), and that it aliases t (same data pointer, a write to t shows through).
"""
import warnings

import numpy as np
import pytest
import torch
from _support import host, ids, randn
from torch.autograd import Variable

pytestmark = pytest.mark.function("torch.autograd.Variable", decile=100, top20=True,
                                  backward="returns a detached alias (a new leaf): no gradient flows through it to "
                                           "its input")

UPSTREAM_TESTS = {
    "test/test_autograd.py::TestAutograd::test_requires_grad": ["test_variable_wraps_tensor",
        "test_variable_requires_grad", "test_variable_detaches"],
    "test/test_autograd.py::TestAutograd::test_volatile_deprecated": ["test_variable_volatile_ignored"],
    "test/test_autograd.py::TestAutograd::test_version_counter": ["test_variable_shares_version"],
    "test/test_autograd.py::TestAutograd::test_index_backward_does_not_save_tensor": ["test_variable_requires_grad",
        "test_variable_large"],
    "test/test_autograd.py::TestAutograd::test_requires_grad_inplace": ["test_variable_errors_and_empty"],
}


def _alias_checks(v, t):
    assert type(v) is torch.Tensor and isinstance(v, Variable)
    assert v is not t and v.data_ptr() == t.data_ptr()
    assert v.dtype == t.dtype and v.shape == t.shape and v.device == t.device and v.stride() == t.stride()
    np.testing.assert_array_equal(host(v), host(t))


# Variable(t): a detached alias without requires_grad, over dtypes.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.uint8, torch.bool, torch.complex64], ids=ids)
def test_variable_wraps_tensor(bench, device, dtype):
    t = torch.from_numpy(np.random.default_rng(0).integers(0, 9, (4, 5))).to(dtype).to(device)
    v = bench(Variable, t)
    _alias_checks(v, t)
    assert not v.requires_grad and v.is_leaf and v.grad_fn is None


# Variable(t, requires_grad=True): a leaf whose gradient backward() fills; t itself gets none.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex128], ids=ids)
def test_variable_requires_grad(bench, device, dtype):
    values = np.random.default_rng(1).standard_normal((3, 4))
    t = torch.from_numpy(values).to(dtype).to(device)
    v = bench(Variable, t, requires_grad=True)
    _alias_checks(v, t)
    assert v.requires_grad and v.is_leaf and v.grad_fn is None and v.grad is None
    out = (v.abs() ** 2).sum() if dtype.is_complex else (v * v).sum()
    out.backward()
    assert v.grad is not None and t.grad is None and not t.requires_grad
    # d/dv sum |v|^2 is 2v (PyTorch's convention for complex inputs as well).
    np.testing.assert_allclose(host(v.grad), 2 * host(t), rtol=1e-6)


# Variable of a tensor that requires grad (a leaf, a non-leaf, a Parameter): the result is detached.
@pytest.mark.parametrize("source", ["leaf", "non-leaf", "parameter"])
def test_variable_detaches(bench, device, source):
    leaf = torch.linspace(-2, 2, 20, device=device).requires_grad_()
    t = {"leaf": leaf, "non-leaf": leaf * 3, "parameter": torch.nn.Parameter(leaf.detach().clone())}[source]
    v = bench(Variable, t)
    assert type(v) is torch.Tensor and not v.requires_grad and v.grad_fn is None and v.is_leaf
    assert v.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(host(v), host(t))


# The result shares the version counter: an in-place change of t shows in v and bumps its version.
def test_variable_shares_version(bench, device):
    t = torch.zeros(6, device=device)
    v = bench(Variable, t)
    before = v._version
    t.add_(2)
    assert v._version == t._version == before + 1
    np.testing.assert_array_equal(host(v), np.full(6, 2, dtype=np.float32))


# test_volatile_deprecated (volatile is gone): volatile= is accepted with a warning and has no effect.
def test_variable_volatile_ignored(bench, device):
    t = torch.ones((2, 3), device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        v = bench(Variable, t, volatile=True)
    _alias_checks(v, t)
    assert not v.requires_grad
    with pytest.warns(UserWarning, match="volatile"):
        Variable(t, volatile=True)


# The constructor's errors (checked around one valid call): data must be a Tensor, and an integer
# tensor cannot require grad. Variable() with no data gives an empty host tensor (so it is checked
# outside the timed call: on an accelerator cell its result would not be on the cell's device).
def test_variable_errors_and_empty(bench, device):
    t = torch.empty(0, device=device)
    v = bench(Variable, t, requires_grad=False)
    assert type(v) is torch.Tensor and tuple(v.shape) == (0,) and v.device == t.device
    empty = Variable()
    assert type(empty) is torch.Tensor and tuple(empty.shape) == (0,) and empty.dtype == torch.get_default_dtype()
    with pytest.raises(TypeError, match="has to be a tensor"):
        Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(torch.ones(2, dtype=torch.int64, device=device), requires_grad=True)


# A larger tensor: Variable does not copy, so its cost does not depend on the size.
def test_variable_large(bench, device):
    t = randn((1024, 512), device, torch.float32, 2)
    v = bench(Variable, t, requires_grad=True)
    _alias_checks(v, t)
    assert v.requires_grad and v.is_leaf
