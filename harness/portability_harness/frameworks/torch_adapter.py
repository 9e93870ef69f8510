"""PyTorch: CPU, CUDA, and XLA devices through torch_xla with PJRT (`tpu`, `xla-cpu`)."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

from .base import Adapter, DeviceUnavailable, flatten, off_device


class TorchAdapter(Adapter):
    name = "torch"
    module = "torch"
    devices = ("cpu", "cuda", "tpu", "xla-cpu")

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        if device == "tpu":
            return xla_runtime(_installed("torch_xla"))
        # PJRT picks its device from this variable when torch_xla is imported.
        return {"xla-cpu": {"PJRT_DEVICE": "CPU"}}.get(device, {})

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

    def _xla_counters(self) -> Dict[str, int]:
        import torch_xla.debug.metrics as met

        return {name: met.counter_value(name) for name in met.counter_names()}

    def snapshot(self) -> Any:
        return self._xla_counters() if self.xla else None

    def fallback(self, out: Any, before: Any) -> Optional[Dict[str, Any]]:
        import torch

        devices = [str(t.device) for t in flatten(out) if isinstance(t, torch.Tensor) and t.device != self.handle]
        found = off_device(devices)
        if self.xla:
            # torch_xla counts every op it ran on the CPU instead under an "aten::" counter.
            after = self._xla_counters()
            ops = sorted(k for k, v in after.items() if k.startswith("aten::") and v > (before or {}).get(k, 0))
            if ops:
                found = dict(found or {}, ops=ops)
        return found

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
