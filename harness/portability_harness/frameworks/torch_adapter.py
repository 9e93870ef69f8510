"""PyTorch: CPU, CUDA, and XLA devices through torch_xla with PJRT (`tpu`, `xla-cpu`)."""
from __future__ import annotations

import os
import shutil
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import torch_tpu, xla_quick_compile
from .base import Adapter, DeviceUnavailable, flatten, off_device


class TorchAdapter(Adapter):
    name = "torch"
    module = "torch"
    devices = ("cpu", "cuda", "tpu", "xla-cpu")
    matmul_ops = torch_tpu.MATMUL_OPS
    transcendental_ops = torch_tpu.TRANSCENDENTAL_OPS

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        if device == "tpu":
            return xla_runtime(_installed("torch_xla"))
        # PJRT picks its device from this variable when torch_xla is imported.
        if device == "xla-cpu":
            return dict({"PJRT_DEVICE": "CPU"}, **xla_quick_compile.environment(self.name))
        return {}

    @property
    def xla(self) -> bool:
        return self.device_kind in ("tpu", "xla-cpu")

    def _setup(self) -> None:
        import torch

        if self.device_kind == "cpu":
            self.handle = torch.device("cpu")
        elif self.device_kind == "cuda":
            if not torch.cuda.is_available():
                raise DeviceUnavailable(
                    f"torch {torch.__version__} sees no CUDA device (built for CUDA {torch.version.cuda})"
                )
            self.handle = torch.device("cuda", 0)
        else:
            try:
                import torch_xla.core.xla_model as xm
            except ImportError as e:
                raise DeviceUnavailable(f"torch_xla is not installed: {e}")
            self.handle = xm.xla_device()
            hw = xm.xla_device_hw(self.handle)
            wanted = "TPU" if self.device_kind == "tpu" else "CPU"
            if hw != wanted:
                raise DeviceUnavailable(f"torch_xla selected a {hw} device, not {wanted} (PJRT_DEVICE={os.environ.get('PJRT_DEVICE')})")

    def numerics(self, setting: str) -> Dict[str, Any]:
        import torch

        if setting == "strict":  # TF32 rounds float32 matmuls and convolutions to a 10-bit mantissa on Ampere+
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        return {"numerics": setting, "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32}

    def device_model(self) -> str:
        import torch

        if self.device_kind == "cuda":
            return torch.cuda.get_device_name(self.handle)
        if self.device_kind == "tpu":
            return "TPU " + os.environ.get("TPU_ACCELERATOR_TYPE", "")
        return super().device_model()

    def facts(self) -> Dict[str, Any]:
        import torch

        facts: Dict[str, Any] = {"cuda_runtime": torch.version.cuda}
        if self.xla:
            import torch_xla

            facts["torch_xla_version"] = torch_xla.__version__
        return facts

    def build(self) -> Dict[str, Any]:
        import torch

        cuda = torch.version.cuda
        # get_arch_list() answers [] without a usable GPU; the build's own flags answer on any machine.
        flags = getattr(torch._C, "_cuda_getArchFlags", None)
        facts: Dict[str, Any] = {"label": f"PyTorch {torch.__version__}", "cuda_build": cuda is not None,
                                 "cuda": cuda, "arches": (flags() or "").split() if cuda and flags else []}
        try:
            facts["cudnn"] = torch.backends.cudnn.version() if cuda else None
        except Exception:  # loading libcudnn can fail where no driver is installed; the fact is then unknown
            facts["cudnn"] = None
        return facts

    def sync(self, out: Any) -> None:
        import torch

        if self.device_kind == "cuda":
            torch.cuda.synchronize(self.handle)
        elif self.xla:
            import torch_xla
            import torch_xla.core.xla_model as xm

            # torch_xla.sync() replaced xm.mark_step(); either cuts the lazy graph and launches it.
            (torch_xla.sync if hasattr(torch_xla, "sync") else xm.mark_step)()
            xm.wait_device_ops()

    def synchronize(self) -> None:
        if self.device_kind == "cuda" or self.xla:
            self.sync(None)

    # torch.compile traces (TorchDynamo), compiles (the backend) and runs in the function's first call.
    compiles_on_first_call = True

    def compiler_missing(self) -> Optional[str]:
        import torch

        from portability_harness.compat import compiler_reason

        too_old = compiler_reason("torch", torch.__version__)
        if too_old:
            return too_old
        if self.device_kind == "cpu" and not any(shutil.which(c) for c in ("g++", "c++", "clang++")):
            return ("torch.compile's default backend (inductor) builds C++ for the CPU and this environment has no "
                    "C++ compiler (g++, c++ or clang++ on PATH); install one")
        return None

    def compile(self, fn: Callable[..., Any], args: tuple, kwargs: dict,
                stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        """torch.compile with the default backend (inductor) on CPU and CUDA, torch_xla's openxla on an XLA
        device. A fresh Python function wraps fn so that Dynamo has a frame to trace (a builtin has none, and
        compiling it would run it eagerly), and Dynamo's caches are reset so that earlier cases' entries can
        never push this one past its recompilation limit, where Dynamo runs the frame eagerly without a word."""
        import torch

        torch._dynamo.reset()

        def case_function(*a: Any, **k: Any) -> Any:
            return fn(*a, **k)

        compiled = torch.compile(case_function, backend="openxla" if self.xla else "inductor")
        stage("trace")
        return (lambda: compiled(*args, **kwargs)), []

    def failed_stage(self, error: BaseException, stage: str) -> str:
        if stage not in ("trace", "compile"):
            return stage
        # Dynamo and the backend raise their own types; anything else came from running the function.
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & {"BackendCompilerFailed", "InductorError", "LoweringException", "CppCompileError"}:
            return "compile"
        if names & {"Unsupported", "UserError", "TorchRuntimeError", "InternalTorchDynamoError", "UncapturedHigherOrderOpError"}:
            return "trace"
        return "execute"

    def host_arrays(self, out: Any) -> List[Tuple[Any, str]]:
        import torch

        found = []
        for t in flatten(out):
            if isinstance(t, torch.Tensor) and t.layout == torch.strided:
                host = t.detach().cpu().resolve_conj().resolve_neg()
                dtype = str(t.dtype).replace("torch.", "")
                if host.dtype in (torch.bfloat16,) or "float8" in dtype:
                    host = host.float()  # NumPy has no bfloat16: its values are exact in float32
                try:
                    found.append((host.numpy(), dtype))
                except (TypeError, RuntimeError):  # quantized and other dtypes NumPy cannot hold
                    continue
        return found

    def _graph_breaks(self) -> Dict[str, int]:
        from torch._dynamo.utils import counters

        return dict(counters["graph_break"])

    def _xla_counters(self) -> Dict[str, int]:
        import torch_xla.debug.metrics as met

        return {name: met.counter_value(name) for name in met.counter_names()}

    def snapshot(self) -> Any:
        return {"xla": self._xla_counters() if self.xla else {},
                "breaks": self._graph_breaks() if self.compiler == "compiled" else {}}

    def fallback(self, out: Any, before: Any) -> Optional[Dict[str, Any]]:
        import torch

        devices = [str(t.device) for t in flatten(out) if isinstance(t, torch.Tensor) and t.device != self.handle]
        found = off_device(devices)
        before = before or {"xla": {}, "breaks": {}}
        ops: List[str] = []
        if self.xla:
            # torch_xla counts every op it ran on the CPU instead under an "aten::" counter.
            ops += sorted(k for k, v in self._xla_counters().items() if k.startswith("aten::")
                          and v > before["xla"].get(k, 0))
        if self.compiler == "compiled":
            # A graph break runs the code around it eagerly, off the compiler; Dynamo counts each by its reason.
            ops += sorted("graph break: " + k.strip().splitlines()[0][:200] for k, v in self._graph_breaks().items()
                          if v > before["breaks"].get(k, 0))
        return dict(found or {}, ops=ops) if ops else found

    # --- the TPU model (frameworks/torch_tpu.py) ---
    @property
    def _held_2023(self) -> bool:
        return self.model and self.tpu_dtypes == "2023"

    def prepare(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Callable[[], Any]:
        if self._held_2023:
            return torch_tpu.held_as_2023(fn, args, kwargs)
        return super().prepare(fn, args, kwargs)

    def executed_ops(self, call: Callable[[], Any], fn: Callable[..., Any], args: tuple,
                     kwargs: dict) -> List[Tuple[str, str]]:
        ops = torch_tpu.executed_ops(call, flatten)
        if self._held_2023:  # what the TPU then held and computed in
            ops = sorted({(op, torch_tpu.HELD_2023.get(dtype, dtype)) for op, dtype in ops})
        return ops

    def tpu_gaps(self, ops: List[Tuple[str, str]]) -> List[str]:
        return torch_tpu.tpu_gaps(ops)

    def not_applicable(self, chain: List[Tuple[str, str]], function: str = "") -> Optional[str]:
        return torch_tpu.not_applicable(chain, function) if self.xla else None

    def perturb(self, out: Any, relative: float) -> Any:
        held = ("float32", "complex64") + (tuple(torch_tpu.HELD_2023) if self._held_2023 else ())
        return torch_tpu.perturb(out, relative, held)

    def compilations(self) -> Optional[int]:
        if not self.xla:
            return None
        import torch_xla.debug.metrics as met

        data = met.metric_data("CompileTime")
        return int(data[0]) if data else 0


def _installed(name: str) -> Optional[str]:
    """A distribution's version, read without importing it (the environment must be set before the import)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def xla_runtime(torch_xla_version: Optional[str]) -> Dict[str, str]:
    """How torch_xla reaches a TPU: releases before 2.0 (the study's 1.12) know only XRT, which needs the TPU's
    local service named; later ones use PJRT."""
    if torch_xla_version and torch_xla_version.split(".")[0] in ("0", "1"):
        return {"XRT_TPU_CONFIG": "localservice;0;localhost:51011"}
    return {"PJRT_DEVICE": "TPU"}
