"""torch.distributions.Multinomial: cases adapted from pytorch/pytorch test/distributions/test_distributions.py (test_multinomial_1d: total_count 10, probs [0.1, 0.2, 0.3], sample shapes (), (2, 2), (1,), rsample raising NotImplementedError; test_multinomial_1d_log_prob_and_entropy: log_prob against scipy.stats.multinomial.logpmf for probs and logits parametrisations, entropy with atol 1e-3; test_multinomial_2d: a batch of two distributions and the one-hot probabilities [[1, 0], [0, 1]] whose sample is exact; the invalid-parameter checks of test_distributions' validation tests), whose log_prob gradients upstream checks with gradcheck (_gradcheck_log_prob in test_multinomial_1d and test_multinomial_2d); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the constructor Multinomial(total_count, probs=... or logits=...). The object it
returns is then checked: normalised probs, batch/event shapes, mean and variance (n p, n p (1 - p)),
log_prob of fixed count vectors against the multinomial log-pmf computed in float64 NumPy
(lgamma(n + 1) - sum lgamma(x_i + 1) + sum x_i log p_i), entropy against an enumeration of the
support, and samples (shape, non-negative integer counts summing to total_count).
"""
import itertools
import math

import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, check_sample, ids, probs_param
from torch.distributions import Multinomial

pytestmark = pytest.mark.function("torch.distributions.Multinomial", decile=20, top20=False,
                                  paper_label="torch.multinomial")

UPSTREAM_TESTS = {
    "test/distributions/test_distributions.py::TestDistributions::test_multinomial_1d": [
        "test_multinomial_1d", "test_multinomial_backward"],
    "test/distributions/test_distributions.py::TestDistributions::test_multinomial_1d_log_prob_and_entropy": [
        "test_multinomial_1d", "test_multinomial_entropy"],
    "test/distributions/test_distributions.py::TestDistributions::test_multinomial_2d": [
        "test_multinomial_2d", "test_multinomial_one_hot", "test_multinomial_large", "test_multinomial_backward"],
    "test/distributions/test_distributions.py::TestValidation::test_invalid": [
        "test_multinomial_validation"],
}


def _np_logpmf(x, n, p):
    x = np.asarray(x, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        terms = np.where(x > 0, x * np.log(np.where(p > 0, p, 1.0)), 0.0)
        terms = np.where((x > 0) & (p == 0), -np.inf, terms)
    lg = np.vectorize(math.lgamma)
    return lg(n + 1.0) - lg(x + 1.0).sum(-1) + terms.sum(-1)


def _np_entropy(n, p):
    """Entropy by enumerating every count vector summing to n (small n and k only)."""
    k = len(p)
    total = 0.0
    for cut in itertools.combinations(range(n + k - 1), k - 1):
        bounds = (-1,) + cut + (n + k - 1,)
        x = np.array([bounds[i + 1] - bounds[i] - 1 for i in range(k)])
        lp = float(_np_logpmf(x, n, p))
        if lp > -np.inf:
            total -= math.exp(lp) * lp
    return total


def _check_samples(dist, n, shape):
    s = dist.sample(shape)
    check_sample(s, dist, shape, dist.probs.dtype)
    assert bool((s >= 0).all()) and bool((s == s.round()).all())
    assert bool((s.sum(-1) == n).all())
    return s


# test_multinomial_1d / _log_prob_and_entropy: probs and logits parametrisations, float32/float64.
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_multinomial_1d(bench, device, dtype, param):
    value, pn = probs_param([0.1, 0.2, 0.3], param, dtype, device)
    dist = bench(Multinomial, 10, **{param: value})
    assert isinstance(dist, Multinomial) and dist.total_count == 10
    assert tuple(dist.batch_shape) == () and tuple(dist.event_shape) == (3,)
    assert dist.probs.device == value.device
    check_close(dist.probs, pn, dtype)
    torch.testing.assert_close(dist.mean.cpu(), torch.from_numpy(10 * pn).to(dtype))
    torch.testing.assert_close(dist.variance.cpu(), torch.from_numpy(10 * pn * (1 - pn)).to(dtype))
    counts = np.array([[10, 0, 0], [2, 3, 5], [0, 0, 10], [1, 4, 5]], dtype=np.float64)
    lp = dist.log_prob(torch.from_numpy(counts).to(device=device, dtype=dtype))
    torch.testing.assert_close(lp.cpu(), torch.from_numpy(_np_logpmf(counts, 10, pn)).to(dtype))
    for shape in [(), (2, 2), (1,)]:
        _check_samples(dist, 10, shape)
    with pytest.raises(NotImplementedError):
        dist.rsample()


# test_multinomial_2d: a batch of two distributions; one-hot probabilities give an exact sample.
def test_multinomial_2d(bench, device):
    p = np.array([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])
    probs = torch.tensor(p, device=device)
    dist = bench(Multinomial, 10, probs=probs)
    pn = p / p.sum(-1, keepdims=True)
    assert tuple(dist.batch_shape) == (2,) and tuple(dist.event_shape) == (3,)
    torch.testing.assert_close(dist.probs.cpu(), torch.from_numpy(pn))
    torch.testing.assert_close(dist.mean.cpu(), torch.from_numpy(10 * pn))
    counts = np.array([[1.0, 2.0, 7.0], [5.0, 3.0, 2.0]])
    lp = dist.log_prob(torch.tensor(counts, device=device))
    torch.testing.assert_close(lp.cpu(), torch.from_numpy(_np_logpmf(counts, 10, pn)))
    for shape in [(), (2, 2), (6,)]:
        _check_samples(dist, 10, shape)


def test_multinomial_one_hot(bench, device):
    probs = torch.tensor([[1.0, 0.0], [0.0, 1.0]], device=device)
    dist = bench(Multinomial, 10, probs=probs)
    torch.testing.assert_close(dist.sample().cpu(), torch.tensor([[10.0, 0.0], [0.0, 10.0]]))
    torch.testing.assert_close(dist.variance.cpu(), torch.zeros(2, 2))
    lp = dist.log_prob(torch.tensor([[10.0, 0.0], [0.0, 10.0]], device=device))
    torch.testing.assert_close(lp.cpu(), torch.zeros(2))
    # probs are clamped to [eps, 1 - eps] before the log, so an impossible count vector gets a very
    # low but finite log-probability rather than -inf (and a certain one about -n * eps, not 0).
    impossible = dist.log_prob(torch.tensor([[9.0, 1.0], [0.0, 10.0]], device=device))
    assert float(impossible[0]) < -10.0
    torch.testing.assert_close(impossible[1].cpu(), torch.tensor(0.0))


# test_multinomial_1d_log_prob_and_entropy: entropy (atol 1e-3, as upstream) against enumeration.
@pytest.mark.parametrize("n,p", [(10, [0.1, 0.2, 0.3]), (5, [0.25, 0.25, 0.25, 0.25]), (20, [0.9, 0.1])],
                         ids=["n10_k3", "n5_k4_uniform", "n20_k2"])
def test_multinomial_entropy(bench, device, n, p):
    logits = torch.tensor(np.log(p), dtype=torch.float64, device=device)
    dist = bench(Multinomial, n, logits=logits)
    pn = np.array(p) / np.sum(p)
    torch.testing.assert_close(dist.probs.cpu(), torch.from_numpy(pn))
    ent = dist.entropy()
    assert ent.dtype == torch.float64 and tuple(ent.shape) == ()
    assert abs(float(ent) - _np_entropy(n, pn)) <= 1e-3


# Parameter validation (validate_args=True): invalid probs raise ValueError; a valid one constructs.
def test_multinomial_validation(bench, device):
    probs = torch.tensor([0.2, 0.3, 0.5], device=device)
    dist = bench(Multinomial, 4, probs=probs, validate_args=True)
    torch.testing.assert_close(dist.mean.cpu(), torch.tensor([0.8, 1.2, 2.0]))
    with pytest.raises(ValueError):
        Multinomial(4, probs=torch.tensor([-0.2, 0.3, 0.5], device=device), validate_args=True)
    with pytest.raises(ValueError):
        Multinomial(4, probs=probs, logits=probs.log())  # exactly one of probs / logits
    with pytest.raises(ValueError):
        dist.log_prob(torch.tensor([3.0, 3.0, 3.0], device=device))  # counts above total_count


# A large batch (a 512 x 1000 probability table), to time a realistic constructor.
def test_multinomial_large(bench, device):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 1.0, (512, 1000)).astype(np.float32)
    probs = torch.from_numpy(p).to(device)
    dist = bench(Multinomial, 100, probs=probs)
    pn = p.astype(np.float64) / p.astype(np.float64).sum(-1, keepdims=True)
    assert tuple(dist.batch_shape) == (512,) and tuple(dist.event_shape) == (1000,)
    torch.testing.assert_close(dist.probs.cpu(), torch.from_numpy(pn).float())
    s = _check_samples(dist, 100, ())
    lp = dist.log_prob(s)
    torch.testing.assert_close(lp.cpu().double(), torch.from_numpy(_np_logpmf(s.cpu().numpy(), 100, pn)),
                               rtol=1e-4, atol=1e-3)


def _log_prob(param, value, counts):
    return Multinomial(10, **{param: value}).log_prob(counts)


# _gradcheck_log_prob (test_multinomial_1d, _2d): the gradient of log_prob of fixed counts with respect to the probs
# or logits of a batch of two, against the CPU's float64 one, with gradcheck on the CPU.
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_multinomial_backward(backward, device, dtype, param):
    value, _ = probs_param([[0.1, 0.2, 0.3, 0.4], [0.5, 0.2, 0.2, 0.1]], param, dtype, device)
    counts = torch.tensor([[2.0, 3.0, 5.0, 0.0], [1.0, 1.0, 4.0, 4.0]], dtype=dtype, device=device)
    value.requires_grad_(True)
    grads = backward(_log_prob, param, value, counts)
    check_gradients(grads, _log_prob, (param, value, counts), **({"rtol": 1e-5} if dtype == torch.float32 else {}))
