"""torch.optim.lr_scheduler.ExponentialLR: cases adapted from pytorch/pytorch test/optim/test_lrscheduler.py (TestLRScheduler: setUp's SGD with two param groups, lr=0.05 and 0.5; test_exp_lr with gamma=0.9; test_closed_form_exp_lr; the scheduler's initial_lr bookkeeping). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The optimizer's parameters live on the cell's device. Two kinds of timed call: constructing the
scheduler (which records initial_lr and leaves the lr at its base value) and `scheduler.step()`.
The harness calls step many times, so the check reads last_epoch afterwards and compares every
group's lr with the closed form base_lr * gamma ** last_epoch (the chained update multiplies by
gamma once per step, so the values agree to rounding).
"""
import pytest
import torch
from torch.optim.lr_scheduler import ExponentialLR

pytestmark = pytest.mark.function("torch.optim.lr_scheduler.ExponentialLR", decile=40, top20=False,
                                  backward="a learning-rate schedule: Python floats in the optimizer's param groups, "
                                           "no tensor output")

UPSTREAM_TESTS = {
    "test/optim/test_lrscheduler.py::TestLRScheduler::test_exp_lr": ["test_exponential_lr_step",
        "test_exponential_lr_step_single_group_momentum"],
    "test/optim/test_lrscheduler.py::TestLRScheduler::test_closed_form_exp_lr": ["test_exponential_lr_step"],
    "test/optim/test_lrscheduler.py::TestLRScheduler::test_new_pattern_no_warning_with_arg":
        ["test_exponential_lr_construct"],
}


def _optimizer(device, group_lrs, momentum=0.0):
    """SGD over small conv-like parameters, one param group per lr (upstream: conv1 at 0.05, conv2 at 0.5)."""
    groups = []
    for i, lr in enumerate(group_lrs):
        weight = torch.zeros((4, 1, 1, 1), device=device, requires_grad=True)
        bias = torch.zeros((4,), device=device, requires_grad=True)
        groups.append({"params": [weight, bias], "lr": lr})
    return torch.optim.SGD(groups, lr=group_lrs[0], momentum=momentum)


def _assert_lrs(opt, sched, base_lrs, gamma):
    epoch = sched.last_epoch
    expected = [base * gamma ** epoch for base in base_lrs]
    got = [group["lr"] for group in opt.param_groups]
    # After thousands of timed steps the lr decays below the smallest normal double, where the
    # chained product and the closed form round differently (2.5e-323 against 0.0): agreement is
    # asked to rounding down to that bound, not below it.
    tiny = torch.finfo(torch.float64).tiny
    torch.testing.assert_close(got, expected, rtol=1e-6, atol=tiny)
    torch.testing.assert_close(sched.get_last_lr(), expected, rtol=1e-6, atol=tiny)
    assert sched.base_lrs == base_lrs
    assert [group["initial_lr"] for group in opt.param_groups] == base_lrs


# test_exp_lr: targets 0.05 * 0.9 ** epoch and 0.5 * 0.9 ** epoch for the two groups; the timed call is step().
@pytest.mark.parametrize("gamma", [0.9, 0.5, 0.1, 1.0])
def test_exponential_lr_step(bench, device, gamma):
    base = [0.05, 0.5]
    opt = _optimizer(device, base)
    sched = ExponentialLR(opt, gamma=gamma)
    assert sched.last_epoch == 0
    opt.step()  # no gradients: a no-op, so that step() follows optimizer.step() as it should
    result = bench(sched.step)
    assert result is None
    assert sched.last_epoch >= 1
    _assert_lrs(opt, sched, base, gamma)


# Single group and a momentum optimizer: the scheduler only touches "lr".
def test_exponential_lr_step_single_group_momentum(bench, device):
    opt = _optimizer(device, [0.1], momentum=0.9)
    sched = ExponentialLR(opt, gamma=0.95)
    opt.step()
    bench(sched.step)
    _assert_lrs(opt, sched, [0.1], 0.95)
    assert opt.param_groups[0]["momentum"] == 0.9


# Construction: records initial_lr, sets last_epoch to 0 and leaves the lr at its base value.
@pytest.mark.parametrize("group_lrs", [[0.05, 0.5], [1.0], [0.3, 0.2, 0.01]], ids=["two_groups", "one_group", "three_groups"])
def test_exponential_lr_construct(bench, device, group_lrs):
    opt = _optimizer(device, group_lrs)
    sched = bench(ExponentialLR, opt, gamma=0.9)
    assert isinstance(sched, ExponentialLR)
    assert sched.gamma == 0.9 and sched.last_epoch == 0
    _assert_lrs(opt, sched, group_lrs, 0.9)
    # test_exp_lr, a few steps after construction: the lr decays by gamma each epoch.
    for epoch in range(1, 4):
        opt.step()
        sched.step()
        torch.testing.assert_close([g["lr"] for g in opt.param_groups],
                                   [lr * 0.9 ** epoch for lr in group_lrs], rtol=1e-6, atol=0.0)
