"""What every framework adapter provides to the harness."""
from __future__ import annotations

import contextlib
import importlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from portability_harness import host_cpu
from portability_harness.classify import describe


class DeviceUnavailable(Exception):
    """The cell's device is absent or the framework cannot use it; nothing is run on another device."""


class Adapter:
    name: str = ""
    module: str = ""  # top-level import name
    aliases: Dict[str, str] = {}  # short prefixes used in sampled names, e.g. tf -> tensorflow
    devices: Tuple[str, ...] = ()

    def __init__(self) -> None:
        self.device_kind = ""
        self.mode = "steady"
        self.compiler = "eager"  # protocol.COMPILERS
        self.handle: Any = None  # what the `device` fixture returns
        self.tpu_dtypes = "current"  # protocol.TPU_DTYPES: the TPU model's dtype rules
        # What the framework declares it supports (declared.read), as the worker reads it: once, when first asked.
        self.declared_table: Callable[[], Optional[Dict[str, Any]]] = lambda: None

    # --- before and at import -------------------------------------------------------------
    def environment(self, device: str, mode: str) -> Dict[str, str]:
        """Environment variables that must be set before the framework is imported."""
        return {}

    def setup(self, device: str, mode: str, compiler: str = "eager") -> None:
        """Import the framework, select the device (or raise DeviceUnavailable) and set `handle`."""
        if device not in self.devices:
            raise DeviceUnavailable(
                f"{self.name} has no device kind {device!r} here; choose one of {', '.join(self.devices)}"
            )
        self.device_kind, self.mode, self.compiler = device, mode, compiler
        self._setup()

    def numerics(self, setting: str) -> Dict[str, Any]:
        """Apply the cell's numeric setting (protocol.NUMERICS) after setup; returns what is now in force, for the
        header."""
        return {"numerics": setting}

    def _setup(self) -> None:
        raise NotImplementedError

    # --- facts for the header -------------------------------------------------------------
    def version(self) -> str:
        return str(importlib.import_module(self.module).__version__)

    def device_model(self) -> str:
        return host_cpu.model()

    def facts(self) -> Dict[str, Any]:
        return {}

    def build(self) -> Dict[str, Any]:
        """What this build of the framework supports, readable with no device present (compat.py compares it with
        the GPU): `label` ("PyTorch 1.12.0"), `cuda_build` (False: CPU only; None: unknown), `cuda` (the CUDA
        runtime it was built against), `cudnn`, `arches` (sm_XY machine code and compute_XY PTX)."""
        return {"label": f"{self.name} {self.version()}", "cuda_build": None}

    # --- around each case and each timed call --------------------------------------------
    def scope(self) -> "contextlib.AbstractContextManager[Any]":
        """Entered around every case so that ops without an explicit device land on the cell's."""
        return contextlib.nullcontext()

    def prepare(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Callable[[], Any]:
        """The zero-argument call of fn as the cell's compiler runs it, for calls outside `bench` (a census's
        untimed samples)."""
        if self.compiler == "compiled":
            return self.prepared(self.compile(fn, args, kwargs, lambda stage: None)[0])
        return self.prepared(lambda: fn(*args, **kwargs))

    def prepared(self, call: Callable[[], Any]) -> Callable[[], Any]:
        """The eager call a case will time, made here or elsewhere (a backward case's gradient call): what the
        adapter keeps of it for the case (TensorFlow's TPU model: the ops its first run executes)."""
        return call

    # --- the compiler axis (protocol.COMPILERS) -------------------------------------------------------
    # A compiled case goes through stages: trace, lower, compile (ahead of the first call where the framework
    # allows it, else in the first call: `compiles_on_first_call`), execute, check. A failure is the case's under
    # this compiler, at the stage it reached: nothing falls back to the eager call quietly.
    compiles_on_first_call = False

    def compiler_missing(self) -> Optional[str]:
        """Why this build cannot compile at all (a cell verdict, like an incompatible GPU), or None."""
        return None

    def compile(self, fn: Callable[..., Any], args: tuple, kwargs: dict,
                stage: Callable[[str], None]) -> Tuple[Callable[[], Any], List[str]]:
        """The zero-argument call of the compiled fn, after what can be done before its first call (`stage(name)`
        is called as each stage begins), and the ops the compiler already knows run off it (host callbacks)."""
        raise NotImplementedError(f"{self.name}: no compiler")

    def failed_stage(self, error: BaseException, stage: str) -> str:
        """The stage a compiled case failed in, given the error and the stage it had entered (a first call that
        compiles raises compiler errors and the function's own alike)."""
        return stage

    def not_compilable(self, chain: List[Tuple[str, str]], stage: str) -> Optional[str]:
        """Why a compiled case's failure (its exception chain) is the function not compilable whole, whatever the
        device, or None. Recorded as the category not_compilable with this as its message. A failure at trace is:
        tracing runs the case's Python symbolically before any device is involved, and code that cannot be traced
        (a graph and session, objects built in the call) still runs eagerly, op by op, on any device."""
        return describe(chain) if stage == "trace" else None

    def eager(self) -> "contextlib.AbstractContextManager[Any]":
        """Entered around the eager reference call of a compiled case (JAX: with jit disabled)."""
        return contextlib.nullcontext()

    def host_arrays(self, out: Any) -> List[Tuple[Any, str]]:
        """The arrays of an output as NumPy arrays on the host, each with the dtype it was computed in (for
        divergence.py)."""
        return []

    def sync(self, out: Any) -> None:
        """Block until every array in `out` exists on the device."""

    def synchronize(self) -> None:
        """Wait for all work queued on the device (after each case, so that an asynchronous error is that case's)."""

    def snapshot(self) -> Any:
        """State read before a timed call so that `fallback` can tell what happened during it."""
        return None

    def fallback(self, out: Any, before: Any) -> Optional[Dict[str, Any]]:
        """Where the output (or an op) left the cell's device: None when everything stayed on it."""
        return None

    def compilations(self) -> Optional[int]:
        """Total XLA compilations so far, where the framework exposes a counter."""
        return None

    # --- the TPU's execution model (device kind xla-cpu, eager: tpu_model.py) ----------------------------------
    # The framework's op names (lower case) that a TPU computes at reduced precision by default in float32.
    matmul_ops: Tuple[str, ...] = ()
    transcendental_ops: Tuple[str, ...] = ()

    @property
    def model(self) -> bool:
        """Whether this cell runs the TPU's execution model (xla-cpu, eager)."""
        return self.device_kind == "xla-cpu" and self.compiler == "eager"

    def timed(self) -> "contextlib.AbstractContextManager[Any]":
        """Entered around the timed calls only (not the case's set-up and checks): TensorFlow's strict placement in
        paper mode and in the model, as the 2023 study set it around its timed call."""
        return contextlib.nullcontext()

    def executed_ops(self, call: Callable[[], Any], fn: Callable[..., Any], args: tuple,
                     kwargs: dict) -> List[Tuple[str, str]]:
        """The [op, dtype] pairs one call of fn executes (an untimed call after the measurement, or a trace), in the
        framework's own op names: what `tpu_gaps` and the numerics probe look at."""
        return []

    def tpu_gaps(self, ops: List[Tuple[str, str]]) -> List[str]:
        """The executed ops a TPU has no kernel or lowering for, each "op (dtype): why"."""
        return []

    def failure_reason(self, chain: List[Tuple[str, str]]) -> Optional[str]:
        """What a failure on the XLA device was, in the framework's terms (the op and dtype it could not place or
        lower), where its message does not say it plainly; None: the message is the forecast's reason."""
        return None

    def not_applicable(self, chain: List[Tuple[str, str]], function: str = "") -> Optional[str]:
        """Why a failure (its exception chain: [type name, message] pairs) of a case of `function` is the case's
        input that cannot exist on this device rather than the function failing, or None."""
        return None

    def perturb(self, out: Any, relative: float) -> Any:
        """`out` with each element of its float32 and complex64 arrays multiplied by 1 + relative and 1 - relative
        in turn (the numerics probe: an output as far from the exact one as the TPU's arithmetic may put it), the
        rest as it is; None where the output holds no such array."""
        return None

    # --- the sampled function ------------------------------------------------------------
    def resolve(self, name: str) -> Any:
        """The object a sampled name denotes, or raise LookupError if this version lacks it.

        Attributes first, from the top-level module: the public API namespace can differ from the
        package on disk (`tf.distribute` is not the module `tensorflow.distribute`). A submodule is
        imported only where no attribute of that name exists yet."""
        parts = name.split(".")
        parts[0] = self.aliases.get(parts[0], parts[0])
        try:
            obj = importlib.import_module(parts[0])
        except ImportError:
            raise LookupError(f"{name}: module {parts[0]} cannot be imported")
        for i in range(1, len(parts)):
            if hasattr(obj, parts[i]):
                obj = getattr(obj, parts[i])
                continue
            try:
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                raise LookupError(f"{name}: {'.'.join(parts[:i])} has no attribute {parts[i]}")
        return obj

    def resolves(self, name: str) -> bool:
        try:
            self.resolve(name)
        except LookupError:
            return False
        return True


def flatten(tree: Any) -> Iterator[Any]:
    """Leaves of nested lists, tuples, dicts and namedtuples (outputs of torch and plain Python)."""
    if isinstance(tree, dict):
        for v in tree.values():
            yield from flatten(v)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            yield from flatten(v)
    else:
        yield tree


def off_device(devices: List[str]) -> Optional[Dict[str, Any]]:
    return {"devices": sorted(set(devices))} if devices else None
