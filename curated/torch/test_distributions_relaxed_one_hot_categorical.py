"""torch.distributions.RelaxedOneHotCategorical: cases adapted from pytorch/pytorch test/distributions/test_distributions.py (test_relaxed_one_hot_categorical_1d: probs [0.1, 0.2, 0.3] at temperature 0.67, sample shapes (), (2, 2), (1,), samples carry no grad; test_relaxed_one_hot_categorical_2d: probs [[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]] at temperatures [3.0] and [0.25], sample shapes (), (3, 4), (6,); test_argmax_relaxed_categorical: the argmax of the relaxed samples follows the categorical probs; the distribution shape tests with logits; validation of the parameters), whose log_prob gradients upstream checks with gradcheck (_gradcheck_log_prob in test_relaxed_one_hot_categorical_1d and _2d); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the constructor RelaxedOneHotCategorical(temperature, probs=... or logits=...).
The object it returns is checked: normalised probs, temperature, batch/event shapes, has_rsample,
rsample on the simplex (positive entries summing to 1) with the expected shape, log_prob of its
samples against the Concrete (Gumbel-softmax) density computed in float64 NumPy,
  log p(y) = lgamma(k) + (k - 1) log t + sum_i (log p_i - (t + 1) log y_i) - k log sum_i p_i y_i^(-t),
and the argmax frequencies against probs.
"""
import math

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, check_sample, ids, probs_param
from torch.distributions import RelaxedOneHotCategorical

pytestmark = pytest.mark.function("torch.distributions.RelaxedOneHotCategorical", decile=20, top20=False)

UPSTREAM_TESTS = {
    "test/distributions/test_distributions.py::TestDistributions::test_relaxed_one_hot_categorical_1d": [
        "test_relaxed_1d", "test_relaxed_backward"],
    "test/distributions/test_distributions.py::TestDistributions::test_relaxed_one_hot_categorical_2d": [
        "test_relaxed_2d", "test_relaxed_large", "test_relaxed_backward"],
    "test/distributions/test_distributions.py::TestDistributions::test_argmax_relaxed_categorical": [
        "test_relaxed_argmax"],
    "test/distributions/test_distributions.py::TestValidation::test_invalid": [
        "test_relaxed_validation"],
}


def _concrete_log_prob(y, temp, p):
    """The Concrete density of y (..., k) at temperature temp (a float) with probabilities p (..., k)."""
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    k = y.shape[-1]
    return (math.lgamma(k) + (k - 1) * math.log(temp) + (np.log(p) - (temp + 1) * np.log(y)).sum(-1)
            - k * np.log((p * y ** (-temp)).sum(-1)))


def _check_samples(dist, shape, dtype):
    s = dist.rsample(shape)
    check_sample(s, dist, shape, dtype)
    assert bool((s >= 0).all()) and bool((s <= 1).all())
    torch.testing.assert_close(s.sum(-1), torch.ones_like(s.sum(-1)))
    return s


# test_relaxed_one_hot_categorical_1d: probs or logits, float32/float64, temperature 0.67.
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_relaxed_1d(bench, device, dtype, param):
    value, pn = probs_param([0.1, 0.2, 0.3], param, dtype, device)
    temp = torch.tensor(0.67, dtype=dtype, device=device)
    dist = bench(RelaxedOneHotCategorical, temp, **{param: value})
    assert isinstance(dist, RelaxedOneHotCategorical) and dist.has_rsample
    assert tuple(dist.batch_shape) == () and tuple(dist.event_shape) == (3,)
    check_close(dist.probs, pn, dtype)
    torch.testing.assert_close(dist.temperature.cpu(), torch.tensor(0.67, dtype=dtype))
    for shape in [(), (2, 2), (1,)]:
        _check_samples(dist, shape, dtype)
    assert not dist.sample().requires_grad
    s = _check_samples(dist, (16,), dtype)
    expected = _concrete_log_prob(s.cpu().double().numpy(), 0.67, pn)
    lp = dist.log_prob(s)
    assert lp.dtype == dtype and tuple(lp.shape) == (16,)
    tol = {} if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-4}
    torch.testing.assert_close(lp.cpu().double(), torch.from_numpy(expected), **tol)


# test_relaxed_one_hot_categorical_2d: a batch of two, at a high (3.0) and a low (0.25) temperature.
@pytest.mark.parametrize("temp", [3.0, 0.25])
def test_relaxed_2d(bench, device, temp):
    p = np.array([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])
    pn = p / p.sum(-1, keepdims=True)
    probs = torch.tensor(p, device=device)
    t = torch.tensor([temp], dtype=torch.float64, device=device)
    dist = bench(RelaxedOneHotCategorical, t, probs)
    assert tuple(dist.batch_shape) == (2,) and tuple(dist.event_shape) == (3,)
    torch.testing.assert_close(dist.probs.cpu(), torch.from_numpy(pn))
    for shape in [(), (3, 4), (6,)]:
        _check_samples(dist, shape, torch.float64)
    s = _check_samples(dist, (8,), torch.float64)
    lp = dist.log_prob(s)
    assert tuple(lp.shape) == (8, 2)
    torch.testing.assert_close(lp.cpu(), torch.from_numpy(_concrete_log_prob(s.cpu().numpy(), temp, pn)))


# test_argmax_relaxed_categorical: argmax of relaxed samples is distributed as Categorical(probs), at
# any temperature (the Gumbel-max trick); a low temperature gives nearly one-hot samples.
@pytest.mark.parametrize("temp", [0.1, 1.0, 5.0])
def test_relaxed_argmax(bench, device, temp):
    p = np.array([0.1, 0.2, 0.3, 0.4])
    logits = torch.tensor(np.log(p), dtype=torch.float32, device=device)
    t = torch.tensor(temp, device=device)
    dist = bench(RelaxedOneHotCategorical, t, logits=logits)
    torch.manual_seed(0)
    s = _check_samples(dist, (20000,), torch.float32)
    freq = np.bincount(s.argmax(-1).cpu().numpy(), minlength=4) / 20000.0
    np.testing.assert_allclose(freq, p, atol=0.02)
    if temp == 0.1:
        assert float((s.max(-1).values > 0.9).float().mean()) > 0.8


# Validation (validate_args=True): probs must be non-negative and the sample on the simplex.
def test_relaxed_validation(bench, device):
    probs = torch.tensor([0.25, 0.25, 0.5], device=device)
    t = torch.tensor(0.5, device=device)
    dist = bench(RelaxedOneHotCategorical, t, probs=probs, validate_args=True)
    torch.testing.assert_close(dist.probs.cpu(), torch.tensor([0.25, 0.25, 0.5]))
    with pytest.raises(ValueError):
        RelaxedOneHotCategorical(t, probs=torch.tensor([-0.1, 0.6, 0.5], device=device), validate_args=True)
    with pytest.raises(ValueError):
        RelaxedOneHotCategorical(t, probs=probs, logits=probs.log())  # exactly one of probs / logits
    with pytest.raises(ValueError):
        dist.log_prob(torch.tensor([0.5, 0.5, 0.5], device=device))  # not on the simplex


# A large batch (512 distributions over 1000 classes), to time a realistic constructor.
def test_relaxed_large(bench, device):
    logits_np = np.random.default_rng(0).standard_normal((512, 1000)).astype(np.float32)
    logits = torch.from_numpy(logits_np).to(device)
    t = torch.tensor(0.5, device=device)
    dist = bench(RelaxedOneHotCategorical, t, logits=logits)
    assert tuple(dist.batch_shape) == (512,) and tuple(dist.event_shape) == (1000,)
    e = np.exp(logits_np.astype(np.float64) - logits_np.max(-1, keepdims=True))
    torch.testing.assert_close(dist.probs.cpu().double(), torch.from_numpy(e / e.sum(-1, keepdims=True)),
                               rtol=1e-4, atol=1e-6)
    _check_samples(dist, (), torch.float32)


def _log_prob(temperature, probs, value):
    return RelaxedOneHotCategorical(temperature, probs=probs).log_prob(value)


# _gradcheck_log_prob (test_relaxed_one_hot_categorical_1d, _2d): the gradient of log_prob of fixed points of the
# simplex with respect to the temperature and the probs of a batch of two, against the CPU's float64 one, with
# gradcheck on the CPU. (rsample's gradient is left out: its uniform draws differ between float32 and the float64
# reference.)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_relaxed_backward(backward, device, dtype):
    temperature = torch.tensor([0.67], dtype=dtype, device=device, requires_grad=True)
    probs = torch.tensor([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]], dtype=dtype, device=device, requires_grad=True)
    value = torch.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], dtype=dtype, device=device)
    grads = backward(_log_prob, temperature, probs, value)
    assert len(grads) == 2
    check_gradients(grads, _log_prob, (temperature, probs, value),
                    **({"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {}))
