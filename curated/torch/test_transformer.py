"""torch.nn.Transformer: cases adapted from pytorch/pytorch test/test_transformers.py (test_transformer_args_check's shapes: d_model, nhead, encoder/decoder layer counts, batch-first and sequence-first src/tgt, masks of every kind; test_transformerdecoder / test_transformerencoder's small d_model=4, nhead=2 stacks with CPU atol=1e-5; test_transformer_no_batch_dim) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_Transformer: no-batch inputs, norm_first, gelu activation) as test/test_modules.py runs them (TestModule's test_forward, test_grad: the gradients of src, tgt and every parameter, in train mode, and test_gradgrad); UPSTREAM_TESTS below maps each to the cases here.

Upstream fills the parameters with deterministic values and compares with stored outputs; here the
parameters come from a seeded NumPy generator and the reference is the documented math (encoder
and decoder stacks of multi-head attention, residuals, LayerNorm and ReLU/GELU feed-forward, post-
or pre-norm, each stack closed by its LayerNorm) computed in float64 NumPy. The timed call is the
model's forward, in eval mode under no_grad and in train mode with dropout=0.
"""
import numpy as np
import pytest
import torch
from _gradients import check_gradients
from _support import check_close, ids, randn, train_or_eval
from _transformer_reference import (init_transformer, np_batch_first, np_encoder_layer, np_feed_forward, np_layer_norm,
                                    np_mha)
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Transformer", decile=60, top20=False)

UPSTREAM_TESTS = {
    "test/test_transformers.py::TestTransformers::test_transformer_args_check": [
        "test_transformer_shapes", "test_transformer_masks"],
    "test/test_transformers.py::TestTransformers::test_transformerdecoder": ["test_transformer_shapes"],
    "test/test_transformers.py::TestTransformers::test_transformerencoder": ["test_transformer_shapes"],
    "test/test_transformers.py::TestTransformers::test_transformer_no_batch_dim": ["test_transformer_no_batch_dim"],
    "test/test_modules.py::TestModule::test_forward": [
        "test_transformer_variants", "test_transformer_no_batch_dim", "test_transformer_large"],
    "test/test_modules.py::TestModule::test_grad": ["test_transformer_backward"],
    "test/test_modules.py::TestModule::test_gradgrad": "the CPU's attention backward has no derivative of its own "
                                                       "(_scaled_dot_product_flash_attention_for_cpu_backward): "
                                                       "training takes the first derivative only",
}

ATOL, RTOL = 1e-5, 1e-5  # upstream's CPU atol; rtol widened from 1e-7 for random weights


# ---- float64 NumPy reference (the encoder layer and the blocks: _support) -----------------------
def _decoder_layer_ref(layer, x, mem, activation, norm_first, tgt_mask=None, memory_mask=None,
                       tgt_kpm=None, memory_kpm=None):
    if norm_first:
        y = np_layer_norm(x, layer.norm1)
        x = x + np_mha(layer.self_attn, y, y, tgt_mask, tgt_kpm)
        x = x + np_mha(layer.multihead_attn, np_layer_norm(x, layer.norm2), mem, memory_mask, memory_kpm)
        return x + np_feed_forward(layer, np_layer_norm(x, layer.norm3), activation)
    x = np_layer_norm(x + np_mha(layer.self_attn, x, x, tgt_mask, tgt_kpm), layer.norm1)
    x = np_layer_norm(x + np_mha(layer.multihead_attn, x, mem, memory_mask, memory_kpm), layer.norm2)
    return np_layer_norm(x + np_feed_forward(layer, x, activation), layer.norm3)


def _transformer_ref(model, src, tgt, activation, norm_first, src_mask=None, tgt_mask=None, memory_mask=None,
                     src_kpm=None, tgt_kpm=None, memory_kpm=None):
    """src, tgt batch-first (N, S, E) and (N, T, E)."""
    mem = src
    for layer in model.encoder.layers:
        mem = np_encoder_layer(layer, mem, activation, norm_first, src_mask, src_kpm)
    mem = np_layer_norm(mem, model.encoder.norm)
    out = tgt
    for layer in model.decoder.layers:
        out = _decoder_layer_ref(layer, out, mem, activation, norm_first, tgt_mask, memory_mask, tgt_kpm,
                                 memory_kpm)
    return np_layer_norm(out, model.decoder.norm)


# ---- helpers ------------------------------------------------------------------------------------
def _make_model(device, d_model, nhead, n_enc, n_dec, dim_ff, seed, batch_first=True, norm_first=False,
                activation="relu"):
    model = nn.Transformer(d_model, nhead, n_enc, n_dec, dim_ff, dropout=0.0, activation=activation,
                           batch_first=batch_first, norm_first=norm_first).to(device)
    return init_transformer(model, seed)


def _check(result, model, src, tgt, activation="relu", norm_first=False, batch_first=True, **ref):
    def reference(s, t):
        return _transformer_ref(model, s, t, activation, norm_first, **ref)

    check_close(result, np_batch_first(reference, [src, tgt], batch_first), tgt.dtype, atol=ATOL, rtol=RTOL)


# test_transformer_args_check-style shapes: d_model 4, nhead 2, 2+2 layers (and 1+3), source length
# 5 and target length 3, batch 2, batch-first and sequence-first, eval (no_grad) and train (dropout 0).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
@pytest.mark.parametrize("layers", [(2, 2), (1, 3)], ids=["2+2", "1+3"])
def test_transformer_shapes(bench, device, layers, batch_first, training):
    model = _make_model(device, 4, 2, layers[0], layers[1], 16, seed=sum(layers) + layers[0],
                        batch_first=batch_first)
    src_shape, tgt_shape = ((2, 5, 4), (2, 3, 4)) if batch_first else ((5, 2, 4), (3, 2, 4))
    src, tgt = randn(src_shape, device, torch.float32, 1), randn(tgt_shape, device, torch.float32, 2)
    with train_or_eval(model, training):
        result = bench(model, src, tgt)
    _check(result, model, src, tgt, batch_first=batch_first)


# module_inputs_torch_nn_Transformer: gelu activation and norm_first.
@pytest.mark.parametrize("activation, norm_first", [("gelu", False), ("relu", True)], ids=["gelu", "norm_first"])
def test_transformer_variants(bench, device, activation, norm_first):
    model = _make_model(device, 8, 2, 2, 2, 16, seed=3, norm_first=norm_first, activation=activation)
    src, tgt = randn((3, 4, 8), device, torch.float32, 4), randn((3, 6, 8), device, torch.float32, 5)
    with train_or_eval(model, False):
        result = bench(model, src, tgt)
    _check(result, model, src, tgt, activation=activation, norm_first=norm_first)


# Masks as test_transformer_args_check passes them: a causal tgt_mask (generate_square_subsequent_mask),
# key padding masks on the source, target and memory, and a bool memory_mask.
@pytest.mark.parametrize("mask", ["causal_tgt", "key_padding", "memory_mask"])
def test_transformer_masks(bench, device, mask):
    model = _make_model(device, 8, 4, 2, 2, 32, seed=6)
    src, tgt = randn((2, 5, 8), device, torch.float32, 7), randn((2, 4, 8), device, torch.float32, 8)
    kwargs, ref = {}, {}
    if mask == "causal_tgt":
        causal = np.where(np.triu(np.ones((4, 4), dtype=bool), k=1), -np.inf, 0.0).astype(np.float32)
        kwargs["tgt_mask"] = torch.from_numpy(causal).to(device)
        ref["tgt_mask"] = causal
    elif mask == "key_padding":
        src_pad = np.zeros((2, 5), dtype=bool)
        src_pad[0, -1] = src_pad[1, -2:] = True
        tgt_pad = np.zeros((2, 4), dtype=bool)
        tgt_pad[1, -1] = True
        kwargs.update(src_key_padding_mask=torch.from_numpy(src_pad).to(device),
                      tgt_key_padding_mask=torch.from_numpy(tgt_pad).to(device),
                      memory_key_padding_mask=torch.from_numpy(src_pad).to(device))
        ref.update(src_kpm=src_pad, tgt_kpm=tgt_pad, memory_kpm=src_pad)
    else:
        memory_mask = np.zeros((4, 5), dtype=bool)
        memory_mask[:, 0] = True
        memory_mask[2, 3:] = True
        kwargs["memory_mask"] = torch.from_numpy(memory_mask).to(device)
        ref["memory_mask"] = memory_mask
    model.train()
    result = bench(model, src, tgt, **kwargs)
    _check(result, model, src, tgt, **ref)


# test_transformer_no_batch_dim: unbatched (S, E) and (T, E) inputs.
def test_transformer_no_batch_dim(bench, device):
    model = _make_model(device, 4, 2, 2, 2, 16, seed=9)
    src, tgt = randn((5, 4), device, torch.float32, 10), randn((3, 4), device, torch.float32, 11)
    with train_or_eval(model, False):
        result = bench(model, src, tgt)
    _check(result, model, src, tgt)


# A larger model than upstream's (d_model 64, 8 heads, 2+2 layers of 128 hidden; 4 sequences of 16).
def test_transformer_large(bench, device):
    model = _make_model(device, 64, 8, 2, 2, 128, seed=12)
    src, tgt = randn((4, 16, 64), device, torch.float32, 13), randn((4, 16, 64), device, torch.float32, 14)
    with train_or_eval(model, False):
        result = bench(model, src, tgt)
    _check(result, model, src, tgt)


# test_grad: in train mode (dropout 0), the gradients of src, tgt and every parameter of a one-layer
# encoder and decoder, against the CPU's float64 ones, with gradcheck on the CPU. float32 through
# the stacks' LayerNorms and softmaxes at rtol 1e-4.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=ids)
def test_transformer_backward(backward, device, dtype):
    model = _make_model(device, 4, 2, 1, 1, 8, seed=13).to(dtype).train()
    src = randn((2, 3, 4), device, dtype, seed=14, requires_grad=True)
    tgt = randn((2, 2, 4), device, dtype, seed=15, requires_grad=True)
    grads = backward(model, src, tgt)
    assert len(grads) == 2 + len(list(model.parameters()))
    tolerance = {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {}
    check_gradients(grads, model, (src, tgt), **tolerance)
