"""torch.nn.Conv3d: cases adapted from pytorch/pytorch torch/testing/_internal/common_nn.py (the Conv3d entries of module_tests / new_module_tests run by test/test_nn.py: default, no_bias, 1x1x1_no_bias, groups, stride, stride_padding, zero_batch, dilated, dilated_strided, pad_valid, pad_same, pad_same_dilated, no_batch_dim) and test/nn/test_convolution.py (padding modes, same padding).

The module is built and its parameters are set from NumPy before timing; the timed call is the
module's forward. The reference is a direct float64 NumPy convolution (zero, circular, replicate or
reflect padding, stride, dilation, groups), compared with assert_close's defaults for the dtype.
"""
import numpy as np
import pytest
import torch

pytestmark = pytest.mark.function("torch.nn.Conv3d", decile=80, top20=False)

_NP_PAD_MODE = {"zeros": "constant", "circular": "wrap", "replicate": "edge", "reflect": "reflect"}


def _ids(value):
    return str(value).replace("torch.", "")


def _triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)


def _np_conv3d(x, w, b, stride, padding, dilation, groups, padding_mode):
    """Direct 3-D convolution (cross-correlation, as torch) in float64."""
    batched = x.ndim == 5
    if not batched:
        x = x[None]
    stride, dilation = _triple(stride), _triple(dilation)
    ksize = w.shape[2:]
    if padding == "valid":
        pads = [(0, 0)] * 3
    elif padding == "same":
        totals = [d * (k - 1) for d, k in zip(dilation, ksize)]
        pads = [(t // 2, t - t // 2) for t in totals]
    else:
        pads = [(p, p) for p in _triple(padding)]
    x = np.pad(x, [(0, 0), (0, 0)] + pads, mode=_NP_PAD_MODE[padding_mode])
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, ksize)]
    win = np.lib.stride_tricks.sliding_window_view(x, eff, axis=(2, 3, 4))
    win = win[:, :, ::stride[0], ::stride[1], ::stride[2], ::dilation[0], ::dilation[1], ::dilation[2]]
    cin_g, cout_g = x.shape[1] // groups, w.shape[0] // groups
    outs = []
    for g in range(groups):
        xg = win[:, g * cin_g:(g + 1) * cin_g]
        wg = w[g * cout_g:(g + 1) * cout_g]
        outs.append(np.einsum("ncdhwijk,ocijk->nodhw", xg, wg, optimize=True))
    out = np.concatenate(outs, axis=1)
    if b is not None:
        out = out + b[None, :, None, None, None]
    return out if batched else out[0]


def _make_conv(device, dtype, seed, *args, **kwargs):
    module = torch.nn.Conv3d(*args, **kwargs).to(device=device, dtype=dtype)
    rng = np.random.default_rng(seed)
    fan_in = module.weight[0].numel()
    bound = 1.0 / np.sqrt(fan_in)  # the scale of the default init
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(module.weight.shape))))
        if module.bias is not None:
            module.bias.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(module.bias.shape))))
    return module


def _make_input(shape, device, dtype, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(device=device, dtype=dtype)


def _check(result, module, x):
    weight = module.weight.detach().cpu().double().numpy()
    bias = None if module.bias is None else module.bias.detach().cpu().double().numpy()
    expected = _np_conv3d(x.cpu().double().numpy(), weight, bias, module.stride, module.padding,
                          module.dilation, module.groups, module.padding_mode)
    assert result.dtype == x.dtype
    assert tuple(result.shape) == expected.shape
    torch.testing.assert_close(result.detach().cpu(), torch.from_numpy(expected).to(x.dtype))


# (constructor args, constructor kwargs, input size), after common_nn's Conv3d entries.
MODULE_CASES = {
    "default": ((2, 3, (2, 3, 2)), {}, (1, 2, 4, 5, 4)),
    "no_bias": ((3, 4, (2, 3, 4), 1, 0, 1, 1, False), {}, (2, 3, 3, 4, 5)),
    "1x1x1_no_bias": ((2, 3, (1, 1, 1), 1, 0, 1, 1, False), {}, (2, 2, 3, 4, 5)),
    "groups": ((2, 4, (2, 3, 4)), {"groups": 2}, (1, 2, 4, 5, 4)),
    "stride": ((3, 4, 2, 2), {}, (2, 3, 5, 5, 5)),
    "stride_padding": ((3, 4, 2, 2, 1), {}, (2, 3, 5, 5, 5)),
    "zero_batch": ((3, 4, (2, 3, 4)), {}, (0, 3, 3, 4, 5)),
    "dilated": ((3, 4, 2, 1, 0, 2), {}, (2, 3, 5, 5, 5)),
    "dilated_strided": ((3, 4, 2, 2, 0, 2), {}, (2, 3, 5, 5, 5)),
    "pad_valid": ((3, 4, (2, 3, 4)), {"padding": "valid"}, (2, 3, 6, 5, 4)),
    "pad_same": ((3, 4, (2, 3, 4)), {"padding": "same"}, (2, 3, 6, 5, 4)),
    "pad_same_dilated": ((3, 4, (2, 3, 4)), {"padding": "same", "dilation": 2}, (2, 3, 6, 5, 4)),
    "no_batch_dim": ((3, 4, 3), {}, (3, 5, 5, 5)),
}


@pytest.mark.parametrize("name", list(MODULE_CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=_ids)
def test_conv3d_module_tests(bench, device, dtype, name):
    args, kwargs, input_size = MODULE_CASES[name]
    module = _make_conv(device, dtype, 0, *args, **kwargs)
    x = _make_input(input_size, device, dtype, 1)
    result = bench(module, x)
    _check(result, module, x)


# Non-zero padding modes (Conv3d's padding_mode), with a symmetric padding of 1 and 2.
@pytest.mark.parametrize("padding", [1, 2])
@pytest.mark.parametrize("padding_mode", ["circular", "replicate", "reflect"])
def test_conv3d_padding_modes(bench, device, padding_mode, padding):
    module = _make_conv(device, torch.float64, 2, 2, 3, 3, padding=padding, padding_mode=padding_mode)
    x = _make_input((1, 2, 4, 5, 6), device, torch.float64, 3)
    result = bench(module, x)
    _check(result, module, x)


# A larger volume than upstream's, to time a realistic 3x3x3 layer.
def test_conv3d_large(bench, device):
    module = _make_conv(device, torch.float32, 4, 8, 16, 3, padding=1)
    x = _make_input((2, 8, 16, 16, 16), device, torch.float32, 5)
    result = bench(module, x)
    _check(result, module, x)
