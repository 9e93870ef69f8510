"""torch.nn.TransformerEncoderLayer: cases adapted from pytorch/pytorch test/test_transformers.py (test_transformerencoderlayer: d_model=4, nhead=2, dim_feedforward=16, dropout=0, bsz=2, batch_first both ways, a key padding mask, CPU atol=1e-5; test_transformerencoderlayer_gelu; test_transformerencoderlayer_fast_path / norm_first variants) and torch/testing/_internal/common_modules.py (module_inputs_torch_nn_TransformerEncoderLayer: no-batch input, src_mask, norm_first, gelu activation).

Upstream fills the parameters with deterministic values and compares with stored outputs; here the
parameters come from a seeded NumPy generator and the reference is the layer's documented math
(multi-head self-attention with the masks, residuals, LayerNorm, ReLU/GELU feed-forward; post- or
pre-norm) computed in float64 NumPy. The timed call is the layer's forward, in eval mode under
no_grad (the fused fast path where the version has one) and in train mode with dropout=0.
"""
import math

import numpy as np
import pytest
import torch
from torch import nn

pytestmark = pytest.mark.function("torch.nn.TransformerEncoderLayer", decile=50, top20=False)

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


def _encoder_layer_ref(layer, x, activation, norm_first, src_mask=None, key_padding_mask=None):
    def ff(y):
        hidden = _activation(y @ _np(layer.linear1.weight).T + _np(layer.linear1.bias), activation)
        return hidden @ _np(layer.linear2.weight).T + _np(layer.linear2.bias)

    def sa(y):
        return _mha(layer.self_attn, y, y, src_mask, key_padding_mask)

    if norm_first:
        x = x + sa(_layer_norm(x, layer.norm1))
        return x + ff(_layer_norm(x, layer.norm2))
    x = _layer_norm(x + sa(x), layer.norm1)
    return _layer_norm(x + ff(x), layer.norm2)


# ---- helpers ------------------------------------------------------------------------------------
def _make_layer(device, d_model, nhead, dim_ff, seed, batch_first=True, norm_first=False, activation="relu"):
    layer = nn.TransformerEncoderLayer(d_model, nhead, dim_ff, dropout=0.0, activation=activation,
                                       batch_first=batch_first, norm_first=norm_first).to(device)
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in layer.named_parameters():
            if "norm" in name and name.endswith("weight"):
                value = 1.0 + rng.uniform(-0.2, 0.2, tuple(p.shape))
            elif p.dim() > 1:
                bound = 1.0 / math.sqrt(p.shape[1])
                value = rng.uniform(-bound, bound, tuple(p.shape))
            else:
                value = rng.uniform(-0.2, 0.2, tuple(p.shape))
            p.copy_(torch.from_numpy(value))
    return layer


def _input(shape, device, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32)).to(device)


def _run(bench, layer, x, training, **kwargs):
    layer.train(training)
    if training:
        return bench(layer, x, **kwargs)
    with torch.no_grad():
        return bench(layer, x, **kwargs)


def _check(result, layer, x, activation, norm_first, batch_first, src_mask=None, key_padding_mask=None):
    assert result.dtype == x.dtype and result.shape == x.shape
    xb = _np(x)
    unbatched = xb.ndim == 2
    if unbatched:
        xb = xb[None]
    elif not batch_first:
        xb = xb.transpose(1, 0, 2)
    expected = _encoder_layer_ref(layer, xb, activation, norm_first, src_mask, key_padding_mask)
    if unbatched:
        expected = expected[0]
    elif not batch_first:
        expected = expected.transpose(1, 0, 2)
    torch.testing.assert_close(result.detach().cpu(), torch.from_numpy(np.ascontiguousarray(expected)).float(),
                               atol=ATOL, rtol=RTOL)


# test_transformerencoderlayer: d_model 4, nhead 2, dim_feedforward 16, bsz 2; sequences of 1 and 5,
# batch_first both ways, eval (fast path) and train (dropout 0).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
@pytest.mark.parametrize("seq_len", [1, 5])
def test_encoder_layer_upstream_shapes(bench, device, seq_len, batch_first, training):
    layer = _make_layer(device, 4, 2, 16, seed=seq_len, batch_first=batch_first)
    shape = (2, seq_len, 4) if batch_first else (seq_len, 2, 4)
    x = _input(shape, device, seed=10 + seq_len)
    result = _run(bench, layer, x, training)
    _check(result, layer, x, "relu", False, batch_first)


# test_transformerencoderlayer_gelu and norm_first (pre-norm) variants.
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("activation, norm_first", [("gelu", False), ("relu", True), ("gelu", True)],
                         ids=["gelu", "norm_first", "gelu-norm_first"])
def test_encoder_layer_variants(bench, device, activation, norm_first, training):
    layer = _make_layer(device, 8, 2, 16, seed=3, norm_first=norm_first, activation=activation)
    x = _input((3, 4, 8), device, seed=4)
    result = _run(bench, layer, x, training)
    _check(result, layer, x, activation, norm_first, True)


# test_transformerencoderlayer's key padding mask (the last key of each sequence is padding) and
# module_inputs' src_mask (a causal float mask, and the same as a bool mask).
@pytest.mark.parametrize("mask", ["key_padding", "causal_float", "causal_bool"])
def test_encoder_layer_masks(bench, device, mask):
    layer = _make_layer(device, 8, 4, 32, seed=5)
    x = _input((2, 5, 8), device, seed=6)
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
    result = _run(bench, layer, x, True, **kwargs)
    _check(result, layer, x, "relu", False, True, **ref)


# module_inputs_torch_nn_TransformerEncoderLayer: an unbatched (S, E) input.
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
def test_encoder_layer_no_batch_dim(bench, device, training):
    layer = _make_layer(device, 4, 2, 16, seed=7)
    x = _input((3, 4), device, seed=8)
    result = _run(bench, layer, x, training)
    _check(result, layer, x, "relu", False, True)


# A larger layer than upstream's (d_model 64, 8 heads, 256 hidden; 8 sequences of 32).
@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
def test_encoder_layer_large(bench, device, training):
    layer = _make_layer(device, 64, 8, 256, seed=9)
    x = _input((8, 32, 64), device, seed=10)
    result = _run(bench, layer, x, training)
    _check(result, layer, x, "relu", False, True)
