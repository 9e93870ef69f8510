"""Helpers that several curated PyTorch modules share (not a curated module itself: no test_ prefix).

The modules import it as `from _support import ...`; conftest.py beside it puts this folder on
sys.path. Everything here runs outside the timed call: it builds inputs before `bench(fn, *args)`
and checks results after it. Each module keeps its own cases, tolerances and upstream references.
Written for every profile's versions (PyTorch 1.12 and NumPy 1.23 on).
"""
import contextlib
import itertools

import numpy as np
import pytest
import torch

# assert_close imports torch.distributed.tensor on its first call (0.8 s on a 2-core VM): made here, while the
# cases are collected (before a repeat's start where the worker started up ahead), not in the first case's check.
torch.testing.assert_close(torch.zeros(1), torch.zeros(1))
# Likewise an optimizer's constructor imports torch._dynamo (and what it pulls in: 0.5 s, 300 modules) on first use
# in recent releases, which landed in the inputs of whichever optimizer case ran first.
torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)

# ---- ids, dtypes, devices -----------------------------------------------------------------------


def ids(value):
    """A parametrize id without the "torch." prefix: torch.float32 -> "float32"."""
    return str(value).replace("torch.", "")


def np_dtype(dtype):
    """NumPy's dtype for a torch dtype; float32 for bfloat16, which NumPy lacks."""
    if dtype == torch.bfloat16:
        return np.dtype(np.float32)
    return torch.empty(0, dtype=dtype).numpy().dtype


def need_cuda(device, prefix=""):
    """Skip the case unless the cell's device is a CUDA device."""
    if device.type != "cuda":
        pytest.skip(prefix + "needs a CUDA device: this cell's device is " + device.type)


def storage_ptr(t):
    """The address of the storage under t (untyped_storage from PyTorch 2.0, storage before)."""
    return t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") else t.storage().data_ptr()


@contextlib.contextmanager
def train_or_eval(module, training):
    """module.train(training); in eval mode the block also runs under no_grad (the inference path)."""
    module.train(training)
    with contextlib.nullcontext() if training else torch.no_grad():
        yield


# ---- inputs ---------------------------------------------------------------------------------------


def random_array(shape, dtype, seed, ints=(-9, 10), reals=None):
    """Seeded NumPy values for a tensor of torch dtype `dtype`, like upstream's make_tensor; seed is an
    int or a np.random.Generator to draw from. bool: random < 0.5; integers: rng.integers(*ints), the
    low end raised to 0 for uint8; floating: standard normal, or uniform over reals=(low, high);
    complex: the real part, then the imaginary part, drawn the same way. In np_dtype(dtype), except
    that float16 and bfloat16 come as float32 (to_device then rounds them as PyTorch does)."""
    rng = np.random.default_rng(seed)  # a Generator is returned as it is
    if dtype == torch.bool:
        return np.asarray(rng.random(shape) < 0.5)
    if not (dtype.is_floating_point or dtype.is_complex):
        low = max(ints[0], 0) if dtype == torch.uint8 else ints[0]
        return np.asarray(rng.integers(low, ints[1], size=shape).astype(np_dtype(dtype)))

    def draw():
        return rng.standard_normal(shape) if reals is None else rng.uniform(reals[0], reals[1], shape)

    values = draw()
    if dtype.is_complex:
        values = values + 1j * draw()
    half = dtype in (torch.float16, torch.bfloat16)
    return np.asarray(values.astype(np.float32 if half else np_dtype(dtype)))


def to_device(array, device, dtype=None, requires_grad=False):
    """A tensor on `device` (of `dtype` if given) holding `array` (anything np.asarray takes).

    On the host it shares the array's memory where no conversion is needed, as torch.from_numpy."""
    array = np.asarray(array)
    if any(s < 0 for s in array.strides):  # from_numpy refuses negative strides (flipped views)
        array = array.copy()
    return torch.from_numpy(array).to(device=device, dtype=dtype).requires_grad_(requires_grad)


def end_lazy_graph(device):
    """On an XLA device, cut the lazy graph built so far and run it (torch_xla.sync, xm.mark_step before 2.x), as a
    torch_xla program does after each step; nothing on other devices.

    A loop that updates a tensor in place and reads a scalar of it each iteration (an optimizer's convergence
    test) otherwise compiles, at every read, one graph holding every earlier iteration: new each time and larger."""
    if torch.device(device).type != "xla":
        return
    import torch_xla

    if hasattr(torch_xla, "sync"):
        torch_xla.sync()
    else:
        import torch_xla.core.xla_model as xm

        xm.mark_step()


def random_tensor(shape, dtype, device, seed, **ranges):
    """random_array(shape, dtype, seed, **ranges) as a tensor of `dtype` on `device`."""
    return to_device(random_array(shape, dtype, seed, **ranges), device, dtype)


# The sparse layouts upstream runs an op on (test_sparse.py's COO, test_sparse_csr.py's CSR), as marked parameters.
SPARSE = [pytest.param("sparse_coo", marks=pytest.mark.layout("sparse_coo")),
          pytest.param("sparse_csr", marks=pytest.mark.layout("sparse_csr"))]


def sparse_tensor(values, layout, device, dtype, seed):
    """`values` (a NumPy matrix) with about half of its entries zeroed, where np.random.default_rng(seed).random()
    < 0.5, as a tensor of `dtype` on `device` in `layout`: "sparse_coo" or "sparse_csr" (SPARSE's names)."""
    values = np.array(values)
    values[np.random.default_rng(seed).random(values.shape) < 0.5] = 0
    dense = to_device(values, device, dtype)
    return dense.to_sparse() if layout == "sparse_coo" else dense.to_sparse_csr()


def randn(shape, device, dtype, seed, scale=1.0, requires_grad=False):
    """Standard normal values (times scale) from np.random.default_rng(seed), as a tensor."""
    return to_device(np.random.default_rng(seed).standard_normal(shape) * scale, device, dtype, requires_grad)


def uniform(shape, device, dtype, seed, low, high, requires_grad=False):
    """Uniform values on [low, high) from np.random.default_rng(seed), as a tensor."""
    return to_device(np.random.default_rng(seed).uniform(low, high, shape), device, dtype, requires_grad)


def init_uniform(module, rng, bound=None):
    """Set module.weight, then module.bias if it has one, from rng.uniform(-bound, bound); by default
    bound = 1 / sqrt(fan_in), the scale of the default init of Linear and ConvNd."""
    if bound is None:
        bound = 1.0 / np.sqrt(module.weight[0].numel())
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(module.weight.shape))))
        if module.bias is not None:
            module.bias.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(module.bias.shape))))
    return module


# ---- host copies and checks --------------------------------------------------------------------


def host(t, widen=torch.float32):
    """A NumPy copy of tensor t on the host (detached); bfloat16, which NumPy lacks, widened to `widen`."""
    t = t.detach().cpu()
    return (t.to(widen) if t.dtype == torch.bfloat16 else t).numpy().copy()


def host64(t):
    """A float64 NumPy copy of a real tensor, for a float64 reference; None and numbers pass through."""
    return t.detach().cpu().double().numpy() if isinstance(t, torch.Tensor) else t


def check_close(result, expected, dtype, bfloat16_tol=None, **kwargs):
    """result has `dtype` and the shape of `expected`, a float64 (complex128) NumPy reference, and
    assert_close holds against the reference rounded to `dtype`; a bfloat16 result is compared in
    float64 instead (rounding the reference to bfloat16 would add an error of its own), with the
    module's bfloat16_tol=(rtol, atol) if given. kwargs go to assert_close (rtol, atol, equal_nan)."""
    expected = np.asarray(expected)
    assert result.dtype == dtype and tuple(result.shape) == expected.shape
    got, want = result.detach().cpu(), torch.from_numpy(np.array(expected, order="C"))
    if dtype == torch.bfloat16:
        if bfloat16_tol is not None:
            kwargs = dict(kwargs, rtol=bfloat16_tol[0], atol=bfloat16_tol[1])
        torch.testing.assert_close(got.double(), want.double(), **kwargs)
    else:
        torch.testing.assert_close(got, want.to(dtype), **kwargs)


def check_equal(result, expected):
    """result equals `expected` (a NumPy array) exactly, dtype included (bfloat16 read as float32)."""
    torch.testing.assert_close(torch.from_numpy(host(result)), torch.from_numpy(np.array(expected, order="C")),
                               rtol=0, atol=0)


def probs_param(p, param, dtype, device):
    """Probabilities p as a distribution's `param` argument ("probs": p itself, "logits": log p), a
    tensor of `dtype` on `device`; and p normalised over its last dim (float64), which dist.probs
    must then hold."""
    p = np.asarray(p, dtype=np.float64)
    value = torch.tensor(p if param == "probs" else np.log(p), dtype=dtype, device=device)
    return value, p / p.sum(-1, keepdims=True)


def check_sample(sample, dist, shape, dtype):
    """A sample of `shape` from distribution `dist`: shape + batch_shape + event_shape, of `dtype`, on
    the device of the distribution's parameters."""
    assert tuple(sample.shape) == tuple(shape) + tuple(dist.batch_shape) + tuple(dist.event_shape)
    assert sample.dtype == dtype and sample.device == dist.probs.device


# ---- nn references (float64 NumPy) ----------------------------------------------------------------


def ntuple(value, n):
    """A size argument as an n-tuple: (v,) * n for a single v."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def np_linear(layer, x):
    """x @ W^T + b of an nn.Linear (or any layer with weight and optional bias), in float64."""
    out = x @ host64(layer.weight).T
    return out if layer.bias is None else out + host64(layer.bias)


_NP_PAD_MODE = {"zeros": "constant", "circular": "wrap", "replicate": "edge", "reflect": "reflect"}


def np_conv(x, w, b, stride, padding, dilation, groups, padding_mode):
    """Direct N-d convolution (cross-correlation, as torch's ConvNd) in float64, N = w.ndim - 2;
    x with or without its batch dim. Each argument as the module holds it."""
    nd = w.ndim - 2
    batched = x.ndim == nd + 2
    if not batched:
        x = x[None]
    stride, dilation = ntuple(stride, nd), ntuple(dilation, nd)
    ksize = w.shape[2:]
    if padding == "valid":
        pads = [(0, 0)] * nd
    elif padding == "same":
        totals = [d * (k - 1) for d, k in zip(dilation, ksize)]
        pads = [(t // 2, t - t // 2) for t in totals]
    else:
        pads = [(p, p) for p in ntuple(padding, nd)]
    x = np.pad(x, [(0, 0), (0, 0)] + pads, mode=_NP_PAD_MODE[padding_mode])
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, ksize)]
    win = np.lib.stride_tricks.sliding_window_view(x, eff, axis=tuple(range(2, 2 + nd)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
              + tuple(slice(None, None, d) for d in dilation)]
    space, kernel = "dhw"[3 - nd:], "ijk"[:nd]
    cin_g, cout_g = x.shape[1] // groups, w.shape[0] // groups
    outs = []
    for g in range(groups):
        xg = win[:, g * cin_g:(g + 1) * cin_g]
        wg = w[g * cout_g:(g + 1) * cout_g]
        outs.append(np.einsum(f"nc{space}{kernel},oc{kernel}->no{space}", xg, wg, optimize=True))
    out = np.concatenate(outs, axis=1)
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * nd)
    return out if batched else out[0]


def conv_inputs(cls, args, kwargs, input_size, device, dtype, seed):
    """A ConvNd case: cls(*args, **kwargs) on device and dtype with its parameters from init_uniform
    (seed), and a standard normal input of input_size (seed + 1)."""
    module = cls(*args, **kwargs).to(device=device, dtype=dtype)
    init_uniform(module, np.random.default_rng(seed))
    return module, randn(input_size, device, dtype, seed + 1)


def conv_backward_inputs(cls, args, kwargs, input_size, device, dtype, seed, memory_format=torch.contiguous_format):
    """conv_inputs for a backward case: the module and the input in memory_format, the input requiring grad."""
    module, x = conv_inputs(cls, args, kwargs, input_size, device, dtype, seed)
    return module.to(memory_format=memory_format), x.contiguous(memory_format=memory_format).requires_grad_(True)


def check_conv(result, module, x):
    """A ConvNd's output against np_conv, with assert_close's defaults for the input dtype."""
    expected = np_conv(host64(x), host64(module.weight), host64(module.bias), module.stride, module.padding,
                       module.dilation, module.groups, module.padding_mode)
    check_close(result, expected, x.dtype)


# ---- optimizers -----------------------------------------------------------------------------------


def optim_params(device, dtype, seed=0, shapes=((10, 5), (10,))):
    """_test_basic_cases' weight (10, 5) and bias (10,), or `shapes`: leaf tensors on the device from
    a seeded standard normal, each with a fixed standard normal gradient (complex dtypes: the
    imaginary parts drawn after the real ones)."""
    rng = np.random.default_rng(seed)
    tensors = []
    for shape in shapes:
        value, grad = rng.standard_normal(shape), rng.standard_normal(shape)
        if dtype.is_complex:
            value = value + 1j * rng.standard_normal(shape)
            grad = grad + 1j * rng.standard_normal(shape)
        p = to_device(value, device, dtype, requires_grad=True)
        p.grad = to_device(grad, device, dtype)
        tensors.append(p)
    return tensors


# Upstream's _test_basic_cases steps an optimizer 200 times: the trail checks every step up to there.
TRAIL_STEPS = 200


class StepTrail:
    """An optimizer case's check of every step the timing took, not of the last state alone: `record`, the untimed
    setup of `bench.with_setup(trail.record, opt.step)`, keeps the picked elements of every parameter before each
    step (keyed by the step count the optimizer's state holds then) up to TRAIL_STEPS; check_replay compares each
    with a NumPy replay. The last state alone made a compiled float64 Adamax pass or fail by the sample count: it
    misses float64's tolerance after 4 to 44 steps and not after more (docs/compiled.md)."""

    def __init__(self, opt, params, limit=2048):
        self.opt, self.params = opt, list(params)
        self.picks = replay_picks(self.params, limit)
        self.seen = {}  # step count -> the picked values of every parameter after that many steps

    def steps(self, p=None):
        state = self.opt.state.get(self.params[0] if p is None else p)
        return int(state["step"]) if state and "step" in state else 0

    def picked(self):
        return [p.detach().cpu().reshape(-1)[torch.from_numpy(idx)] for p, (idx, *_) in zip(self.params, self.picks)]

    def record(self):
        step = self.steps()
        if step < TRAIL_STEPS and step not in self.seen:
            self.seen[step] = self.picked()


def replay_picks(params, limit=2048):
    """Before the timed steps, per parameter: element indices to replay (all up to `limit`, else a fixed
    sorted sample: an elementwise optimizer is checked exactly on a subset while a NumPy replay of
    many steps stays cheap), with the parameter's shape, its starting values and gradient there."""
    picks = []
    for p in params:
        n = p.numel()
        idx = np.arange(n) if n <= limit else np.sort(np.random.default_rng(n).choice(n, limit, replace=False))
        picks.append((idx, tuple(p.shape), host(p).reshape(-1)[idx], host(p.grad).reshape(-1)[idx]))
    return picks


def check_replay(result, trail, lrs, replay, **kwargs):
    """After the timed `opt.step()` calls (without a closure: `result` is None): each parameter kept its shape and
    dtype, and at the picked elements equals the NumPy replay (`replay(p0, lr, grad=g, **kwargs)`, a generator of
    the values after each step) after every step the trail saw and after the last (assert_close's defaults)."""
    assert result is None
    last = trail.steps()
    assert last >= 1
    for p, (_, shape, p0, _) in zip(trail.params, trail.picks):
        assert trail.steps(p) == last
        assert tuple(p.shape) == shape and p.dtype == torch.from_numpy(p0).dtype
    trail.seen[last] = trail.picked()
    for i, ((_, _, p0, g), lr) in enumerate(zip(trail.picks, lrs)):
        steps, expected = [], []
        for step, value in enumerate(replay(p0, lr, grad=g, **kwargs), 1):
            if step in trail.seen:
                steps.append(step)
                expected.append(value)
            if step == last:
                break
        # One comparison of the whole trail (assert_close costs 0.1 ms a call); the step only for the message.
        got, want = torch.stack([trail.seen[step][i] for step in steps]), torch.from_numpy(np.stack(expected))
        try:
            torch.testing.assert_close(got, want)
        except AssertionError:
            for step, got_then, want_then in zip(steps, got, want):
                try:
                    torch.testing.assert_close(got_then, want_then)
                except AssertionError as e:
                    raise AssertionError(f"after step {step} of {last}: {e}") from None
            raise


def replayed(steps, n):
    """The nth value (from 1) of a replay's generator of the values after each step."""
    return next(itertools.islice(steps, n - 1, None))
