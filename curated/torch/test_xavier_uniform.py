"""torch.nn.init.xavier_uniform_: cases adapted from pytorch/pytorch test/nn/test_init.py (formerly TestNNInit in test/test_nn.py: test_xavier_uniform: 2-D and 4-D tensors with sides 20..25, with and without a gain, whose values pass a Kolmogorov-Smirnov test for U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) at p > 1e-4; test_xavier_uniform_errors_on_inputs_smaller_than_2d: 0-d and 1-d tensors raise ValueError). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `xavier_uniform_(tensor, ...)`, which refills `tensor` in place and returns it. The
harness calls it many times and hands back the first result, which is `tensor` itself holding the
last fill; every check is a property that holds after any number of fills: the result is the input
object with its shape, dtype and device; every value lies in [-b, b]; and the values pass the
upstream KS test against U(-b, b) (computed here with NumPy, since SciPy is not a dependency).
"""
import math

import numpy as np
import pytest
import torch
from _support import ids
from torch.nn import init

pytestmark = pytest.mark.function("torch.nn.init.xavier_uniform_", decile=70, top20=False,
                                  backward="a random in-place initialisation under no_grad: no differentiable output")

UPSTREAM_TESTS = {
    "test/nn/test_init.py::TestNNInit::test_xavier_uniform": ["test_xavier_uniform_shapes",
        "test_xavier_uniform_dtypes", "test_xavier_uniform_layer_weight", "test_xavier_uniform_view",
        "test_xavier_uniform_large"],
    "test/nn/test_init.py::TestNNInit::test_xavier_uniform_errors_on_inputs_smaller_than_2d":
        ["test_xavier_uniform_errors"],
}


@pytest.fixture(autouse=True)
def _seeded():
    # The KS test fails by chance with probability 1e-4: a fixed seed makes a case's fills repeatable.
    torch.manual_seed(0)


def _ks_uniform_pvalue(samples, a, b):
    """Two-sided one-sample KS test against U(a, b), asymptotic Kolmogorov p-value."""
    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    n = x.size
    cdf = np.clip((x - a) / (b - a), 0, 1)
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    t = math.sqrt(n) * d
    if t < 1e-3:
        return 1.0
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 101))
    return min(max(p, 0.0), 1.0)


def _bound(shape, gain):
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    return gain * math.sqrt(6.0 / (fan_in + fan_out))


def _check(result, tensor, shape, dtype, gain):
    assert result is tensor
    assert tuple(result.shape) == shape and result.dtype == dtype and result.device == tensor.device
    values = result.detach().cpu().double().numpy()
    b = _bound(shape, gain)
    # Rounding to a low-precision dtype may land exactly on the bound (or one ulp of it) past.
    slack = {torch.float16: 2 ** -10, torch.bfloat16: 2 ** -7}.get(dtype, 1e-6) * b
    assert np.all(np.abs(values) <= b + slack)
    assert _ks_uniform_pvalue(values, -b, b) > 1e-4
    return values


# test_xavier_uniform: 2-D and 4-D, with the default gain and a gain in [0.1, 2).
@pytest.mark.parametrize("gain", [None, 0.35, 1.7], ids=["default", "gain0.35", "gain1.7"])
@pytest.mark.parametrize("shape", [(20, 25), (24, 21), (22, 20, 23, 25)], ids=str)
def test_xavier_uniform_shapes(bench, device, shape, gain):
    tensor = torch.zeros(shape, device=device)
    result = bench(init.xavier_uniform_, tensor) if gain is None else bench(init.xavier_uniform_, tensor, gain=gain)
    _check(result, tensor, shape, torch.float32, 1.0 if gain is None else gain)


# Floating dtypes: the fill keeps the tensor's dtype.
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16], ids=ids)
def test_xavier_uniform_dtypes(bench, device, dtype):
    tensor = torch.zeros((40, 30), dtype=dtype, device=device)
    result = bench(init.xavier_uniform_, tensor, gain=init.calculate_gain("relu"))
    _check(result, tensor, (40, 30), dtype, math.sqrt(2.0))


# The weight of a Linear and a Conv2d (Parameters that require grad): initialized under no_grad,
# still a leaf that requires grad, and its fans come from the layer's shape.
@pytest.mark.parametrize("layer", ["linear", "conv2d"])
def test_xavier_uniform_layer_weight(bench, device, layer):
    module = (torch.nn.Linear(300, 200) if layer == "linear" else torch.nn.Conv2d(16, 32, 5)).to(device)
    weight = module.weight
    result = bench(init.xavier_uniform_, weight)
    assert isinstance(result, torch.nn.Parameter) and result.requires_grad and result.is_leaf
    assert result.grad_fn is None
    _check(result, weight, tuple(weight.shape), torch.float32, 1.0)


# A non-contiguous view is filled in place, the rest of its base untouched.
def test_xavier_uniform_view(bench, device):
    base = torch.full((50, 60), 7.0, device=device)
    view = base[:, :30].t()  # (30, 50), non-contiguous
    result = bench(init.xavier_uniform_, view)
    _check(result, view, (30, 50), torch.float32, 1.0)
    np.testing.assert_array_equal(base[:, 30:].cpu().numpy(), np.full((50, 30), 7.0, dtype=np.float32))


# test_xavier_uniform_errors_on_inputs_smaller_than_2d (checked around one valid call), and a
# zero-element tensor, which is left as it is.
def test_xavier_uniform_errors(bench, device):
    tensor = torch.zeros((0, 5), device=device)
    result = bench(init.xavier_uniform_, tensor)
    assert result is tensor and tuple(result.shape) == (0, 5)
    for bad_shape in ((), (1,)):
        with pytest.raises(ValueError):
            init.xavier_uniform_(torch.zeros(bad_shape, device=device))


# A large weight (1024 x 1024).
def test_xavier_uniform_large(bench, device):
    tensor = torch.empty((1024, 1024), device=device)
    result = bench(init.xavier_uniform_, tensor)
    values = _check(result, tensor, (1024, 1024), torch.float32, 1.0)
    # The variance of U(-b, b) is b^2 / 3 = 2 / (fan_in + fan_out).
    assert abs(values.var() - 2.0 / 2048) < 0.01 * 2.0 / 2048
