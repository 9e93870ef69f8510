"""The checks of PyTorch's backward cases (docs/curated-cases.md): a case's gradients against the CPU's float64 gradient
of the same inputs, and on the CPU the framework's own finite-difference checkers, as upstream checks gradients.

Not a curated module (no test_ prefix): modules import it as `from _gradients import check_gradients`. The harness
(portability_harness.backward) computes the gradients and their float64 reference; this is the case's side.
"""
import inspect
import os

import pytest
import torch
from portability_harness.backward import cotangent
from portability_harness.frameworks.base import flatten
from portability_harness.frameworks.torch_gradients import float64_case
from portability_harness.frameworks.torch_gradients import inputs as gradient_inputs
from portability_harness.frameworks.torch_gradients import outputs as gradient_outputs
from portability_harness.protocol import ENV_CONFIG, Config


# assert_close's default tolerances per dtype, for a gradient compared in float64 with the float64 reference.
_GRAD_TOL = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5),
             torch.complex64: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7), torch.complex128: (1e-7, 1e-7)}


# A module's forward with the given parameters: torch.func from PyTorch 2.0, torch.nn.utils.stateless before (the
# paper2023 profile's 1.12).
functional_call = torch.func.functional_call if hasattr(torch, "func") else torch.nn.utils.stateless.functional_call

# gradcheck's masked semantics for sparse inputs (the gradient only at the specified elements) are `masked` from
# PyTorch 2.0 on, `check_sparse_nnz` before.
_MASKED = "masked" if "masked" in inspect.signature(torch.autograd.gradcheck).parameters else "check_sparse_nnz"


def seeded_on_cpu(fn, device, seed):
    """fn with torch's generator seeded before every call, for a random function's backward case (dropout): the
    case's call, its float64 reference and gradcheck's evaluations then draw the same mask, which the CPU does in
    every floating dtype. Skips on another device and under the compiled axis, whose generators (the device's,
    TorchInductor's own) draw another mask than the eager CPU's float64 reference does."""
    if device.type != "cpu":
        pytest.skip(f"a random mask: {device.type}'s generator draws another than the CPU's float64 reference does")
    if Config.read(os.environ[ENV_CONFIG]).compiler != "eager":
        pytest.skip("a random mask: the compiled call draws another than the eager CPU's float64 reference does")

    def call(*args, **kwargs):
        torch.manual_seed(seed)
        return fn(*args, **kwargs)

    return call


def _dense64(t):
    t = (t.to_dense() if t.layout != torch.strided else t).detach().cpu()
    return t.to(torch.complex128 if t.is_complex() else torch.float64)


def check_gradients(grads, fn, args, kwargs=None, rtol=None, atol=None, second_order=False, masked=False):
    """The check of a backward case, after grads = backward(fn, *args, **kwargs): each gradient against the CPU's
    float64 gradient of the same inputs (grads.reference), at rtol/atol (assert_close's defaults for the gradient's
    dtype when not given); on the CPU, also torch.autograd.gradcheck of fn in float64 (fast mode, as upstream runs
    it), and gradgradcheck with
    second_order, as upstream's OpInfo tests do (test_ops.py's test_fn_grad and test_fn_gradgrad); on another
    device with second_order, the device's second derivative against the CPU's float64 one. masked: gradcheck's
    masked semantics for sparse inputs (the gradient only at the specified elements), where upstream asks for it."""
    kwargs = kwargs or {}
    assert len(grads) == len(grads.reference), f"{len(grads)} gradients, {len(grads.reference)} in the reference"
    for g, want in zip(grads, grads.reference):
        default = _GRAD_TOL.get(g.dtype, (0.0, 0.0))
        torch.testing.assert_close(_dense64(g), torch.from_numpy(want), rtol=default[0] if rtol is None else rtol,
                                   atol=default[1] if atol is None else atol)
    fn64, args64, kwargs64 = float64_case(fn, args, kwargs)
    if grads[0].device.type == "cpu":
        f, wrt = _of_inputs(fn64, args64, kwargs64)
        # Fast mode, as upstream's tests run gradcheck by default (common_utils.gradcheck): a random projection of
        # the Jacobians, not every element. Batched gradients do not take sparse inputs (test_sparse.py alike).
        sparse = any(x.layout != torch.strided for x in wrt)
        options = {_MASKED: masked, "check_batched_grad": False} if sparse else {}
        torch.autograd.gradcheck(f, wrt, fast_mode=True, **options)  # raises GradcheckError with both Jacobians
        if second_order:
            torch.autograd.gradgradcheck(f, wrt, fast_mode=True)
    elif second_order:
        got = _second_derivative(fn, args, kwargs)
        for g, want in zip(got, _second_derivative(fn64, args64, kwargs64)):
            default = _GRAD_TOL.get(g.dtype, (0.0, 0.0))
            torch.testing.assert_close(_dense64(g), _dense64(want), rtol=default[0] if rtol is None else rtol,
                                       atol=default[1] if atol is None else atol)


def check_conv_gradients(grads, module, x, second_order=True):
    """check_gradients of a ConvNd case (test_modules.py's test_grad, test_gradgrad with second_order): the gradients
    of the input, the weight and the bias; float32 at rtol 1e-5, as a convolution's sums may be ordered differently."""
    assert len(grads) == 2 + (module.bias is not None), f"{len(grads)} gradients: the input's, the weight's, the bias's"
    check_gradients(grads, module, (x,), rtol=1e-5 if x.dtype == torch.float32 else None, second_order=second_order)


def _of_inputs(fn, args, kwargs):
    """fn as a function of its gradient inputs (in the harness's order: the arguments that require grad, then an
    nn.Module's parameters that do), and those inputs: what gradcheck takes."""
    found = [t for t in flatten((args, kwargs)) if isinstance(t, torch.Tensor) and t.requires_grad]
    params = [(n, p) for n, p in fn.named_parameters() if p.requires_grad] if isinstance(fn, torch.nn.Module) else []

    def f(*xs):
        swap = {id(t): x for t, x in zip(found, xs)}
        a, k = _swapped(args, swap), _swapped(kwargs, swap)
        if not params:
            return fn(*a, **k)
        return functional_call(fn, {n: x for (n, _), x in zip(params, xs[len(found):])}, a, k)

    return f, tuple(found + [p for _, p in params])


def _swapped(value, swap):
    if isinstance(value, torch.Tensor):
        return swap.get(id(value), value)
    if isinstance(value, (list, tuple)):
        return (list if isinstance(value, list) else tuple)(_swapped(v, swap) for v in value)
    if isinstance(value, dict):
        return {k: _swapped(v, swap) for k, v in value.items()}
    return value


def _second_derivative(fn, args, kwargs):
    """The derivative of <gradient, v> with respect to the inputs, v fixed: a Hessian-vector product at the harness's
    cotangents (the second derivative upstream's gradgradcheck checks)."""
    wrt = gradient_inputs(fn, args, kwargs)
    outs, cots = gradient_outputs(fn(*args, **kwargs), cotangent)
    first = torch.autograd.grad(outs, wrt, cots, create_graph=True, allow_unused=True)
    connected = [g for g in first if g is not None and g.requires_grad]
    vs = [torch.from_numpy(cotangent(1000 + i, tuple(g.shape), g.is_complex())).to(g.device, g.dtype)
          for i, g in enumerate(connected)]
    second = torch.autograd.grad(connected, wrt, vs, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for g, x in zip(second, wrt)]
