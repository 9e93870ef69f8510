"""Framework adapters: one per framework, the only place that knows a framework's device API.

Harness side: imported inside the image; each adapter imports its framework lazily in `setup`.
"""
from __future__ import annotations

from portability_harness.protocol import FRAMEWORKS

from .base import Adapter, DeviceUnavailable


def adapter_for(framework: str) -> Adapter:
    if framework == "torch":
        from .torch_adapter import TorchAdapter

        return TorchAdapter()
    if framework == "tensorflow":
        from .tensorflow_adapter import TensorFlowAdapter

        return TensorFlowAdapter()
    if framework == "jax":
        from .jax_adapter import JaxAdapter

        return JaxAdapter()
    raise ValueError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")


__all__ = ["Adapter", "DeviceUnavailable", "FRAMEWORKS", "adapter_for"]
