"""Backward cases: the `backward` fixture (plugin.py) times a function's gradient the way training computes it, and
measures it against the CPU's float64 gradient of the same inputs.

`backward(fn, *args, **kwargs)` runs fn forward once, untimed, then times the backward call alone, by the protocol of
every case (timing.py), and returns the gradients, one per differentiable input, in order:
- PyTorch: torch.autograd.grad of fn's outputs with respect to the tensors among its arguments that require grad (and,
  where fn is an nn.Module, its parameters that do), retain_graph; compiled: the forward through torch.compile (run
  once, untimed, among the compile time), whose backward AOTAutograd compiles in the first timed call;
- JAX: the function jax.vjp returns, applied to the cotangent; compiled: jax.jit of that function (the forward's
  residuals are its inputs), traced, lowered and compiled ahead;
- TensorFlow: a persistent GradientTape's gradient; compiled: tf.function(jit_compile=True) around the tape, whose
  one call runs the forward and the backward (a tape cannot reach into a tf.function from outside).
JAX and TensorFlow differentiate with respect to the positional arguments that are floating or complex arrays; a
case closes over any other input it must not differentiate (a lambda).

The cotangent of each output is fixed (cotangent() below), so that every device and the reference use the same one.
After the timed calls the harness computes the reference, the gradient of the same inputs at the same cotangent on
the CPU in float64 (complex128), and records the gradient's distance from it as `gradient_divergence` (divergence.py,
in units in the last place of the gradient's own dtype), or {reference_failed} with the reason. The compiled axis
works as for a forward case: stages, compile time, and `divergence` from one eager computation of the same gradient.
Whether the gradient is right is the case's own check's decision (curated/<framework>/_support.py's
check_gradients): the reference at the case's tolerance, and on the CPU the framework's own finite-difference
checker.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from portability_harness import divergence
from portability_harness.classify import CaseError

# The cotangent's generator: one stream per output, so that an output's cotangent does not depend on the others'.
COTANGENT_SEED = 20240245


def cotangent(index: int, shape: Tuple[int, ...], is_complex: bool) -> Any:
    """The fixed cotangent of output `index` (in the order the framework flattens outputs): standard normal values,
    float64, or complex128 with an imaginary part drawn after the real one. Not ones: a gradient that sums or
    transposes wrongly can still be right against ones."""
    import numpy as np

    rng = np.random.default_rng([COTANGENT_SEED, index])
    values = rng.standard_normal(shape)
    # asarray: arithmetic on 0-d arrays gives NumPy scalars, which torch.from_numpy refuses
    return np.asarray(values + 1j * rng.standard_normal(shape) if is_complex else values)


@dataclass
class Plan:
    """A backward case's calls, in the shape bench times (plugin.py): `full(*args, **kwargs)` computes the gradient
    eagerly, forward and backward (the eager reference of a compiled case, the TPU model's trace and its probe);
    `prepare(stage)` runs the untimed forward and returns the call to time (the backward alone, compiled where the
    cell compiles; `stage(name)` as each compile stage begins) with the ops the compiler already ran off itself."""
    full: Callable[..., Any]
    args: tuple
    kwargs: Dict[str, Any]
    prepare: Callable[[Callable[[str], None]], Tuple[Callable[[], Any], List[str]]]


class Gradients(tuple):
    """What `backward` returns: the gradients on the cell's device (the framework's arrays, one per differentiable
    input); `cotangents`, the fixed cotangent of each output (NumPy); and `reference`, the CPU's float64 gradients of
    the same inputs (dense NumPy arrays, complex128 for complex inputs), which raises where they could not be
    computed (the record's gradient_divergence says why)."""

    def __new__(cls, grads: Any, reference: Optional[List[Any]], failure: Optional[str]) -> "Gradients":
        made = super().__new__(cls, grads)
        made._reference, made._failure = reference, failure
        return made

    @property
    def reference(self) -> List[Any]:
        if self._reference is None:
            raise CaseError(f"no CPU float64 reference gradient: {self._failure}")
        return self._reference


def framework(name: str) -> Any:
    """The framework's gradient module (frameworks/<name>_gradients.py): plan, reference and arrays."""
    return importlib.import_module(f"portability_harness.frameworks.{name}_gradients")


def fixture(adapter: Any, state: Any, timed: Callable[..., Any]) -> Callable[..., Gradients]:
    """The `backward` fixture's function for one case; `timed(prepare, fn, args, kwargs)` is bench's measurement."""
    module = framework(adapter.name)

    def backward(fn: Any, *args: Any, **kwargs: Any) -> Gradients:
        plan = module.plan(adapter, fn, args, kwargs, cotangent)
        grads = timed(plan.prepare, plan.full, plan.args, plan.kwargs)
        try:
            reference, failure = module.reference(fn, args, kwargs, cotangent), None
        except Exception as e:  # the function cannot run in float64 on the CPU: the check cannot be made
            reference, failure = None, f"{type(e).__name__}: {str(e)[:200]}"
        if not state.probing:  # the TPU model's probe hands the check a moved gradient: not this case's measure
            state.extra["gradient_divergence"] = (
                {"reference_failed": failure} if reference is None else distance(module.arrays(grads), reference))
        return Gradients(grads, reference, failure)

    return backward


def distance(got: List[Tuple[Any, str]], reference: List[Any]) -> Optional[Dict[str, Any]]:
    """divergence.measure of the device's gradients against the float64 reference, each reference array read in the
    units of the gradient's own dtype (so that 1 ulp of float32 reads as 1)."""
    import numpy as np

    if len(got) != len(reference):
        return {"mismatch": f"{len(got)} gradients, not {len(reference)}"}
    return divergence.measure([(np.asarray(r), dtype) for r, (_, dtype) in zip(reference, got)], got)
