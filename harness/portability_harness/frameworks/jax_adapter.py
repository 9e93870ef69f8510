"""JAX: CPU, CUDA and TPU backends selected with JAX_PLATFORMS, so that JAX cannot fall back silently."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from .base import Adapter, DeviceUnavailable, off_device

_PLATFORM = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu"}
_COMPILE_EVENT = "backend_compile"  # part of the monitoring event JAX emits per XLA compilation


class JaxAdapter(Adapter):
    name = "jax"
    module = "jax"
    devices = ("cpu", "cuda", "tpu")

    def __init__(self) -> None:
        super().__init__()
        self._compiles: Optional[int] = None

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        # With exactly one platform named, JAX raises instead of falling back to the CPU.
        return {"JAX_PLATFORMS": _PLATFORM[device]} if device in _PLATFORM else {}

    def _setup(self) -> None:
        import jax

        if self.mode == "paper":
            jax.config.update("jax_disable_jit", True)
        try:
            devices = jax.devices()
        except RuntimeError as e:
            raise DeviceUnavailable(f"jax {jax.__version__} cannot use {self.device_kind}: {e}")
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
        if self.device_kind == "cpu":
            return super().device_model()
        return str(getattr(self.handle, "device_kind", self.handle))

    def build(self) -> Dict[str, Any]:
        import re
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

    def prepare(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Tuple[Callable[[], Any], Optional[bool]]:
        """Steady mode times the jit-compiled call (arrays traced, everything else static), as users run
        JAX in practice; a function that cannot be traced (returns a non-array, needs concrete values)
        is timed eagerly and the record says so."""
        import jax
        import numpy as np

        eager = lambda: fn(*args, **kwargs)  # noqa: E731
        if self.mode == "paper":
            return eager, False
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
        try:
            # Trace and lower only (no execution): tells whether the call is traceable at all.
            jitted.lower(*inputs)
        except Exception:
            return eager, False
        return (lambda: jitted(*inputs)), True

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
