"""TensorFlow's side of backward cases (backward.py): a GradientTape's gradient of a function with respect to its
positional arguments that are floating or complex tensors, variables or NumPy arrays."""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

from portability_harness.backward import Plan
from portability_harness.classify import CaseError


def _inexact(value: Any) -> bool:
    import numpy as np
    import tensorflow as tf

    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    return isinstance(value, (tf.Tensor, tf.Variable)) and (value.dtype.is_floating or value.dtype.is_complex)


def positions(args: tuple) -> List[int]:
    found = [i for i, a in enumerate(args) if _inexact(a)]
    if not found:
        raise CaseError("backward: no positional argument is a floating or complex tensor to differentiate")
    return found


def _gradient(fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any], persistent: bool) -> Callable[[], Any]:
    """One forward call of fn on a tape, and the call that takes the gradient from the tape."""
    import tensorflow as tf

    wrt = [args[i] for i in positions(args)]
    with tf.GradientTape(persistent=persistent) as tape:
        tape.watch(wrt)
        out = fn(*args, **kwargs)
    ys = [t for t in tf.nest.flatten(out) if _inexact(t)]
    if not ys:
        raise CaseError("backward: no output is a floating or complex tensor")
    cots = [tf.constant(cotangent(i, tuple(y.shape), y.dtype.is_complex), dtype=y.dtype) for i, y in enumerate(ys)]
    return lambda: tape.gradient(ys, wrt, output_gradients=cots, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def plan(adapter: Any, fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> Plan:
    import tensorflow as tf

    # NumPy arrays become tensors once, so that the tape watches what the calls use.
    wrt = positions(args)
    args = tuple(tf.convert_to_tensor(a) if i in wrt and not isinstance(a, (tf.Tensor, tf.Variable)) else a
                 for i, a in enumerate(args))

    def full(*a: Any, **k: Any) -> Any:
        return _gradient(fn, a, k, cotangent, persistent=False)()

    def prepare(stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        if adapter.compiler == "compiled":  # forward and backward in one XLA computation
            return adapter.compile(full, args, kwargs, stage)
        return _gradient(fn, args, kwargs, cotangent, persistent=True), []

    return Plan(full, args, kwargs, prepare)


def _widened(value: Any) -> Any:
    import tensorflow as tf

    if not _inexact(value):
        return value
    t = tf.convert_to_tensor(value)
    return tf.cast(t, tf.complex128 if t.dtype.is_complex else tf.float64)


def float64_inputs(args: tuple, kwargs: dict) -> Tuple[tuple, dict]:
    """The arguments with every floating or complex tensor, variable or array as a float64 (complex128) tensor, made
    on the current device (the reference's: the CPU)."""
    return tuple(_widened(a) for a in args), {k: _widened(v) for k, v in kwargs.items()}


def reference(fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> List[Any]:
    """The CPU's float64 gradients of the same inputs at the same cotangents, as NumPy arrays."""
    import tensorflow as tf

    with tf.device("/CPU:0"):
        args64, kwargs64 = float64_inputs(args, kwargs)
        return [a for a, _ in arrays(_gradient(fn, args64, kwargs64, cotangent, persistent=False)())]


def arrays(grads: Any) -> List[Tuple[Any, str]]:
    """Each gradient as a dense NumPy array on the host (IndexedSlices made dense), with its dtype."""
    import numpy as np
    import tensorflow as tf

    found = []
    for g in grads:
        host = tf.convert_to_tensor(g).numpy()
        found.append((host.astype(np.float32) if g.dtype == tf.bfloat16 else host, g.dtype.name))
    return found
