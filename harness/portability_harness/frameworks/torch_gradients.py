"""PyTorch's side of backward cases (backward.py): torch.autograd.grad of a function's outputs with respect to the
tensors that require grad among its arguments, and an nn.Module's own parameters that do."""
from __future__ import annotations

import copy
from typing import Any, Callable, List, Tuple

from portability_harness.backward import Plan
from portability_harness.classify import CaseError

from .base import flatten


def inputs(fn: Any, args: tuple, kwargs: dict) -> List[Any]:
    """The tensors to differentiate with respect to: the arguments' that require grad, then fn's parameters."""
    import torch

    found = [t for t in flatten((args, kwargs)) if isinstance(t, torch.Tensor) and t.requires_grad]
    if isinstance(fn, torch.nn.Module):
        found += [p for p in fn.parameters() if p.requires_grad]
    if not found:
        raise CaseError("backward: no input requires grad; make the tensors to differentiate with requires_grad=True")
    return found


def outputs(out: Any, cotangent: Callable[..., Any]) -> Tuple[List[Any], List[Any]]:
    """The outputs that carry a gradient and the fixed cotangent of each, as tensors of its dtype and device."""
    import torch

    found = [t for t in flatten(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not found:
        raise CaseError("backward: no output depends on an input that requires grad")
    if any(t.layout != torch.strided for t in found):
        raise CaseError("backward: a sparse output; differentiate its .to_dense()")
    cots = [torch.from_numpy(cotangent(i, tuple(t.shape), t.is_complex())).to(device=t.device, dtype=t.dtype)
            for i, t in enumerate(found)]
    return found, cots


def _grad(outs: List[Any], wrt: List[Any], cots: List[Any], retain: bool) -> tuple:
    import torch

    grads = torch.autograd.grad(outs, wrt, cots, retain_graph=retain, allow_unused=True)
    # An input the outputs do not depend on has a zero gradient (None from autograd).
    return tuple(torch.zeros_like(x) if g is None else g for g, x in zip(grads, wrt))


def plan(adapter: Any, fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> Plan:
    wrt = inputs(fn, args, kwargs)

    def full(*a: Any, **k: Any) -> tuple:
        outs, cots = outputs(fn(*a, **k), cotangent)
        return _grad(outs, wrt, cots, retain=False)

    def prepare(stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        ops: List[str] = []
        if adapter.compiler == "compiled":
            forward, ops = adapter.compile(fn, args, kwargs, stage)
            before = adapter.snapshot()
            out = forward()
            ops = ops + ((adapter.fallback(out, before) or {}).get("ops") or [])  # the forward's graph breaks
        else:
            out = fn(*args, **kwargs)
        outs, cots = outputs(out, cotangent)
        return (lambda: _grad(outs, wrt, cots, retain=True)), ops

    return Plan(full, args, kwargs, prepare)


def float64_copy(value: Any, memo: dict) -> Any:
    """An argument on the CPU in float64 (complex128), keeping requires_grad; the same tensor twice stays one."""
    import torch

    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            t = value.detach().to("cpu")
            if t.is_floating_point() or t.is_complex():
                t = t.to(torch.complex128 if t.is_complex() else torch.float64)
            memo[id(value)] = t.requires_grad_(value.requires_grad)
        return memo[id(value)]
    if isinstance(value, (list, tuple)):
        return (list if isinstance(value, list) else tuple)(float64_copy(v, memo) for v in value)
    if isinstance(value, dict):
        return {k: float64_copy(v, memo) for k, v in value.items()}
    return value


def float64_case(fn: Any, args: tuple, kwargs: dict) -> Tuple[Any, tuple, dict]:
    """fn, args and kwargs on the CPU in float64 (complex128): copies, so that the case's own stay as they are."""
    import torch

    memo: dict = {}
    fn64 = copy.deepcopy(fn).to("cpu", torch.float64) if isinstance(fn, torch.nn.Module) else fn
    return fn64, float64_copy(args, memo), float64_copy(kwargs, memo)


def reference(fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> List[Any]:
    """The CPU's float64 gradients of the same inputs at the same cotangents, as dense NumPy arrays."""
    import torch

    fn64, args64, kwargs64 = float64_case(fn, args, kwargs)
    with torch.enable_grad():
        outs, cots = outputs(fn64(*args64, **kwargs64), cotangent)
        grads = _grad(outs, inputs(fn64, args64, kwargs64), cots, retain=False)
    return [a for a, _ in arrays(grads)]


def arrays(grads: Any) -> List[Tuple[Any, str]]:
    """Each gradient as a dense NumPy array on the host, with the dtype it was computed in."""
    import torch

    found = []
    for g in grads:
        dense = g.to_dense() if g.layout != torch.strided else g
        host = dense.detach().cpu().resolve_conj().resolve_neg()
        dtype = str(g.dtype).replace("torch.", "")
        found.append(((host.float() if host.dtype == torch.bfloat16 else host).numpy(), dtype))
    return found
