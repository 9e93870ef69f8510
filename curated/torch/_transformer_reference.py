"""The float64 NumPy references of torch.nn's transformer pieces (batch-first (N, L, E) arrays), shared by the
curated Transformer, TransformerEncoderLayer and GELU modules (not a curated module itself: no test_ prefix).
Outside the timed call, like _support."""
import math

import numpy as np
import torch
from _support import host64, np_linear


def init_transformer(module, seed):
    """Seeded parameters for a Transformer or one of its layers: LayerNorm weights 1 +- 0.2, matrices
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), every other vector U(-0.2, 0.2)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name and name.endswith("weight"):
                value = 1.0 + rng.uniform(-0.2, 0.2, tuple(p.shape))
            elif p.dim() > 1:
                bound = 1.0 / math.sqrt(p.shape[1])
                value = rng.uniform(-bound, bound, tuple(p.shape))
            else:
                value = rng.uniform(-0.2, 0.2, tuple(p.shape))
            p.copy_(torch.from_numpy(value))
    return module


def np_layer_norm(x, norm):
    """nn.LayerNorm over the last dim (biased variance, then norm's weight and bias)."""
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + norm.eps) * host64(norm.weight) + host64(norm.bias)


def _np_softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def np_mha(attn, q_in, kv_in, attn_mask=None, key_padding_mask=None):
    """nn.MultiheadAttention's output; masks as torch takes them (bool: True masks, float: added)."""
    e, h = attn.embed_dim, attn.num_heads
    w, b = host64(attn.in_proj_weight), host64(attn.in_proj_bias)
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
    out = (_np_softmax(scores) @ heads(v, ls)).transpose(0, 2, 1, 3).reshape(n, lq, e)
    return out @ host64(attn.out_proj.weight).T + host64(attn.out_proj.bias)


_erf = np.frompyfunc(math.erf, 1, 1)


def np_gelu(x):
    """The exact GELU, 0.5 x (1 + erf(x / sqrt 2)), in float64."""
    return 0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=np.float64))


def np_feed_forward(layer, y, activation):
    """A transformer layer's feed-forward block: linear2(activation(linear1(y))), ReLU or exact GELU."""
    hidden = np_linear(layer.linear1, y)
    hidden = np_gelu(hidden) if activation == "gelu" else np.maximum(hidden, 0)
    return np_linear(layer.linear2, hidden)


def np_encoder_layer(layer, x, activation, norm_first, mask=None, key_padding_mask=None):
    """nn.TransformerEncoderLayer: self-attention and feed-forward blocks, post- or pre-norm."""
    if norm_first:
        y = np_layer_norm(x, layer.norm1)
        x = x + np_mha(layer.self_attn, y, y, mask, key_padding_mask)
        return x + np_feed_forward(layer, np_layer_norm(x, layer.norm2), activation)
    x = np_layer_norm(x + np_mha(layer.self_attn, x, x, mask, key_padding_mask), layer.norm1)
    return np_layer_norm(x + np_feed_forward(layer, x, activation), layer.norm2)


def np_batch_first(ref, inputs, batch_first):
    """Run ref, which takes float64 batch-first (N, L, E) arrays, on `inputs` laid out as the module
    took them (batch-first, sequence-first, or unbatched (L, E)); its output laid out the same way."""
    arrays = [host64(t) for t in inputs]
    unbatched = arrays[0].ndim == 2
    if unbatched:
        arrays = [a[None] for a in arrays]
    elif not batch_first:
        arrays = [a.transpose(1, 0, 2) for a in arrays]
    out = ref(*arrays)
    if unbatched:
        return out[0]
    return out if batch_first else out.transpose(1, 0, 2)
