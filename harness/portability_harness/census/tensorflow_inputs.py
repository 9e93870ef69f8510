"""The inputs of TensorFlow's census samples, built from an op's definition alone: no test database ships in the
wheel to supply them. Kept apart from census/tensorflow.py, which decides what the cases are and what an
outcome means; this only turns a recipe and a choice of dtypes into the keyword arguments of a `tf.raw_ops` call.

Data inputs (those typed by the primary attribute, or any non-integer input) get small tensors of one shape per
recipe ([2, 2], a scalar, [2], [1, 1, 1, 1] for NHWC kernels, [1, 1, 1, 1, 1], a 2 x 2 identity) with
deterministic values (1/4, 2/4, ... for numbers), so that every run and both devices see the same inputs;
integer inputs of other attributes (axes, sizes, indices, shapes) get scalars or short vectors of 0, 1 or 2,
the values least likely to be out of range; attributes without a default take a minimal value (1, [1, ...],
their first allowed string). What cannot be built raises Rejected: the generator's limit, not the framework's.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from portability_harness.census import Rejected
from portability_harness.declared.dtypes import canonical

# (data shape, data fill, shape of integer inputs, their value)
RECIPES = (
    ((2, 2), "ramp", (), 1),
    ((2, 2), "ramp", (), 0),
    ((), "ramp", (), 0),
    ((2,), "ramp", (), 0),
    ((1, 1, 1, 1), "ramp", (), 0),
    ((2, 2), "eye", (), 0),
    ((2, 2), "ramp", (2,), 1),
    ((2, 2), "ramp", (2,), 2),
    ((1, 1, 1, 1, 1), "ramp", (), 0),
)
INDEX_TYPES = ("int32", "int64")


def op_def_allowed(op_def: Any, attr: str, every: List[str]) -> List[str]:
    import tensorflow as tf

    for a in op_def.attr:
        if a.name == attr and a.allowed_values.list.type:
            return [n for n in (tf.dtypes.as_dtype(t).name for t in a.allowed_values.list.type) if n]
    return list(every)


def default_type(tf: Any, attr: Any) -> Optional[str]:
    if attr.type == "type" and attr.HasField("default_value") and attr.default_value.type:
        try:
            return canonical(tf.dtypes.as_dtype(attr.default_value.type).name)
        except (TypeError, ValueError):
            return None
    return None


def _python_name(name: str, params: set) -> Optional[str]:
    for candidate in (name, name + "_"):
        if candidate in params:
            return candidate
    return None


def _tensor(tf: Any, dtype: str, shape: Tuple[int, ...], fill: Any) -> Any:
    """A tensor of this dtype and shape: numbers 1/4, 2/4, ... (or an identity, or one integer value for an
    index input), alternating booleans, short strings."""
    import numpy as np

    n = int(np.prod(shape)) if shape else 1
    if dtype == "string":
        return tf.constant(np.array([b"a", b"b"] * n, dtype=object)[:n].reshape(shape))
    if dtype == "bool":
        return tf.constant((np.arange(n) % 2 == 0).reshape(shape))
    if isinstance(fill, int):
        values = np.full(n, fill, dtype=np.int64)
    elif fill == "eye" and len(shape) == 2 and shape[0] == shape[1]:
        values = np.eye(shape[0]).reshape(-1)
    else:
        values = (np.arange(n) % 4 + 1) * 0.25
    target = tf.dtypes.as_dtype(dtype)
    if target.is_integer:
        values = np.maximum(np.round(values * 4), 0) if not isinstance(fill, int) else values
        base = tf.constant(values.astype(np.int64).reshape(shape))
    elif target.is_complex:
        base = tf.constant((values + 0.5j * values).reshape(shape))
    else:
        base = tf.constant(values.astype(np.float64).reshape(shape))
    return tf.cast(base, target)


def input_kwargs(tf: Any, op_def: Any, params: set, types: Dict[str, List[str]], recipe: Tuple
                 ) -> Dict[str, Any]:
    from portability_harness.declared.tensorflow import primary_attr

    data_shape, fill, index_shape, index_value = recipe
    primary = primary_attr(op_def)
    kwargs: Dict[str, Any] = {}
    for arg in op_def.input_arg:
        name = _python_name(arg.name, params)
        if name is None:
            raise Rejected(f"input {arg.name} has no keyword in the wrapper")
        if arg.type_list_attr:
            dtypes = types[arg.type_list_attr]
        elif arg.type_attr:
            dtypes = types[arg.type_attr]
        else:
            dtypes = [tf.dtypes.as_dtype(arg.type).name]
        count = 1
        if arg.number_attr:
            attr = next(a for a in op_def.attr if a.name == arg.number_attr)
            count = max(2, attr.minimum if attr.has_minimum else 0)
        # An integer input not typed by the primary attribute (its own, or a fixed type) is an axis, a size,
        # a shape or an index: small values; every other input is data.
        index = arg.type_attr != primary and arg.type_list_attr != primary
        tensors = [_tensor(tf, d, index_shape, index_value) if index and d in INDEX_TYPES
                   else _tensor(tf, d, data_shape, fill) for d in (dtypes * count if arg.number_attr else dtypes)]
        kwargs[name] = tensors if (arg.number_attr or arg.type_list_attr) else tensors[0]
    inferred = {a.type_attr for a in op_def.input_arg} | {a.number_attr for a in op_def.input_arg} | \
        {a.type_list_attr for a in op_def.input_arg}
    for attr in op_def.attr:
        name = _python_name(attr.name, params)
        if name is None or attr.name in inferred:
            continue
        if attr.type in ("type", "list(type)"):
            chosen = types[attr.name]
            # A default left to the op, unless the case or an alternative (Sample's choices) picked another.
            if attr.HasField("default_value") and attr.name not in _forced(op_def, types) and (
                    attr.type != "type" or default_type(tf, attr) == chosen[0]):
                continue
            kwargs[name] = tf.dtypes.as_dtype(chosen[0]) if attr.type == "type" else [tf.dtypes.as_dtype(d) for d in chosen]
            continue
        if attr.HasField("default_value"):
            continue
        kwargs[name] = _attr_value(attr, data_shape)
    return kwargs


def _forced(op_def: Any, types: Dict[str, List[str]]) -> set:
    """Type attributes given explicitly even though they have a default: the primary one (the case's dtype)."""
    from portability_harness.declared.tensorflow import primary_attr

    primary = primary_attr(op_def)
    return {primary} if primary else set()


def _attr_value(attr: Any, data_shape: Tuple[int, ...]) -> Any:
    minimum = attr.minimum if attr.has_minimum else 0
    rank = max(1, len(data_shape))
    if attr.type == "int":
        return max(1, minimum)
    if attr.type == "float":
        return 1.0
    if attr.type == "bool":
        return False
    if attr.type == "string":
        allowed = [v.decode() if isinstance(v, bytes) else v for v in attr.allowed_values.list.s]
        return allowed[0] if allowed else ""
    if attr.type == "shape":
        return list(data_shape)
    if attr.type == "list(int)":
        return [1] * max(rank, minimum)
    if attr.type == "list(float)":
        return [1.0] * max(1, minimum)
    if attr.type == "list(string)":
        return [""] * max(1, minimum)
    if attr.type == "list(shape)":
        return [list(data_shape)] * max(1, minimum)
    if attr.type == "list(bool)":
        return [False] * max(1, minimum)
    raise Rejected(f"attribute {attr.name} of type {attr.type} has no default the generator can supply")
