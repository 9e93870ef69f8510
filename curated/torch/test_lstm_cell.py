"""torch.nn.LSTMCell: cases adapted from pytorch/pytorch test/test_nn.py (test_LSTM_cell: input (3, 10), hx and cx (3, 20), LSTMCell(10, 20) with and without bias, six chained steps and a backward; test_RNN_cell_no_broadcasting: mismatched sizes raise) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_LSTMCell: no-batch 1-D input, hx omitted (zeros)) as test/test_modules.py runs them (TestModule's test_forward, and test_grad and test_gradgrad: the gradients of the input, the states and the four parameters); UPSTREAM_TESTS below maps each to the cases here.

The timed call is the cell's forward. The reference is the documented LSTM step in float64 NumPy:
gates = x W_ih^T + b_ih + h W_hh^T + b_hh split into i, f, g, o; c' = sigmoid(f) c + sigmoid(i) tanh(g);
h' = sigmoid(o) tanh(c'). Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, host64, ids, to_device
from torch import nn

pytestmark = pytest.mark.function("torch.nn.LSTMCell", decile=70, top20=False)

UPSTREAM_TESTS = {
    "test/test_nn.py::TestNN::test_LSTM_cell": ["test_lstm_cell_upstream", "test_lstm_cell_backward",
                                                "test_lstm_cell_grad"],
    "test/test_nn.py::TestNN::test_RNN_cell_no_broadcasting": ["test_lstm_cell_backward"],
    "test/test_modules.py::TestModule::test_forward": ["test_lstm_cell_module_inputs", "test_lstm_cell_large"],
    "test/test_modules.py::TestModule::test_grad": ["test_lstm_cell_grad"],
    "test/test_modules.py::TestModule::test_gradgrad": ["test_lstm_cell_grad"],
}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm_cell(cell, x, h, c):
    gates = x @ host64(cell.weight_ih).T + h @ host64(cell.weight_hh).T
    if cell.bias:
        gates = gates + host64(cell.bias_ih) + host64(cell.bias_hh)
    i, f, g, o = np.split(gates, 4, axis=-1)
    c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c_new), c_new


def _check(result, cell, x, h, c):
    hy, cy = result
    batch_shape = tuple(x.shape[:-1])
    h_np = np.zeros(batch_shape + (cell.hidden_size,)) if h is None else host64(h)
    c_np = np.zeros(batch_shape + (cell.hidden_size,)) if c is None else host64(c)
    h_ref, c_ref = _np_lstm_cell(cell, host64(x), h_np, c_np)
    check_close(hy, h_ref, x.dtype)
    check_close(cy, c_ref, x.dtype)


def _cell(device, dtype, input_size, hidden_size, bias=True):
    torch.manual_seed(0)
    return nn.LSTMCell(input_size, hidden_size, bias=bias).to(device=device, dtype=dtype)


# test_LSTM_cell: input (3, 10), hx/cx (3, 20), with and without bias; float and double.
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_lstm_cell_upstream(bench, device, dtype, bias):
    rng = np.random.default_rng(0)
    cell = _cell(device, dtype, 10, 20, bias)
    x = to_device(rng.standard_normal((3, 10)), device, dtype)
    h = to_device(rng.standard_normal((3, 20)), device, dtype)
    c = to_device(rng.standard_normal((3, 20)), device, dtype)
    result = bench(cell, x, (h, c))
    _check(result, cell, x, h, c)


# module_inputs_torch_nn_LSTMCell: hx omitted (zeros), and an unbatched 1-D input with 1-D states.
@pytest.mark.parametrize("case", ["no_hx", "no_batch_dim", "no_batch_dim_no_hx"])
def test_lstm_cell_module_inputs(bench, device, case):
    rng = np.random.default_rng(1)
    cell = _cell(device, torch.float64, 5, 7)
    shape = (5,) if case.startswith("no_batch_dim") else (4, 5)
    x = to_device(rng.standard_normal(shape), device, torch.float64)
    if case == "no_batch_dim":
        h = to_device(rng.standard_normal(7), device, torch.float64)
        c = to_device(rng.standard_normal(7), device, torch.float64)
        result = bench(cell, x, (h, c))
    else:
        h = c = None
        result = bench(cell, x)
    _check(result, cell, x, h, c)


# test_LSTM_cell's gradient: (hx + cx).sum() after one step backpropagates to the input.
def test_lstm_cell_backward(bench, device):
    rng = np.random.default_rng(2)
    cell = _cell(device, torch.float64, 10, 20)
    x = to_device(rng.standard_normal((3, 10)), device, torch.float64, requires_grad=True)
    h = to_device(rng.standard_normal((3, 20)), device, torch.float64)
    c = to_device(rng.standard_normal((3, 20)), device, torch.float64)
    result = bench(cell, x, (h, c))
    _check(result, cell, x, h, c)
    (result[0] + result[1]).sum().backward()
    assert x.grad is not None and tuple(x.grad.shape) == (3, 10)
    assert cell.weight_ih.grad is not None and torch.isfinite(cell.weight_ih.grad).all()
    # test_RNN_cell_no_broadcasting (outside the timed call): a wrong hidden size is rejected.
    with pytest.raises(RuntimeError):
        cell(x.detach(), (torch.zeros((3, 21), device=device, dtype=torch.float64),) * 2)


# A larger cell, to time a realistic step: batch 64, input 256, hidden 512.
def test_lstm_cell_large(bench, device):
    rng = np.random.default_rng(3)
    cell = _cell(device, torch.float32, 256, 512)
    x = to_device(rng.standard_normal((64, 256)), device, torch.float32)
    h = to_device(rng.standard_normal((64, 512)), device, torch.float32)
    c = to_device(rng.standard_normal((64, 512)), device, torch.float32)
    result = bench(cell, x, (h, c))
    _check(result, cell, x, h, c)


# test_grad / test_gradgrad (a backward case; test_lstm_cell_backward above is a forward case that also steps back
# once): the gradients of the input, hx, cx and the four parameters through both outputs, against the CPU's float64
# ones, with gradcheck and gradgradcheck on the CPU.
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_lstm_cell_grad(backward, device, dtype, bias):
    rng = np.random.default_rng(4)
    cell = _cell(device, dtype, 4, 3, bias)
    x, h, c = (to_device(rng.standard_normal(shape), device, dtype, requires_grad=True)
               for shape in ((2, 4), (2, 3), (2, 3)))
    grads = backward(cell, x, (h, c))
    assert len(grads) == 3 + (4 if bias else 2)
    check_gradients(grads, cell, (x, (h, c)), second_order=True)
