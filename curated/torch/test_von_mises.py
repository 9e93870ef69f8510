"""torch.distributions.von_mises.VonMises: cases adapted from pytorch/pytorch test/distributions/test_distributions.py (test_von_mises_logprob: for concentrations 0.01 .. 100, exp(log_prob) on a 1e-4 grid over [0, 2*pi) integrates to 1 within 1e-3; test_von_mises_sample: samples for loc in {0, pi/2} and concentrations 0.03 .. 100 match the distribution on the circle (upstream compares with scipy.stats.vonmises; here the circular mean and mean resultant length are compared with their closed forms); the VonMises entries of _get_examples / _get_bad_examples: scalar and batched loc / concentration that require grad, and a non-positive concentration rejected by argument validation); log_prob is differentiable in loc and concentration, and a backward case checks both gradients; UPSTREAM_TESTS below maps each to the cases here.

The timed call is the constructor `VonMises(loc, concentration)`: it validates and broadcasts the
parameters and builds the distribution object; it has no side effects, so repetition is safe. Each
case checks the object (batch_shape, event_shape, parameters, dtype and device, mean and variance
against closed forms with NumPy's I0 and a series for I1) and its log_prob against NumPy's formula
k*cos(x - loc) - log(2*pi*I0(k)); sampling is checked where upstream checks it.
"""
import math

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import ids
from torch.distributions.von_mises import VonMises

pytestmark = pytest.mark.function("torch.distributions.von_mises.VonMises", decile=30, top20=False,
                                  paper_label="torch.von_mises.VonMises")

UPSTREAM_TESTS = {
    "test/distributions/test_distributions.py::TestDistributions::test_von_mises_logprob": [
        "test_von_mises_logprob_normalized", "test_von_mises_example_params", "test_von_mises_broadcast",
        "test_von_mises_backward"],
    "test/distributions/test_distributions.py::TestDistributions::test_von_mises_sample": ["test_von_mises_sample"],
    "test/distributions/test_distributions.py::TestValidation::test_invalid": [
        "test_von_mises_validation"],
}

CONCENTRATIONS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]


def _bessel_ratio(k):
    """I1(k) / I0(k) from the power series of I1 and NumPy's I0, in float64."""
    k = float(k)
    if k == 0:
        return 0.0
    log_terms = [(2 * m + 1) * math.log(k / 2) - math.lgamma(m + 1) - math.lgamma(m + 2) for m in range(400)]
    top = max(log_terms)
    log_i1 = top + math.log(sum(math.exp(t - top) for t in log_terms))
    return math.exp(log_i1 - math.log(np.i0(k)))


def _np_log_prob(x, loc, k):
    return k * np.cos(x - loc) - math.log(2 * math.pi) - np.log(np.i0(k))


def _check_distribution(d, loc_np, k_np, dtype, device):
    batch = np.broadcast_shapes(np.shape(loc_np), np.shape(k_np))
    assert isinstance(d, VonMises)
    assert tuple(d.batch_shape) == batch and tuple(d.event_shape) == ()
    for value, expected in ((d.loc, loc_np), (d.concentration, k_np)):
        assert value.dtype == dtype and value.device.type == device.type and tuple(value.shape) == batch
        got = value.detach().cpu().numpy()
        np.testing.assert_array_equal(got, np.broadcast_to(expected, batch).astype(got.dtype))
    np.testing.assert_array_equal(d.mean.detach().cpu().numpy(), d.loc.detach().cpu().numpy())
    expected_var = 1 - np.vectorize(_bessel_ratio)(np.broadcast_to(k_np, batch))
    # torch computes 1 - I1/I0 from polynomial approximations of log I0 and log I1; at large
    # concentrations the difference cancels, so the float32 bound is absolute.
    atol = 1e-5 if dtype == torch.float32 else 1e-7
    np.testing.assert_allclose(d.variance.detach().cpu().numpy(), expected_var, rtol=1e-4, atol=atol)


# test_von_mises_logprob: every concentration, loc 0, grid over [0, 2*pi).
@pytest.mark.parametrize("concentration", CONCENTRATIONS)
def test_von_mises_logprob_normalized(bench, device, concentration):
    loc = torch.tensor(0.0, device=device)
    k = torch.tensor(concentration, device=device)
    d = bench(VonMises, loc, k)
    _check_distribution(d, 0.0, concentration, torch.float32, device)
    grid = torch.arange(0.0, 2 * math.pi, 1e-4, device=device)
    log_p = d.log_prob(grid)
    assert log_p.dtype == torch.float32 and log_p.device == grid.device and log_p.shape == grid.shape
    norm = log_p.exp().mean().item() * 2 * math.pi
    assert abs(norm - 1) < 1e-3
    expected = _np_log_prob(grid.cpu().double().numpy(), 0.0, concentration)
    np.testing.assert_allclose(log_p.cpu().double().numpy(), expected, rtol=1e-3, atol=1e-3)


# The _get_examples entries: a scalar and a batched (loc, concentration) that require grad, in
# float32 and float64; log_prob is differentiable in loc (d/dloc = k*sin(x - loc)).
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
@pytest.mark.parametrize("params", ["scalar", "batched"])
def test_von_mises_example_params(bench, device, params, dtype):
    loc_np, k_np = {"scalar": (1.0, 10.0), "batched": (np.array([0.0, math.pi / 2]), np.array([1.0, 10.0]))}[params]
    loc = torch.tensor(loc_np, dtype=dtype, device=device, requires_grad=True)
    k = torch.tensor(k_np, dtype=dtype, device=device, requires_grad=True)
    d = bench(VonMises, loc, k)
    _check_distribution(d, loc_np, k_np, dtype, device)
    x_np = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 3.1])[:, None] * np.ones(np.shape(loc_np) or (1,))
    x = torch.tensor(x_np, dtype=dtype, device=device)
    lp = d.log_prob(x)
    tol = 1e-5 if dtype == torch.float32 else 1e-7
    np.testing.assert_allclose(lp.detach().cpu().numpy(), _np_log_prob(x_np, loc_np, k_np), rtol=tol, atol=tol * 10)
    lp.sum().backward()
    expected_grad = (np.asarray(k_np) * np.sin(x_np - loc_np)).sum(axis=0)
    np.testing.assert_allclose(np.atleast_1d(loc.grad.cpu().numpy()), np.atleast_1d(expected_grad), rtol=tol * 10,
                               atol=tol * 10)


# Broadcasting: a (3, 1) loc against a (4,) concentration gives batch_shape (3, 4).
def test_von_mises_broadcast(bench, device):
    loc_np = np.array([[-1.0], [0.0], [2.5]])
    k_np = np.array([0.5, 1.0, 4.0, 20.0])
    loc = torch.tensor(loc_np, dtype=torch.float32, device=device)
    k = torch.tensor(k_np, dtype=torch.float32, device=device)
    d = bench(VonMises, loc, k)
    _check_distribution(d, loc_np, k_np, torch.float32, device)
    x = torch.full((3, 4), 0.25, device=device)
    np.testing.assert_allclose(d.log_prob(x).cpu().numpy(), _np_log_prob(0.25, loc_np, k_np), rtol=1e-5, atol=1e-5)


# test_von_mises_sample: loc in {0, pi/2}, concentrations 0.03 .. 100. Samples lie in [-pi, pi); their
# circular mean is loc and their mean resultant length is I1(k)/I0(k).
@pytest.mark.parametrize("concentration", [0.3, 1.0, 10.0, 100.0])
@pytest.mark.parametrize("loc", [0.0, math.pi / 2], ids=["loc0", "loc-pi/2"])
def test_von_mises_sample(bench, device, loc, concentration):
    loc_t = torch.tensor(loc, device=device)
    k_t = torch.tensor(concentration, device=device)
    d = bench(VonMises, loc_t, k_t)
    _check_distribution(d, loc, concentration, torch.float32, device)
    torch.manual_seed(0)
    samples = d.sample((100_000,))
    assert samples.shape == (100_000,) and samples.dtype == torch.float32 and samples.device == loc_t.device
    s = samples.cpu().double().numpy()
    # In [-pi, pi), up to float32 rounding (float32(pi) is a little above pi).
    bound = float(np.float32(math.pi))
    assert np.all(s >= -bound) and np.all(s <= bound)
    c, sn = np.cos(s).mean(), np.sin(s).mean()
    resultant = math.hypot(c, sn)
    assert abs(resultant - _bessel_ratio(concentration)) < 0.01
    angle_error = math.atan2(math.sin(math.atan2(sn, c) - loc), math.cos(math.atan2(sn, c) - loc))
    # The standard error of the mean angle is about 1 / (resultant * sqrt(2 * n)) < 0.015 here.
    assert abs(angle_error) < 0.05


# _get_bad_examples: a non-positive concentration fails argument validation (checked around one
# valid call made with validate_args=True).
def test_von_mises_validation(bench, device):
    loc = torch.tensor([0.0, 1.0], device=device)
    k = torch.tensor([2.0, 3.0], device=device)
    d = bench(VonMises, loc, k, validate_args=True)
    _check_distribution(d, np.array([0.0, 1.0]), np.array([2.0, 3.0]), torch.float32, device)
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError):
            VonMises(loc, torch.tensor([2.0, bad], device=device), validate_args=True)


def _log_prob(loc, concentration, value):
    return VonMises(loc, concentration).log_prob(value)


# test_von_mises_logprob's log_prob, differentiated: the gradients of loc and concentration (k sin(x - loc) and
# cos(x - loc) - I1(k) / I0(k), through torch's polynomial approximation of log I0) at small and large
# concentrations, against the CPU's float64 ones, with gradcheck on the CPU.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_von_mises_backward(backward, device, dtype):
    loc = torch.tensor([0.0, math.pi / 2, -1.0], dtype=dtype, device=device, requires_grad=True)
    concentration = torch.tensor([0.3, 2.0, 30.0], dtype=dtype, device=device, requires_grad=True)
    value = torch.tensor([[0.5, 2.0, -1.2], [-3.0, 1.0, 0.1]], dtype=dtype, device=device)
    grads = backward(_log_prob, loc, concentration, value)
    assert len(grads) == 2
    check_gradients(grads, _log_prob, (loc, concentration, value),
                    **({"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {}))
