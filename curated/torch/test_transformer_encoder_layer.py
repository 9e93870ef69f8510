"""torch.nn.TransformerEncoderLayer: cases adapted from pytorch/pytorch test/test_transformers.py (test_transformerencoderlayer: d_model=4, nhead=2, dim_feedforward=16, dropout=0, bsz=2, batch_first both ways, a key padding mask, CPU atol=1e-5; test_transformerencoderlayer_gelu; test_transformerencoderlayer_fast_path / norm_first variants) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_TransformerEncoderLayer: no-batch input, src_mask, norm_first, gelu activation) as test/test_modules.py runs them (TestModule's test_forward, test_grad: the gradients of the input and every parameter, in train mode, and test_gradgrad); UPSTREAM_TESTS below maps each to the cases here.

Upstream fills the parameters with deterministic values and compares with stored outputs; here the
parameters come from a seeded NumPy generator and the reference is the layer's documented math
(multi-head self-attention with the masks, residuals, LayerNorm, ReLU/GELU feed-forward; post- or
pre-norm) computed in float64 NumPy. The timed call is the layer's forward, in eval mode under
no_grad (the fused fast path where the version has one) and in train mode with dropout=0.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, ids, randn, train_or_eval
from _transformer_reference import init_transformer, np_batch_first, np_encoder_layer
from torch import nn

pytestmark = pytest.mark.function("torch.nn.TransformerEncoderLayer", decile=50, top20=False)

UPSTREAM_TESTS = {
    "test/test_transformers.py::TestTransformers::test_transformerencoderlayer": [
        "test_encoder_layer_upstream_shapes", "test_encoder_layer_masks"],
    "test/test_transformers.py::TestTransformers::test_transformerencoderlayer_gelu": ["test_encoder_layer_variants"],
    "test/test_transformers.py::TestTransformers::test_transformerencoderlayer_fast_path": [
        "test_encoder_layer_upstream_shapes", "test_encoder_layer_large"],
    "test/test_modules.py::TestModule::test_forward": [
        "test_encoder_layer_no_batch_dim", "test_encoder_layer_variants", "test_encoder_layer_masks"],
    "test/test_modules.py::TestModule::test_grad": ["test_encoder_layer_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": "the CPU's attention backward has no derivative of its own "
                                                       "(_scaled_dot_product_flash_attention_for_cpu_backward): "
                                                       "training takes the first derivative only",
}

ATOL, RTOL = 1e-5, 1e-5  # upstream's CPU atol; rtol widened from 1e-7 for random weights


def _make_layer(device, d_model, nhead, dim_ff, seed, batch_first=True, norm_first=False, activation="relu"):
    layer = nn.TransformerEncoderLayer(d_model, nhead, dim_ff, dropout=0.0, activation=activation,
                                       batch_first=batch_first, norm_first=norm_first).to(device)
    return init_transformer(layer, seed)


def _check(result, layer, x, activation, norm_first, batch_first, src_mask=None, key_padding_mask=None):
    """The float64 NumPy reference: np_encoder_layer on the input laid out batch-first."""
    def ref(xb):
        return np_encoder_layer(layer, xb, activation, norm_first, src_mask, key_padding_mask)

    check_close(result, np_batch_first(ref, [x], batch_first), x.dtype, atol=ATOL, rtol=RTOL)


# test_transformerencoderlayer: d_model 4, nhead 2, dim_feedforward 16, bsz 2; sequences of 1 and 5,
# batch_first both ways, eval (fast path) and train (dropout 0).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
@pytest.mark.parametrize("seq_len", [1, 5])
def test_encoder_layer_upstream_shapes(bench, device, seq_len, batch_first, training):
    layer = _make_layer(device, 4, 2, 16, seed=seq_len, batch_first=batch_first)
    shape = (2, seq_len, 4) if batch_first else (seq_len, 2, 4)
    x = randn(shape, device, torch.float32, seed=10 + seq_len)
    with train_or_eval(layer, training):
        result = bench(layer, x)
    _check(result, layer, x, "relu", False, batch_first)


# test_transformerencoderlayer_gelu and norm_first (pre-norm) variants.
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("activation, norm_first", [("gelu", False), ("relu", True), ("gelu", True)],
                         ids=["gelu", "norm_first", "gelu-norm_first"])
def test_encoder_layer_variants(bench, device, activation, norm_first, training):
    layer = _make_layer(device, 8, 2, 16, seed=3, norm_first=norm_first, activation=activation)
    x = randn((3, 4, 8), device, torch.float32, seed=4)
    with train_or_eval(layer, training):
        result = bench(layer, x)
    _check(result, layer, x, activation, norm_first, True)


# test_transformerencoderlayer's key padding mask (the last key of each sequence is padding) and
# module_inputs' src_mask (a causal float mask, and the same as a bool mask).
@pytest.mark.parametrize("mask", ["key_padding", "causal_float", "causal_bool"])
def test_encoder_layer_masks(bench, device, mask):
    layer = _make_layer(device, 8, 4, 32, seed=5)
    x = randn((2, 5, 8), device, torch.float32, seed=6)
    kwargs, ref = {}, {}
    if mask == "key_padding":
        pad = np.zeros((2, 5), dtype=bool)
        pad[0, -1] = pad[1, -2:] = True
        kwargs["src_key_padding_mask"] = torch.from_numpy(pad).to(device)
        ref["key_padding_mask"] = pad
    else:
        causal = np.triu(np.ones((5, 5), dtype=bool), k=1)
        if mask == "causal_float":
            float_mask = np.where(causal, -np.inf, 0.0).astype(np.float32)
            kwargs["src_mask"] = torch.from_numpy(float_mask).to(device)
            ref["src_mask"] = float_mask
        else:
            kwargs["src_mask"] = torch.from_numpy(causal).to(device)
            ref["src_mask"] = causal
    layer.train()
    result = bench(layer, x, **kwargs)
    _check(result, layer, x, "relu", False, True, **ref)


# module_inputs_torch_nn_TransformerEncoderLayer: an unbatched (S, E) input.
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
def test_encoder_layer_no_batch_dim(bench, device, training):
    layer = _make_layer(device, 4, 2, 16, seed=7)
    x = randn((3, 4), device, torch.float32, seed=8)
    with train_or_eval(layer, training):
        result = bench(layer, x)
    _check(result, layer, x, "relu", False, True)


# A larger layer than upstream's (d_model 64, 8 heads, 256 hidden; 8 sequences of 32).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
def test_encoder_layer_large(bench, device, training):
    layer = _make_layer(device, 64, 8, 256, seed=9)
    x = randn((8, 32, 64), device, torch.float32, seed=10)
    with train_or_eval(layer, training):
        result = bench(layer, x)
    _check(result, layer, x, "relu", False, True)


# test_grad: in train mode (dropout 0), the gradients of the input and of the attention, feed-forward
# and LayerNorm parameters (post- and pre-norm, ReLU and GELU), against the CPU's float64 ones, with gradcheck on the
# CPU. float32 through two LayerNorms and a softmax at rtol 1e-4.
@pytest.mark.parametrize("activation, norm_first", [("relu", False), ("gelu", True)], ids=["relu", "gelu-norm_first"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_encoder_layer_backward(backward, device, dtype, activation, norm_first):
    layer = _make_layer(device, 4, 2, 8, seed=11, norm_first=norm_first, activation=activation).to(dtype).train()
    x = randn((2, 3, 4), device, dtype, seed=12, requires_grad=True)
    grads = backward(layer, x)
    assert len(grads) == 1 + len(list(layer.parameters()))
    tolerance = {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {}
    check_gradients(grads, layer, (x,), **tolerance)
