"""TensorFlow: CPU, CUDA GPU and TPU devices, placed with tf.device and the placement mode recorded; the TPU model on
XLA's CPU device (its TPU rules: tensorflow_tpu.py)."""
from __future__ import annotations

import contextlib
import os
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

from . import tensorflow_tpu as tpu, xla_quick_compile
from .base import Adapter, DeviceUnavailable, off_device

# xla-cpu: the TPU model (tpu_model.py), each eager op on XLA's CPU device (TF_XLA_FLAGS=--tf_xla_enable_xla_devices)
_TF_TYPE = {"cpu": "CPU", "cuda": "GPU", "tpu": "TPU", "xla-cpu": "XLA_CPU"}
# What a first call under jit_compile=True raises when XLA cannot take the graph: an op with no XLA kernel
# (tf2xla's lowering), or the compilation itself.
_UNLOWERED = re.compile(r"unsupported operations? when trying to compile|No registered '\w+' OpKernel for XLA_|"
                        r"not compilable|XLA can't deduce compile time constant", re.I)
_COMPILE_FAILED = re.compile(r"XLA compilation|compil(e|ing) (the )?(graph|cluster)|XlaCompile|tf2xla", re.I)
# Variables created in the call, which tf.function lifts out of the function while it traces (TensorFlow 2.11 raises
# UnliftableError at trace, current releases this at the first call).
_UNLIFTED = re.compile(r"failed to lift variable creations", re.I)


class TensorFlowAdapter(Adapter):
    name = "tensorflow"
    module = "tensorflow"
    aliases = {"tf": "tensorflow"}
    devices = ("cpu", "cuda", "tpu", "xla-cpu")
    matmul_ops, transcendental_ops = tpu.MATMUL_OPS, tpu.TRANSCENDENTAL_OPS

    def __init__(self) -> None:
        super().__init__()
        self._prepared: Optional[Callable[[], Any]] = None  # the case's call as timed
        self._seen: Optional[List[Tuple[str, str, str]]] = None  # the ops its first run executed (TPU model)
        self._placed_off: List[Tuple[str, str, str]] = []  # a failed call's ops run again with soft placement
        self._device_ops: Optional[Set[str]] = None  # tensorflow_tpu.device_ops, read once

    def environment(self, device: str, mode: str) -> Dict[str, str]:
        if device in ("cpu", "xla-cpu"):
            return dict({"TF_CPP_MIN_LOG_LEVEL": "2"}, **(xla_quick_compile.environment(self.name)
                                                          if device == "xla-cpu" else {}))
        # On a device, warnings stay in the log: they say why TensorFlow sees no GPU ("Cannot dlopen some GPU
        # libraries"). A GPU newer than the build's machine code runs its PTX through the driver's JIT: a cache
        # large enough for every kernel keeps that cost to the first start.
        return {"TF_CPP_MIN_LOG_LEVEL": "1", "CUDA_CACHE_MAXSIZE": str(4 * 2 ** 30)}

    def _setup(self) -> None:
        import tensorflow as tf

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

        return {"soft_device_placement": tf.config.get_soft_device_placement(),
                "timed_soft_device_placement": not self._strict}

    def scope(self):
        import tensorflow as tf

        self._placed_off = []
        return tf.device(self.handle)

    @property
    def _strict(self) -> bool:
        """Soft placement off around the timed calls: the 2023 study's setting (paper mode), and the TPU model's (an op
        without a kernel on the device fails, as it did on the study's TPU). Setup and checks keep the default."""
        return self.mode == "paper" or self.model

    def prepared(self, call: Callable[[], Any]) -> Callable[[], Any]:
        """The case's call; in the TPU model, its first run records the ops it executes (executed_ops): a second run
        only to read them cost as much as the first where XLA's CPU code is slow (a 1000 x 1000 cumprod: 98 s each).
        Every case's call comes here, a backward case's gradient call too: else the ops kept would be the case's
        before."""
        self._prepared = call
        self._seen = None
        if not self.model:
            return call

        def first_recorded() -> Any:
            if self._seen is not None:
                return call()
            with tpu.Recorder() as seen:
                self._seen = seen.ops
                return call()

        return first_recorded

    @contextlib.contextmanager
    def timed(self) -> Iterator[None]:
        import tensorflow as tf

        if not self._strict:
            yield
            return
        soft = tf.config.get_soft_device_placement()
        tf.config.set_soft_device_placement(False)
        try:
            yield
        except Exception as e:
            tf.config.set_soft_device_placement(soft)
            if self.model and self._prepared is not None and tpu.placement_failed(str(e)):
                # The op the device had no kernel for, with its dtypes: the call again, where soft placement puts
                # that op on another device (placement errors name the op only).
                self._placed_off = self._record(self._prepared)
            raise
        finally:
            tf.config.set_soft_device_placement(soft)

    def _record(self, call: Callable[[], Any]) -> List[Tuple[str, str, str]]:
        out = None
        with tpu.Recorder() as seen:
            try:
                out = call()
            except Exception:  # what ran before the call raised is recorded
                pass
        try:
            self.sync(out)  # (outside: the device barrier is an op of its own)
        except Exception:
            pass
        return seen.ops

    def executed_ops(self, call: Callable[[], Any], fn: Callable[..., Any], args: tuple,
                     kwargs: dict) -> List[Tuple[str, str]]:
        """The ops of the call's first run as timed (strict placement; else of one more run), those the device ran (an
        op the case placed on the host runs on a TPU's host too)."""
        ops = self._seen
        if ops is None:
            with self.timed():
                ops = self._record(call)
        return [(op, dtype) for op, dtype, device in ops if not device or _TF_TYPE[self.device_kind] in device]

    def tpu_gaps(self, ops: List[Tuple[str, str]]) -> List[str]:
        table = self.declared_table()
        if self._device_ops is None:
            self._device_ops = tpu.device_ops()
        return tpu.gaps(ops, table, self._device_ops)

    def failure_reason(self, chain: List[Tuple[str, str]]) -> Optional[str]:
        return tpu.failure_reason("\n".join(m for _, m in chain), self._placed_off)

    def perturb(self, out: Any, relative: float) -> Any:
        return tpu.perturb(out, relative)

    # tf.function(jit_compile=True) traces ahead of the call; XLA lowers and compiles the graph at its first call.
    compiles_on_first_call = True

    def compile(self, fn: Callable[..., Any], args: tuple, kwargs: dict,
                stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        """tf.function with jit_compile=True: XLA must take the whole function (an op it cannot lower fails the
        call; TensorFlow never falls back to its own kernels under it, so there are no fallback ops to list).
        Tensors are its arguments, Python values constants of the trace. Python values it returns (an int, a shape, a
        dtype) are constants of the trace too: the call returns them as the trace made them, as the eager call does,
        where tf.function would turn them into tensors."""
        import tensorflow as tf

        kept: Dict[str, Any] = {}

        def traced(*a: Any, **k: Any) -> List[Any]:
            out = fn(*a, **k)
            leaves = tf.nest.flatten(out)
            kept["out"], kept["python"] = out, {i: v for i, v in enumerate(leaves) if _python_value(tf, v)}
            return [v for i, v in enumerate(leaves) if i not in kept["python"]]

        compiled = tf.function(traced, jit_compile=True)
        stage("trace")
        compiled.get_concrete_function(*args, **kwargs)

        def call() -> Any:
            computed = iter(compiled(*args, **kwargs))
            python = kept["python"]
            leaves = [python[i] if i in python else next(computed) for i in range(len(tf.nest.flatten(kept["out"])))]
            return tf.nest.pack_sequence_as(kept["out"], leaves)

        return call, []

    def failed_stage(self, error: BaseException, stage: str) -> str:
        if stage != "compile":
            return stage
        text = str(error)
        if _UNLIFTED.search(text):
            return "trace"
        return "lower" if _UNLOWERED.search(text) else "compile" if _COMPILE_FAILED.search(text) else "execute"

    def not_compilable(self, chain: List[Tuple[str, str]], stage: str) -> Optional[str]:
        """A failure at trace, and a value XLA cannot hold (a string, a dataset's variant, a resource) crossing into or
        out of the compiled function: XLA has no such value on any device, which is no missing kernel."""
        return tpu.boundary_failure("\n".join(m for _, m in chain)) or super().not_compilable(chain, stage)

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

        if self.device_kind == "cpu" or not tf.executing_eagerly():
            # An eager CPU kernel has run when the op returns, and building a graph runs nothing: nothing is queued
            # (and the device barrier refuses to run inside a graph).
            return
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


def _python_value(tf: Any, value: Any) -> bool:
    """A plain Python or NumPy value, a shape or a dtype: what tf.function would make a constant tensor of."""
    import numpy as np

    return value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic, np.ndarray,
                                               tf.TensorShape, tf.DType))
