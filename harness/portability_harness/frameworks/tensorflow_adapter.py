"""TensorFlow: CPU, CUDA GPU and TPU devices, placed with tf.device and the placement mode recorded."""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from .base import Adapter, DeviceUnavailable, off_device

# xla-cpu: the TPU model (tpu_model.py), each eager op on XLA's CPU device (TF_XLA_FLAGS=--tf_xla_enable_xla_devices)
_TF_TYPE = {"cpu": "CPU", "cuda": "GPU", "tpu": "TPU", "xla-cpu": "XLA_CPU"}
# What a first call under jit_compile=True raises when XLA cannot take the graph: an op with no XLA kernel
# (tf2xla's lowering), or the compilation itself.
_UNLOWERED = re.compile(r"unsupported operations? when trying to compile|No registered '\w+' OpKernel for XLA_|"
                        r"not compilable|XLA can't deduce compile time constant", re.I)
_COMPILE_FAILED = re.compile(r"XLA compilation|compil(e|ing) (the )?(graph|cluster)|XlaCompile|tf2xla", re.I)


class TensorFlowAdapter(Adapter):
    name = "tensorflow"
    module = "tensorflow"
    aliases = {"tf": "tensorflow"}
    devices = ("cpu", "cuda", "tpu", "xla-cpu")

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        if device in ("cpu", "xla-cpu"):
            return {"TF_CPP_MIN_LOG_LEVEL": "2"}
        # On a device, warnings stay in the log: they say why TensorFlow sees no GPU ("Cannot dlopen some GPU
        # libraries"). A GPU newer than the build's machine code runs its PTX through the driver's JIT: a cache
        # large enough for every kernel keeps that cost to the first start.
        return {"TF_CPP_MIN_LOG_LEVEL": "1", "CUDA_CACHE_MAXSIZE": str(4 * 2 ** 30)}

    def _setup(self) -> None:
        import tensorflow as tf

        if self.mode == "paper":
            # The 2023 study ran with soft placement off: an op without a kernel on the device fails.
            tf.config.set_soft_device_placement(False)
        kind = _TF_TYPE[self.device_kind]
        if self.device_kind == "tpu":
            try:
                resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
                tf.config.experimental_connect_to_cluster(resolver)
                tf.tpu.experimental.initialize_tpu_system(resolver)
            except Exception as e:  # the resolver raises several types when no TPU answers
                raise DeviceUnavailable(f"no TPU could be initialised: {type(e).__name__}: {e}")
        if not tf.config.list_logical_devices(kind):
            raise DeviceUnavailable(f"tensorflow {tf.__version__} sees no {kind} device")
        self.handle = f"/device:{kind}:0"

    def numerics(self, setting: str) -> Dict[str, Any]:
        import tensorflow as tf

        if setting == "strict":  # TensorFlow enables TF32 on Ampere and newer GPUs by default
            tf.config.experimental.enable_tensor_float_32_execution(False)
        return {"numerics": setting, "tensor_float_32": tf.config.experimental.tensor_float_32_execution_enabled()}

    def device_model(self) -> str:
        import tensorflow as tf

        if self.device_kind == "cuda":
            gpu = tf.config.list_physical_devices("GPU")[0]
            return tf.config.experimental.get_device_details(gpu).get("device_name", "GPU")
        if self.device_kind == "tpu":
            return "TPU " + os.environ.get("TPU_ACCELERATOR_TYPE", "")
        return super().device_model()

    def build(self) -> Dict[str, Any]:
        import tensorflow as tf

        info = tf.sysconfig.get_build_info()  # tensorflow-cpu: is_cuda_build False and no CUDA keys
        return {"label": f"TensorFlow {tf.__version__}", "cuda_build": bool(info.get("is_cuda_build")),
                "cuda": info.get("cuda_version"), "cudnn": info.get("cudnn_version"),
                "arches": list(info.get("cuda_compute_capabilities") or [])}

    def facts(self) -> Dict[str, Any]:
        import tensorflow as tf

        return {"soft_device_placement": tf.config.get_soft_device_placement()}

    def scope(self):
        import tensorflow as tf

        return tf.device(self.handle)

    # tf.function(jit_compile=True) traces ahead of the call; XLA lowers and compiles the graph at its first call.
    compiles_on_first_call = True

    def compile(self, fn: Callable[..., Any], args: tuple, kwargs: dict,
                stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        """tf.function with jit_compile=True: XLA must take the whole function (an op it cannot lower fails the
        call; TensorFlow never falls back to its own kernels under it, so there are no fallback ops to list).
        Tensors are its arguments, Python values constants of the trace."""
        import tensorflow as tf

        compiled = tf.function(lambda *a, **k: fn(*a, **k), jit_compile=True)
        stage("trace")
        compiled.get_concrete_function(*args, **kwargs)
        return (lambda: compiled(*args, **kwargs)), []

    def failed_stage(self, error: BaseException, stage: str) -> str:
        if stage != "compile":
            return stage
        text = str(error)
        return "lower" if _UNLOWERED.search(text) else "compile" if _COMPILE_FAILED.search(text) else "execute"

    def host_arrays(self, out: Any) -> List[Tuple[Any, str]]:
        found = []
        for t in self._tensors(out):
            try:
                found.append((t.numpy(), t.dtype.name))
            except Exception:  # a string or a handle with no numeric value
                continue
        return found

    def _tensors(self, out: Any):
        import tensorflow as tf

        # Variant and resource handles (a tf.data.Dataset, a lookup table) and graph-mode variables
        # hold no values to wait for; .numpy() on them raises.
        return [t for t in tf.nest.flatten(out, expand_composites=True) if hasattr(t, "numpy")
                and getattr(t, "dtype", None) not in (tf.variant, tf.resource) and not getattr(t, "_in_graph_mode", False)]

    def sync(self, out: Any) -> None:
        import tensorflow as tf

        if self.device_kind == "cpu":
            return  # an eager CPU kernel has run when the op returns: nothing is queued
        sync_devices = getattr(getattr(tf.test, "experimental", None), "sync_devices", None)
        if sync_devices is not None:
            sync_devices()  # waits for the device's queue without copying any output back to the host
            return
        # Releases before 2.13 have no device barrier: .numpy() waits for each result, at the price of a copy.
        for t in self._tensors(out):
            t.numpy()

    def synchronize(self) -> None:
        if self.device_kind != "cpu":
            self.sync(None)

    def fallback(self, out: Any, before: Any) -> Optional[Dict[str, Any]]:
        import tensorflow as tf

        kind = _TF_TYPE[self.device_kind]
        devices = [
            t.device
            for t in self._tensors(out)
            if getattr(t, "device", "") and tf.DeviceSpec.from_string(t.device).device_type != kind
        ]
        return off_device(devices)
