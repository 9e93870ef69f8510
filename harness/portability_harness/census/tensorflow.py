"""TensorFlow's census: the kernel registry, with inputs generated from each op's definition.

No test database ships in the wheel. The declared table is the kernel registry (as in declared/tensorflow.py,
whose reading this reuses): an op is declared on a device kind for the dtypes its kernels there admit for its
primary type attribute; a case is an op and one of those dtypes (an op with no type attribute: one case of
dtype "untyped"). The census can only check that a kernel exists and launches, for inputs it generates:

Samples are input recipes, each run through the op's `tf.raw_ops` wrapper (keyword arguments, on the cell's
device), with small deterministic tensors and minimal attribute values built from the op's definition
(census/tensorflow_inputs.py says which); the other type attributes take the op's default, else an index type
for index-like attributes, else one the kernel that admits the case's dtype allows. Every recipe is
a sample: one that launches counts as run; one that the op's input validation refuses (InvalidArgument,
OutOfRange, FailedPrecondition, or the wrapper's own TypeError / ValueError) is *rejected*, which is the
generator's limit, not the framework's failure. A case whose recipes were all rejected is recorded as
skipped with category_source "generator" and the first refusal as its reason; so is an op the generator
cannot build inputs for at all (a stateful op, a resource or variant input, a function attribute, no
tf.raw_ops wrapper, a dtype it cannot make tensors of). A missing kernel (NotFound, "no OpKernel"),
Unimplemented or any other error is the framework's failure.

Checks: on the CPU, the launch itself (reference "launch"); on an accelerator, each launched recipe is run
again on the CPU and the outputs compared (atol = rtol = 1e-3; exact for integers, booleans and strings),
except for random ops (names with Random, Multinomial, Shuffle or Stateless in them).
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Tuple

from portability_harness.census import UNTYPED, Case, Options, Rejected, Sample, Unchecked
from portability_harness.census.tensorflow_inputs import (INDEX_TYPES, RECIPES, default_type, input_kwargs,
                                                          op_def_allowed)
from portability_harness.declared.dtypes import canonical

_KINDS = {"cpu": ("CPU", "DEFAULT"), "cuda": ("GPU", "DEFAULT"), "tpu": ("XLA_CPU_JIT", "TPU", "DEFAULT")}
_RANDOM = ("Random", "Multinomial", "Shuffle", "Stateless")
# Errors by which an op refuses its inputs before (or while) validating them: the generator's, not a failure.
_REJECTIONS = ("InvalidArgumentError", "OutOfRangeError", "FailedPreconditionError", "TypeError", "ValueError")
_NO_KERNEL = ("No OpKernel was registered", "Could not find device for node", "No registered",
              "Could not satisfy device specification", "kernel")
# A NotFoundError that names state the generator never builds: a file its string input names, a resource.
_NEEDS_STATE = ("No such file or directory", "Could not find resource", "does not exist")
_ALTERNATIVES = 6  # other choices of the non-primary type attributes a sample may try


class Census:
    framework = "tensorflow"

    def __init__(self, adapter: Any, device: str):
        import tensorflow as tf

        from portability_harness.declared import tensorflow as registry

        self.tf = tf
        self.adapter = adapter
        self.device = device
        self.registry = registry
        registry.compile_once(tf)  # XLA registers its JIT kernels (the tpu column) at the first compilation

    # --- cases ------------------------------------------------------------------------------------------

    def cases(self, options: Options) -> List[Case]:
        from collections import defaultdict

        from tensorflow.python.framework import kernels

        tf, reg = self.tf, self.registry
        by_op: Dict[str, Dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for k in kernels.get_all_registered_kernels().kernel:
            by_op[k.op][k.device_type].append(k)
        every = reg._every_dtype(tf)
        kind = "tpu" if self.device == "xla-cpu" else self.device
        found = []
        for op in sorted(by_op):
            if not options.wants_op(op):
                continue
            op_def = reg.op_def_of(op)
            primary = reg.primary_attr(op_def) if op_def is not None else None
            lists: Dict[str, Optional[List[str]]] = {}
            for k, types in _KINDS.items():
                defs = [kd for t in types for kd in by_op[op].get(t, ())]
                if not defs:
                    lists[k] = None
                elif primary is None:
                    lists[k] = [UNTYPED]
                else:
                    lists[k] = sorted({n for kd in defs for n in (canonical(d) or d for d in
                                                                   reg._allowed(kd, primary, op_def, every))})
            here = lists.get(kind) or []
            universe = here
            if options.undeclared and primary is not None:
                universe = sorted(set(here) | {canonical(d) or d for d in op_def_allowed(op_def, primary, every)})
            for dtype in universe:
                if not options.wants_dtype(dtype):
                    continue
                declared = {k: (dtype in v) if v is not None else False for k, v in lists.items()}
                found.append(Case(framework="tensorflow", op=op, variant="", dtype=dtype, declared=declared,
                                  rules=[], function=op, payload=(op_def, primary, by_op[op])))
        return found

    # --- samples ----------------------------------------------------------------------------------------

    def reference(self, case: Case) -> str:
        if self.device == "cpu":
            return "launch"
        return "none" if any(word in case.op for word in _RANDOM) else "cpu"

    def samples(self, case: Case) -> List[Sample]:
        """The recipes of the case; raises Rejected (with the generator's reason) when no input can be built."""
        tf = self.tf
        op_def, primary, kernel_defs = case.payload
        if op_def is None:
            raise Rejected("the op has no definition visible from Python")
        raw = getattr(tf.raw_ops, case.op, None)
        if raw is None:
            raise Rejected("the op has no tf.raw_ops wrapper (an internal op)")
        if op_def.is_stateful:
            raise Rejected("a stateful op: the generator builds no state (resources, queues, files) for it")
        for arg in list(op_def.input_arg) + list(op_def.output_arg):
            if arg.is_ref or arg.type in (tf.resource.as_datatype_enum, tf.variant.as_datatype_enum):
                raise Rejected(f"argument {arg.name} is a {'reference' if arg.is_ref else 'resource or variant'}")
        for attr in op_def.attr:
            if attr.type in ("func", "list(func)", "tensor") and not attr.HasField("default_value"):
                raise Rejected(f"attribute {attr.name} is a {attr.type} without a default")
        dtype = None if case.dtype == UNTYPED else case.dtype
        choices = self._types(case, op_def, primary, kernel_defs, dtype)
        params = set(inspect.signature(raw).parameters)
        check_kind = self.reference(case)
        return [self._sample(case, i, raw, op_def, params, choices, recipe, check_kind)
                for i, recipe in enumerate(RECIPES)]

    def _types(self, case: Case, op_def: Any, primary: Optional[str], kernel_defs: Dict[str, list],
               dtype: Optional[str]) -> List[Dict[str, List[str]]]:
        """A dtype (list) for every type attribute: the case's for the primary one, the op's default or an
        index type or what the kernel admitting the case's dtype allows for the others; then alternatives,
        each another allowed value of one other attribute. A kernel's registration often constrains only the
        primary attribute while its code fixes the others (Angle's complex128 kernel returns float64 whatever
        Tout's default says): a sample that finds no kernel tries the alternatives before it counts as failed."""
        tf, reg = self.tf, self.registry
        every = reg._every_dtype(tf)
        kind = "tpu" if self.device == "xla-cpu" else self.device
        defs = [kd for t in _KINDS.get(kind, ("CPU", "DEFAULT")) for kd in kernel_defs.get(t, ())]
        if primary is not None and dtype is not None:
            admitting = [kd for kd in defs if dtype in (canonical(d) or d for d in reg._allowed(kd, primary, op_def, every))]
            defs = admitting or defs
        kernel = defs[0] if defs else None
        chosen: Dict[str, List[str]] = {}
        others: Dict[str, List[List[str]]] = {}
        for attr in op_def.attr:
            if attr.type not in ("type", "list(type)"):
                continue
            allowed = [canonical(d) or d for d in (reg._allowed(kernel, attr.name, op_def, every) if kernel is not None
                                                   else op_def_allowed(op_def, attr.name, every))]
            if attr.name == primary and dtype is not None:
                pick = dtype
            else:
                default = default_type(tf, attr)
                index_like = any(w in attr.name.lower() for w in ("idx", "ind", "shape", "pad", "mult", "perm",
                                                                  "begin", "size", "seg", "out_idx", "ti", "tn"))
                options = ([default] if default else []) + (list(INDEX_TYPES) if index_like else []) + \
                    [dtype or "float32", "float32", "int32"]
                pick = next((o for o in options if o in allowed), allowed[0] if allowed else "float32")
            minimum = attr.minimum if attr.has_minimum else 1
            count = max(1, minimum) if attr.type == "list(type)" else 1
            chosen[attr.name] = [pick] * count
            if attr.name != primary:
                others[attr.name] = [[o] * count for o in allowed if o != pick]
        alternatives = [dict(chosen, **{name: value}) for name, values in others.items() for value in values]
        return [chosen] + alternatives[:_ALTERNATIVES]

    def _sample(self, case: Case, index: int, raw: Any, op_def: Any, params: set,
                choices: List[Dict[str, List[str]]], recipe: Tuple, check_kind: str) -> Sample:
        tf = self.tf
        adapter = self.adapter
        state: Dict[str, Any] = {}

        def build(choice: int = 0) -> Dict[str, Any]:
            if choice not in state:
                try:
                    state[choice] = input_kwargs(tf, op_def, params, choices[choice], recipe)
                except Rejected:
                    raise
                except Exception as e:  # a tensor of this dtype cannot be made here
                    raise Rejected(f"the generator could not build the inputs: {type(e).__name__}: {e}")
            return state[choice]

        def chosen() -> Dict[str, Any]:
            """The inputs with the first choice of the other type attributes that has a kernel (untimed
            probes; only where there are alternatives and the first finds none)."""
            if "chosen" not in state:
                state["chosen"] = 0
                for choice in range(len(choices) - 1):
                    try:
                        adapter.sync(raw(**build(choice)))
                        break
                    except Rejected:
                        raise
                    except Exception as e:
                        if not _no_kernel(e):
                            break
                        state["chosen"] = choice + 1
            return build(state["chosen"])

        def run(bench: Any) -> Any:
            kwargs = chosen()
            try:
                if bench is not None:
                    return bench(raw, **kwargs)
                out = raw(**kwargs)
                adapter.sync(out)
                return out
            except Exception as e:
                if _rejection(e):
                    raise Rejected(f"{type(e).__name__}: {_first(e)}") from e
                raise

        def check(out: Any) -> None:
            if check_kind != "cpu":
                if check_kind == "launch":
                    return
                raise Unchecked("random op: nothing to compare")
            try:
                with tf.device("/device:CPU:0"):
                    expected = raw(**{k: _to_cpu(tf, v) for k, v in chosen().items()})
            except Exception as e:
                raise Unchecked(f"the CPU could not run the sample: {type(e).__name__}")
            _assert_close(tf, out, expected)

        return Sample(index=index, run=run, check=check)


def _rejection(e: BaseException) -> bool:
    """The op refused the generated inputs (validation), or needs what the generator never builds (a file, a
    resource, a tensor-valued attribute eager mode cannot pass), as opposed to having no kernel or failing."""
    name = type(e).__name__
    text = str(e)
    if name == "NotFoundError":
        return any(w in text for w in _NEEDS_STATE)
    if name == "UnimplementedError":
        return "unhandled type" in text and "Attr " in text
    if name not in _REJECTIONS:
        return False
    return not (name == "InvalidArgumentError" and any(w in text for w in _NO_KERNEL[:4]))


def _no_kernel(e: BaseException) -> bool:
    """No kernel for these attribute values (another choice of the other type attributes may have one)."""
    return type(e).__name__ in ("NotFoundError", "InvalidArgumentError") and any(w in str(e) for w in _NO_KERNEL[:4])


def _first(e: BaseException) -> str:
    for line in str(e).splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def _to_cpu(tf: Any, value: Any) -> Any:
    if isinstance(value, list):
        return [_to_cpu(tf, v) for v in value]
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        with tf.device("/device:CPU:0"):
            return tf.identity(value)
    return value


def _assert_close(tf: Any, actual: Any, expected: Any) -> None:
    import numpy as np

    got = [t for t in tf.nest.flatten(actual, expand_composites=True) if hasattr(t, "numpy")]
    want = [t for t in tf.nest.flatten(expected, expand_composites=True) if hasattr(t, "numpy")]
    if len(got) != len(want):
        raise AssertionError(f"{len(got)} outputs on the device, {len(want)} on the CPU")
    for i, (a, b) in enumerate(zip(got, want)):
        x, y = a.numpy(), b.numpy()
        if x.shape != y.shape:
            raise AssertionError(f"output {i}: shape {x.shape} on the device, {y.shape} on the CPU")
        if x.dtype.kind in "fc" or a.dtype in (tf.bfloat16, tf.float16):
            np.testing.assert_allclose(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
                                       y.astype(np.complex128 if y.dtype.kind == "c" else np.float64),
                                       rtol=1e-3, atol=1e-3, equal_nan=True, err_msg=f"output {i}")
        elif not np.array_equal(x, y):
            raise AssertionError(f"output {i} differs from the CPU's")
