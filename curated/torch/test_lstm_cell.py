"""torch.nn.LSTMCell: cases adapted from pytorch/pytorch test/test_nn.py (test_LSTM_cell: input (3, 10), hx and cx (3, 20), LSTMCell(10, 20) with and without bias, six chained steps and a backward; test_RNN_cell_no_broadcasting: mismatched sizes raise) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_LSTMCell: no-batch 1-D input, hx omitted (zeros)).

The timed call is the cell's forward. The reference is the documented LSTM step in float64 NumPy:
gates = x W_ih^T + b_ih + h W_hh^T + b_hh split into i, f, g, o; c' = sigmoid(f) c + sigmoid(i) tanh(g);
h' = sigmoid(o) tanh(c'). Compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch
from torch import nn

pytestmark = pytest.mark.function("torch.nn.LSTMCell", decile=70, top20=False)


def _ids(value):
    return str(value).replace("torch.", "")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm_cell(cell, x, h, c):
    w_ih = cell.weight_ih.detach().cpu().double().numpy()
    w_hh = cell.weight_hh.detach().cpu().double().numpy()
    gates = x @ w_ih.T + h @ w_hh.T
    if cell.bias:
        gates = gates + cell.bias_ih.detach().cpu().double().numpy() + cell.bias_hh.detach().cpu().double().numpy()
    i, f, g, o = np.split(gates, 4, axis=-1)
    c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c_new), c_new


def _t(array, device, dtype, requires_grad=False):
    return torch.from_numpy(np.asarray(array)).to(device=device, dtype=dtype).requires_grad_(requires_grad)


def _check(result, cell, x, h, c):
    hy, cy = result
    host = lambda t: t.detach().cpu().double().numpy()
    batch_shape = tuple(x.shape[:-1])
    h_np = np.zeros(batch_shape + (cell.hidden_size,)) if h is None else host(h)
    c_np = np.zeros(batch_shape + (cell.hidden_size,)) if c is None else host(c)
    h_ref, c_ref = _np_lstm_cell(cell, host(x), h_np, c_np)
    for got, ref in ((hy, h_ref), (cy, c_ref)):
        assert got.dtype == x.dtype and tuple(got.shape) == ref.shape
        torch.testing.assert_close(got.detach().cpu(), torch.from_numpy(ref).to(x.dtype))


def _cell(device, dtype, input_size, hidden_size, bias=True):
    torch.manual_seed(0)
    return nn.LSTMCell(input_size, hidden_size, bias=bias).to(device=device, dtype=dtype)


# test_LSTM_cell: input (3, 10), hx/cx (3, 20), with and without bias; float and double.
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=_ids)
def test_lstm_cell_upstream(bench, device, dtype, bias):
    rng = np.random.default_rng(0)
    cell = _cell(device, dtype, 10, 20, bias)
    x = _t(rng.standard_normal((3, 10)), device, dtype)
    h, c = _t(rng.standard_normal((3, 20)), device, dtype), _t(rng.standard_normal((3, 20)), device, dtype)
    result = bench(cell, x, (h, c))
    _check(result, cell, x, h, c)


# module_inputs_torch_nn_LSTMCell: hx omitted (zeros), and an unbatched 1-D input with 1-D states.
@pytest.mark.parametrize("case", ["no_hx", "no_batch_dim", "no_batch_dim_no_hx"])
def test_lstm_cell_module_inputs(bench, device, case):
    rng = np.random.default_rng(1)
    cell = _cell(device, torch.float64, 5, 7)
    shape = (5,) if case.startswith("no_batch_dim") else (4, 5)
    x = _t(rng.standard_normal(shape), device, torch.float64)
    if case == "no_batch_dim":
        h, c = _t(rng.standard_normal(7), device, torch.float64), _t(rng.standard_normal(7), device, torch.float64)
        result = bench(cell, x, (h, c))
    else:
        h = c = None
        result = bench(cell, x)
    _check(result, cell, x, h, c)


# test_LSTM_cell's gradient: (hx + cx).sum() after one step backpropagates to the input.
def test_lstm_cell_backward(bench, device):
    rng = np.random.default_rng(2)
    cell = _cell(device, torch.float64, 10, 20)
    x = _t(rng.standard_normal((3, 10)), device, torch.float64, requires_grad=True)
    h, c = _t(rng.standard_normal((3, 20)), device, torch.float64), _t(rng.standard_normal((3, 20)), device, torch.float64)
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
    x = _t(rng.standard_normal((64, 256)), device, torch.float32)
    h, c = _t(rng.standard_normal((64, 512)), device, torch.float32), _t(rng.standard_normal((64, 512)), device, torch.float32)
    result = bench(cell, x, (h, c))
    _check(result, cell, x, h, c)
