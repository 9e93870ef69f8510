"""torch.nn.Transformer: cases adapted from pytorch/pytorch test/test_transformers.py (test_transformer_args_check's shapes: d_model, nhead, encoder/decoder layer counts, batch-first and sequence-first src/tgt, masks of every kind; test_transformerdecoder / test_transformerencoder's small d_model=4, nhead=2 stacks with CPU atol=1e-5; test_transformer_no_batch_dim) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_Transformer: no-batch inputs, norm_first, gelu activation).

Upstream fills the parameters with deterministic values and compares with stored outputs; here the
parameters come from a seeded NumPy generator and the reference is the documented math (encoder
and decoder stacks of multi-head attention, residuals, LayerNorm and ReLU/GELU feed-forward, post-
or pre-norm, each stack closed by its LayerNorm) computed in float64 NumPy. The timed call is the
model's forward, in eval mode under no_grad and in train mode with dropout=0.
"""
import math

import numpy as np
import pytest
import torch
from torch import nn

pytestmark = pytest.mark.function("torch.nn.Transformer", decile=60, top20=False)

ATOL, RTOL = 1e-5, 1e-5  # upstream's CPU atol; rtol widened from 1e-7 for random weights
_erf = np.frompyfunc(math.erf, 1, 1)


# ---- float64 NumPy reference ------------------------------------------------------------------
def _np(t):
    return t.detach().cpu().double().numpy()


def _layer_norm(x, norm):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + norm.eps) * _np(norm.weight) + _np(norm.bias)


def _softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def _mha(attn, q_in, kv_in, attn_mask=None, key_padding_mask=None):
    """Multi-head attention, inputs batch-first (N, L, E); masks as torch takes them."""
    e, h = attn.embed_dim, attn.num_heads
    w, b = _np(attn.in_proj_weight), _np(attn.in_proj_bias)
    q = q_in @ w[:e].T + b[:e]
    k = kv_in @ w[e:2 * e].T + b[e:2 * e]
    v = kv_in @ w[2 * e:].T + b[2 * e:]
    n, lq, ls, d = q.shape[0], q.shape[1], k.shape[1], e // h

    def heads(x, length):
        return x.reshape(n, length, h, d).transpose(0, 2, 1, 3)

    scores = heads(q, lq) @ heads(k, ls).transpose(0, 1, 3, 2) / math.sqrt(d)
    if attn_mask is not None:
        mask = np.asarray(attn_mask)
        scores = np.where(mask, -np.inf, scores) if mask.dtype == bool else scores + mask
    if key_padding_mask is not None:
        scores = np.where(np.asarray(key_padding_mask)[:, None, None, :], -np.inf, scores)
    out = (_softmax(scores) @ heads(v, ls)).transpose(0, 2, 1, 3).reshape(n, lq, e)
    return out @ _np(attn.out_proj.weight).T + _np(attn.out_proj.bias)


def _activation(x, name):
    if name == "gelu":
        return 0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=np.float64))
    return np.maximum(x, 0)


def _ff(layer, y, activation):
    hidden = _activation(y @ _np(layer.linear1.weight).T + _np(layer.linear1.bias), activation)
    return hidden @ _np(layer.linear2.weight).T + _np(layer.linear2.bias)


def _encoder_layer_ref(layer, x, activation, norm_first, mask=None, kpm=None):
    if norm_first:
        y = _layer_norm(x, layer.norm1)
        x = x + _mha(layer.self_attn, y, y, mask, kpm)
        return x + _ff(layer, _layer_norm(x, layer.norm2), activation)
    x = _layer_norm(x + _mha(layer.self_attn, x, x, mask, kpm), layer.norm1)
    return _layer_norm(x + _ff(layer, x, activation), layer.norm2)


def _decoder_layer_ref(layer, x, mem, activation, norm_first, tgt_mask=None, memory_mask=None,
                       tgt_kpm=None, memory_kpm=None):
    if norm_first:
        y = _layer_norm(x, layer.norm1)
        x = x + _mha(layer.self_attn, y, y, tgt_mask, tgt_kpm)
        x = x + _mha(layer.multihead_attn, _layer_norm(x, layer.norm2), mem, memory_mask, memory_kpm)
        return x + _ff(layer, _layer_norm(x, layer.norm3), activation)
    x = _layer_norm(x + _mha(layer.self_attn, x, x, tgt_mask, tgt_kpm), layer.norm1)
    x = _layer_norm(x + _mha(layer.multihead_attn, x, mem, memory_mask, memory_kpm), layer.norm2)
    return _layer_norm(x + _ff(layer, x, activation), layer.norm3)


def _transformer_ref(model, src, tgt, activation, norm_first, src_mask=None, tgt_mask=None, memory_mask=None,
                     src_kpm=None, tgt_kpm=None, memory_kpm=None):
    """src, tgt batch-first (N, S, E) and (N, T, E)."""
    mem = src
    for layer in model.encoder.layers:
        mem = _encoder_layer_ref(layer, mem, activation, norm_first, src_mask, src_kpm)
    mem = _layer_norm(mem, model.encoder.norm)
    out = tgt
    for layer in model.decoder.layers:
        out = _decoder_layer_ref(layer, out, mem, activation, norm_first, tgt_mask, memory_mask, tgt_kpm,
                                 memory_kpm)
    return _layer_norm(out, model.decoder.norm)


# ---- helpers ------------------------------------------------------------------------------------
def _make_model(device, d_model, nhead, n_enc, n_dec, dim_ff, seed, batch_first=True, norm_first=False,
                activation="relu"):
    model = nn.Transformer(d_model, nhead, n_enc, n_dec, dim_ff, dropout=0.0, activation=activation,
                           batch_first=batch_first, norm_first=norm_first).to(device)
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                value = 1.0 + rng.uniform(-0.2, 0.2, tuple(p.shape))
            elif p.dim() > 1:
                bound = 1.0 / math.sqrt(p.shape[1])
                value = rng.uniform(-bound, bound, tuple(p.shape))
            else:
                value = rng.uniform(-0.2, 0.2, tuple(p.shape))
            p.copy_(torch.from_numpy(value))
    return model


def _input(shape, device, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32)).to(device)


def _run(bench, model, src, tgt, training, **kwargs):
    model.train(training)
    if training:
        return bench(model, src, tgt, **kwargs)
    with torch.no_grad():
        return bench(model, src, tgt, **kwargs)


def _check(result, model, src, tgt, activation="relu", norm_first=False, batch_first=True, **ref):
    assert result.dtype == tgt.dtype and result.shape == tgt.shape
    s, t = _np(src), _np(tgt)
    unbatched = s.ndim == 2
    if unbatched:
        s, t = s[None], t[None]
    elif not batch_first:
        s, t = s.transpose(1, 0, 2), t.transpose(1, 0, 2)
    expected = _transformer_ref(model, s, t, activation, norm_first, **ref)
    if unbatched:
        expected = expected[0]
    elif not batch_first:
        expected = expected.transpose(1, 0, 2)
    torch.testing.assert_close(result.detach().cpu(), torch.from_numpy(np.ascontiguousarray(expected)).float(),
                               atol=ATOL, rtol=RTOL)


# test_transformer_args_check-style shapes: d_model 4, nhead 2, 2+2 layers (and 1+3), source length
# 5 and target length 3, batch 2, batch-first and sequence-first, eval (no_grad) and train (dropout 0).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
@pytest.mark.parametrize("layers", [(2, 2), (1, 3)], ids=["2+2", "1+3"])
def test_transformer_shapes(bench, device, layers, batch_first, training):
    model = _make_model(device, 4, 2, layers[0], layers[1], 16, seed=sum(layers) + layers[0],
                        batch_first=batch_first)
    src_shape, tgt_shape = ((2, 5, 4), (2, 3, 4)) if batch_first else ((5, 2, 4), (3, 2, 4))
    src, tgt = _input(src_shape, device, 1), _input(tgt_shape, device, 2)
    result = _run(bench, model, src, tgt, training)
    _check(result, model, src, tgt, batch_first=batch_first)


# module_inputs_torch_nn_Transformer: gelu activation and norm_first.
@pytest.mark.parametrize("activation, norm_first", [("gelu", False), ("relu", True)], ids=["gelu", "norm_first"])
def test_transformer_variants(bench, device, activation, norm_first):
    model = _make_model(device, 8, 2, 2, 2, 16, seed=3, norm_first=norm_first, activation=activation)
    src, tgt = _input((3, 4, 8), device, 4), _input((3, 6, 8), device, 5)
    result = _run(bench, model, src, tgt, False)
    _check(result, model, src, tgt, activation=activation, norm_first=norm_first)


# Masks as test_transformer_args_check passes them: a causal tgt_mask (generate_square_subsequent_mask),
# key padding masks on the source, target and memory, and a bool memory_mask.
@pytest.mark.parametrize("mask", ["causal_tgt", "key_padding", "memory_mask"])
def test_transformer_masks(bench, device, mask):
    model = _make_model(device, 8, 4, 2, 2, 32, seed=6)
    src, tgt = _input((2, 5, 8), device, 7), _input((2, 4, 8), device, 8)
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
    result = _run(bench, model, src, tgt, True, **kwargs)
    _check(result, model, src, tgt, **ref)


# test_transformer_no_batch_dim: unbatched (S, E) and (T, E) inputs.
def test_transformer_no_batch_dim(bench, device):
    model = _make_model(device, 4, 2, 2, 2, 16, seed=9)
    src, tgt = _input((5, 4), device, 10), _input((3, 4), device, 11)
    result = _run(bench, model, src, tgt, False)
    _check(result, model, src, tgt)


# A larger model than upstream's (d_model 64, 8 heads, 2+2 layers of 128 hidden; 4 sequences of 16).
def test_transformer_large(bench, device):
    model = _make_model(device, 64, 8, 2, 2, 128, seed=12)
    src, tgt = _input((4, 16, 64), device, 13), _input((4, 16, 64), device, 14)
    result = _run(bench, model, src, tgt, False)
    _check(result, model, src, tgt)
