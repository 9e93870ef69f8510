"""JAX's side of backward cases (backward.py): the vjp of a function with respect to its positional arguments that
are floating or complex arrays, the others closed over."""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

from portability_harness.backward import Plan
from portability_harness.classify import CaseError


def x64() -> Any:
    """A context in which JAX computes in 64 bits (jax.enable_x64 in current releases, jax.experimental's before)."""
    import jax

    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64

    return enable_x64()


def _inexact(value: Any) -> bool:
    import jax
    import jax.numpy as jnp
    import numpy as np

    return isinstance(value, (jax.Array, np.ndarray)) and bool(jnp.issubdtype(value.dtype, jnp.inexact))


def closed(fn: Any, args: tuple, kwargs: dict) -> Tuple[Callable[..., Any], list]:
    """fn as a function of its differentiable positional arguments alone, and those arguments."""
    positions = [i for i, a in enumerate(args) if _inexact(a)]
    if not positions:
        raise CaseError("backward: no positional argument is a floating or complex array to differentiate")

    def f(*primals: Any) -> Any:
        filled = list(args)
        for i, p in zip(positions, primals):
            filled[i] = p
        return fn(*filled, **kwargs)

    return f, [args[i] for i in positions]


def cotangents(out: Any, cotangent: Callable[..., Any]) -> Any:
    """The fixed cotangent of every output leaf (float0 zeros for an integer or boolean leaf, as vjp wants)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    leaves, tree = jax.tree_util.tree_flatten(out)
    cots = [jnp.asarray(cotangent(i, np.shape(leaf), jnp.iscomplexobj(leaf)), dtype=leaf.dtype) if _inexact(leaf)
            else np.zeros(np.shape(leaf), jax.dtypes.float0) for i, leaf in enumerate(leaves)]
    return jax.tree_util.tree_unflatten(tree, cots)


def _apply(vjp: Any, cot: Any) -> Any:
    return vjp(cot)


def plan(adapter: Any, fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> Plan:
    import jax

    def full(*a: Any, **k: Any) -> Any:
        f, primals = closed(fn, a, k)
        out, vjp = jax.vjp(f, *primals)
        return vjp(cotangents(out, cotangent))

    def prepare(stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        f, primals = closed(fn, args, kwargs)
        out, vjp = jax.vjp(f, *primals)
        cot = cotangents(out, cotangent)
        if adapter.compiler == "compiled":  # jit of the vjp function: the forward's residuals are its inputs
            return adapter.compile(_apply, (vjp, cot), {}, stage)
        return (lambda: vjp(cot)), []

    return Plan(full, args, kwargs, prepare)


def _float64(value: Any) -> Any:
    import jax
    import numpy as np

    if _inexact(value):
        host = np.asarray(value)
        return jax.numpy.asarray(host.astype(np.complex128 if np.iscomplexobj(host) else np.float64))
    return value


def float64_inputs(args: tuple, kwargs: dict) -> Tuple[tuple, dict]:
    """The arguments with every floating or complex array in float64 (complex128), on the default device: for use
    in x64()."""
    import jax

    return tuple(_float64(a) for a in args), jax.tree_util.tree_map(_float64, kwargs)


def reference(fn: Any, args: tuple, kwargs: dict, cotangent: Callable[..., Any]) -> List[Any]:
    """The CPU's float64 gradients of the same inputs at the same cotangents, as NumPy arrays."""
    import jax
    import numpy as np

    with x64(), jax.default_device(jax.devices("cpu")[0]):
        f, primals = closed(fn, *float64_inputs(args, kwargs))
        out, vjp = jax.vjp(f, *primals)
        return [np.asarray(g) for g in vjp(cotangents(out, cotangent))]


def arrays(grads: Any) -> List[Tuple[Any, str]]:
    """Each gradient as a NumPy array on the host, with the dtype it was computed in (bfloat16 read as float32)."""
    import numpy as np

    found = []
    for g in grads:
        host = np.asarray(g)
        found.append((host.astype(np.float32) if host.dtype.name == "bfloat16" else host, str(g.dtype)))
    return found
