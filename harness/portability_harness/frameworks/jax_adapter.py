"""JAX: CPU, CUDA and TPU backends selected with JAX_PLATFORMS, so that JAX cannot fall back silently."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from . import jax_tpu, xla_quick_compile
from .base import Adapter, DeviceUnavailable, off_device

# xla-cpu: the TPU model (tpu_model.py), JAX on its CPU backend primitive by primitive
_PLATFORM = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu", "xla-cpu": "cpu"}
_COMPILE_EVENT = "backend_compile"  # part of the monitoring event JAX emits per XLA compilation
# A host callback (pure_callback, io_callback, debug.print) lowers to a custom call whose target names it.
_CALLBACK = re.compile(r"custom_call[^@\n]*@(\w*callback\w*)")


class JaxAdapter(Adapter):
    name = "jax"
    module = "jax"
    devices = ("cpu", "cuda", "tpu", "xla-cpu")

    matmul_ops = jax_tpu.MATMUL_OPS
    transcendental_ops = jax_tpu.TRANSCENDENTAL_OPS

    def __init__(self) -> None:
        super().__init__()
        self._compiles: Optional[int] = None
        self._lowered: Optional[Tuple[int, Dict[str, Set[str]]]] = None  # (rules registered, lowered_platforms)

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        # With its platforms named, JAX raises instead of falling back to the CPU; an accelerator's cell names the
        # CPU second, for the float64 reference of backward cases (backward.py): JAX's default is the first that
        # initialises, and _setup refuses a cell whose accelerator did not.
        if device in ("cuda", "tpu"):
            return {"JAX_PLATFORMS": f"{_PLATFORM[device]},cpu"}
        if device == "xla-cpu":
            return dict({"JAX_PLATFORMS": "cpu"}, **xla_quick_compile.environment(self.name))
        return {"JAX_PLATFORMS": _PLATFORM[device]} if device in _PLATFORM else {}

    def _setup(self) -> None:
        import jax

        # Eager is the call as written with jit off, as the 2023 study ran JAX: jnp functions that jit themselves
        # inside run op by op, and a jax.jit in the case runs its function eagerly.
        jax.config.update("jax_disable_jit", self.compiler == "eager")
        try:
            devices = jax.devices()
        except RuntimeError as e:
            raise DeviceUnavailable(f"jax {jax.__version__} cannot use {self.device_kind}: {e}")
        wanted = {"cuda": "gpu", "tpu": "tpu"}.get(self.device_kind, "cpu")
        if devices[0].platform != wanted:  # JAX skips a CUDA platform it finds no GPU for, and the CPU comes first
            raise DeviceUnavailable(f"jax {jax.__version__} sees no {self.device_kind} device (its default is "
                                    f"{devices[0].platform})")
        self.handle = devices[0]
        self._count_compilations()

    def _count_compilations(self) -> None:
        try:
            from jax import monitoring
        except ImportError:
            return
        self._compiles = 0

        def listener(event: str, duration: float, **kwargs: Any) -> None:
            if _COMPILE_EVENT in event:
                self._compiles = (self._compiles or 0) + 1

        monitoring.register_event_duration_secs_listener(listener)

    def numerics(self, setting: str) -> Dict[str, Any]:
        import jax

        if setting == "strict":  # JAX's default lets a GPU use TF32 and a TPU one bfloat16 pass for float32 matmuls
            jax.config.update("jax_default_matmul_precision", "highest")
        return {"numerics": setting, "default_matmul_precision": jax.config.jax_default_matmul_precision}

    def device_model(self) -> str:
        if self.device_kind in ("cpu", "xla-cpu"):
            return super().device_model()
        return str(getattr(self.handle, "device_kind", self.handle))

    def build(self) -> Dict[str, Any]:
        from importlib import metadata

        import jaxlib

        # CUDA comes as a plugin package (jax-cuda12-plugin) in current releases, as a local version of jaxlib
        # itself (0.4.7+cuda11.cudnn86) in 2023's; with neither, whether this build has CUDA is left unknown.
        plugins = sorted({d.metadata["Name"].lower().replace("_", "-") for d in metadata.distributions()
                          if re.match(r"jax[-_]cuda\d+[-_]plugin$", (d.metadata["Name"] or "").lower())})
        local = re.search(r"\+cuda(\d+)", jaxlib.__version__)
        major = local.group(1) if local else (re.search(r"cuda(\d+)", plugins[0]).group(1) if plugins else None)
        return {"label": f"JAX with jaxlib {jaxlib.__version__}", "cuda_build": True if major else None,
                "cuda": major, "plugins": plugins, "arches": []}

    def facts(self) -> Dict[str, Any]:
        import jax
        import jaxlib

        return {"jaxlib_version": jaxlib.__version__, "jit_disabled": bool(jax.config.jax_disable_jit)}

    def synchronize(self) -> None:
        import jax

        if self.device_kind != "cpu" and hasattr(jax, "effects_barrier"):
            jax.effects_barrier()  # waits for the device's pending effects, where an async error surfaces

    def scope(self):
        import jax

        return jax.default_device(self.handle)

    def compile(self, fn: Callable[..., Any], args: tuple, kwargs: dict,
                stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        """jax.jit over the array arguments (everything else static), traced, lowered and compiled ahead of the
        first call; host callbacks in the lowered module are the ops that leave the compiler."""
        import jax
        import numpy as np

        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        dynamic = [i for i, leaf in enumerate(leaves) if isinstance(leaf, (jax.Array, np.ndarray))]

        def rebuilt(*arrays: Any) -> Any:
            filled = list(leaves)
            for i, a in zip(dynamic, arrays):
                filled[i] = a
            a, k = jax.tree_util.tree_unflatten(tree, filled)
            return fn(*a, **k)

        jitted = jax.jit(rebuilt)
        inputs = [leaves[i] for i in dynamic]
        stage("trace")
        if hasattr(jitted, "trace"):
            traced = jitted.trace(*inputs)
            stage("lower")
            lowered = traced.lower()
        else:  # releases before 0.4.30 trace and lower in one step: its failures are recorded as `trace`
            lowered = jitted.lower(*inputs)
        stage("compile")
        executable = lowered.compile()
        callbacks = sorted(set(_CALLBACK.findall(lowered.as_text())))
        return (lambda: executable(*inputs)), callbacks

    def eager(self):
        import jax

        return jax.disable_jit()

    def host_arrays(self, out: Any) -> List[Tuple[Any, str]]:
        import jax
        import numpy as np

        found = []
        for leaf in jax.tree_util.tree_leaves(out):
            if isinstance(leaf, (jax.Array, np.ndarray, np.generic)):
                try:
                    found.append((np.asarray(leaf), str(leaf.dtype)))
                except Exception:  # a typed PRNG key array has no host value
                    continue
        return found

    def sync(self, out: Any) -> None:
        import jax

        jax.block_until_ready(out)

    def fallback(self, out: Any, before: Any) -> Optional[Dict[str, Any]]:
        import jax

        devices = []
        for leaf in jax.tree_util.tree_leaves(out):
            if isinstance(leaf, jax.Array):
                devices += [str(d) for d in leaf.devices() if d != self.handle]
        return off_device(devices)

    def compilations(self) -> Optional[int]:
        return self._compiles

    # --- the TPU model (frameworks/jax_tpu.py) ---
    def executed_ops(self, call: Callable[[], Any], fn: Callable[..., Any], args: tuple,
                     kwargs: dict) -> List[Tuple[str, str]]:
        return jax_tpu.executed_ops(call)

    def tpu_gaps(self, ops: List[Tuple[str, str]]) -> List[str]:
        from jax._src.interpreters import mlir

        from portability_harness.declared.jax import lowered_platforms

        # Read once (it parses the generic rules' source), again only where a case registered rules of its own;
        # a JAX without this registry (before 0.4) names no primitive, only the dtypes a TPU lacks.
        rules = getattr(mlir, "_platform_specific_lowerings", None)
        size = len(getattr(mlir, "_lowerings", {})) + sum(map(len, (rules or {}).values()))
        if self._lowered is None or self._lowered[0] != size:
            self._lowered = (size, lowered_platforms() if rules is not None else {})
        return jax_tpu.tpu_gaps(ops, self._lowered[1])

    def perturb(self, out: Any, relative: float) -> Any:
        return jax_tpu.perturb(out, relative)
