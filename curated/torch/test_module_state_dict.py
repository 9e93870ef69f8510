"""torch.nn.Module.state_dict: cases adapted from pytorch/pytorch test/test_nn.py (test_state_dict: a net with a Linear registered twice, a BatchNorm2d, a nested block with a bias-free Conv2d and an empty slot; keep_vars=True and prefix=; test_buffer_not_persistent: a buffer registered with persistent=False is left out of the state dict) and test/nn/test_load_state_dict.py (the state dict of one module loads into a fresh copy and gives the same forward). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `module.state_dict(...)`; it does not change the module, so the harness may call it
any number of times. Each case checks the keys and their order, that every value shares storage with
the module's own parameter or buffer (state_dict detaches, it does not copy), shapes, dtypes and
devices, the `_metadata` versions, and where it applies the values against NumPy.
"""
import numpy as np
import pytest
import torch
from _support import ids
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Module.state_dict", decile=100, top20=False,
                                  backward="returns a dict of the module's tensors (a copy of its state), no "
                                           "computation to differentiate")

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_state_dict": ["test_state_dict_nested_net", "test_state_dict_linear",
        "test_state_dict_keep_vars", "test_state_dict_prefix_destination"],
    "test/test_nn.py::TestNN::test_buffer_not_persistent": ["test_state_dict_buffers"],
    "test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict": ["test_state_dict_round_trip"],
}


def _resolve(module, key):
    obj = module
    for part in key.split("."):
        obj = getattr(obj, part)
    return obj


def _check_shares_storage(module, state):
    for key, value in state.items():
        owner = _resolve(module, key)
        assert value.data_ptr() == owner.data_ptr(), key
        assert value.shape == owner.shape and value.dtype == owner.dtype and value.device == owner.device, key


def _test_nn_net(device):
    """The net of test_state_dict: linear1 and linear2 are the same Linear(5, 5)."""
    shared = nn.Linear(5, 5)
    block = nn.Module()
    block.conv = nn.Conv2d(3, 3, 3, bias=False)
    net = nn.Module()
    net.linear1 = shared
    net.linear2 = shared
    net.bn = nn.BatchNorm2d(2)
    net.block = block
    net.add_module("empty", None)
    return net.to(device)


# test_state_dict: 10 entries; a module registered twice appears under both names; no entry for the
# missing conv bias or the None child; the metadata has one entry per module.
def test_state_dict_nested_net(bench, device):
    net = _test_nn_net(device)
    state = bench(net.state_dict)
    assert list(state) == [
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
        "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
        "block.conv.weight",
    ]
    assert len(state._metadata) == 6
    assert {"", "linear1", "linear2", "bn", "block", "block.conv"} == set(state._metadata)
    assert state._metadata["bn"]["version"] == nn.BatchNorm2d._version
    assert "block.conv.bias" not in state and "empty" not in state
    _check_shares_storage(net, state)
    assert state["linear1.weight"].data_ptr() == state["linear2.weight"].data_ptr()
    assert all(not v.requires_grad for v in state.values())  # detached, not Parameters
    assert not isinstance(state["linear1.weight"], nn.Parameter)
    np.testing.assert_array_equal(state["bn.running_var"].cpu().numpy(), np.ones(2, dtype=np.float32))
    assert state["bn.num_batches_tracked"].dtype == torch.int64 and int(state["bn.num_batches_tracked"]) == 0


# test_state_dict: a single Linear has two entries and one metadata entry.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=ids)
def test_state_dict_linear(bench, device, dtype):
    layer = nn.Linear(5, 5).to(device=device, dtype=dtype)
    state = bench(layer.state_dict)
    assert list(state) == ["weight", "bias"]
    assert len(state._metadata) == 1
    _check_shares_storage(layer, state)
    assert state["weight"].dtype == dtype and tuple(state["weight"].shape) == (5, 5)
    np.testing.assert_array_equal(state["bias"].cpu().float().numpy(), layer.bias.detach().cpu().float().numpy())


# keep_vars=True: the values are the module's own Parameters (identity, requires_grad kept).
def test_state_dict_keep_vars(bench, device):
    net = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).to(device)
    state = bench(net.state_dict, keep_vars=True)
    assert list(state) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                           "1.num_batches_tracked"]
    assert state["0.weight"] is net[0].weight and isinstance(state["0.weight"], nn.Parameter)
    assert state["1.running_mean"] is net[1].running_mean
    assert state["0.bias"].requires_grad and not state["1.running_var"].requires_grad


# prefix= prepends to every key; destination= is filled and returned.
def test_state_dict_prefix_destination(bench, device):
    net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1)).to(device)
    from collections import OrderedDict
    dest = OrderedDict()
    state = bench(net.state_dict, destination=dest, prefix="model.")
    assert state is dest
    assert list(state) == ["model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"]
    assert not hasattr(state, "_metadata")  # metadata is only kept on a dict that has the attribute
    for key, value in state.items():
        assert value.data_ptr() == _resolve(net, key[len("model."):]).data_ptr()


class _WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.arange(6, dtype=torch.float32).reshape(2, 3))
        self.register_buffer("persistent_buf", torch.full((3,), 2.0))
        self.register_buffer("scratch", torch.zeros(3), persistent=False)
        self.register_buffer("nothing", None)
        self.plain_attribute = torch.ones(1)


# register_buffer(persistent=False), a None buffer and a plain tensor attribute are not saved.
def test_state_dict_buffers(bench, device):
    module = _WithBuffers().to(device)
    state = bench(module.state_dict)
    assert list(state) == ["weight", "persistent_buf"]
    _check_shares_storage(module, state)
    np.testing.assert_array_equal(state["weight"].cpu().numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(state["persistent_buf"].cpu().numpy(), np.full(3, 2.0, dtype=np.float32))


# test_load_state_dict: the state dict loads into a fresh module, which then computes the same output.
def test_state_dict_round_trip(bench, device):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 4))
    net = net.to(device)
    x = torch.randn(2, 3, 8, 8, device=device)
    net.train()
    net(x)  # updates the BatchNorm running statistics, so the buffers carry state
    net.eval()
    state = bench(net.state_dict)
    assert len(state) == 9 and int(state["1.num_batches_tracked"]) == 1
    fresh = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 6 * 6, 4)).to(device).eval()
    result = fresh.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys
    with torch.no_grad():
        torch.testing.assert_close(fresh(x), net(x))
