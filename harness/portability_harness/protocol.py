"""The protocol between the host and the harness, and between the supervisor and its pytest worker.

- `Config`: everything one cell run needs, written by the host as one JSON file and read back here.
- Events: one JSON object a line, one vocabulary from worker to supervisor and supervisor to host.
- `Exit`: the harness's exit codes.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any, ClassVar, Dict, List, Optional, Type

FRAMEWORKS = ("torch", "tensorflow", "jax")
DEVICE_KINDS = ("cpu", "cuda", "tpu", "xla-cpu")  # xla-cpu: PyTorch/XLA on the CPU
# strict: the framework's own full-precision arithmetic (no TF32, JAX's matmuls at "highest"), so that a precision
# failure is the framework's; vendor: whatever the framework does by default on the device.
NUMERICS = ("strict", "vendor")
MODES = ("steady", "paper")  # paper: the 2023 study's method (one call, no warm-up, strict placement)
# eager: the call as written (JAX with jit disabled, as the 2023 study ran it); compiled: through the framework's
# compiler (jax.jit, tf.function(jit_compile=True), torch.compile; XLA on a torch_xla device).
COMPILERS = ("eager", "compiled")
# The dtype rules of the TPU generation the TPU model (device kind xla-cpu, eager) applies: current (what torch_xla
# does on today's TPUs) or 2023 (torch_xla of 2023 held float64 as float32 and complex128 as complex64 on a TPU).
TPU_DTYPES = ("current", "2023")
DEFAULT_TIMEOUT_S = 900.0  # the study's per-test limit: 15 minutes

# The worker finds its config and its event pipe through these.
ENV_CONFIG = "PORTABILITY_HARNESS_CONFIG"
ENV_EVENTS_FD = "PORTABILITY_HARNESS_EVENTS_FD"
# A spare worker (supervisor.Supervisor.spawn) waits on this pipe, framework imported and cases collected, until
# it is told to take over; it then moves to the worker's CPUs, which this names ("1,2,3").
ENV_GO_FD = "PORTABILITY_HARNESS_GO_FD"
ENV_WORKER_CPUS = "PORTABILITY_HARNESS_WORKER_CPUS"
# Where a repeat's workers share the framework's declared-support table (compile_caches.Caches.env): the first to
# need it reads it from the framework and saves it there, a replacement loads it.
ENV_DECLARED = "PORTABILITY_HARNESS_DECLARED_TABLE"
# The supervisor sends this to a worker whose case outlives the timeout; the worker's faulthandler writes every
# thread's stack to its log then, which pytest's own faulthandler timeout did by starting and stopping a watchdog
# thread around every case (0.2 ms a case).
DUMP_SIGNAL = signal.SIGUSR1


class Exit(IntEnum):
    OK = 0
    USAGE = 2  # a bad config or results file: nothing was run
    DEVICE_UNAVAILABLE = 3
    INCOMPATIBLE_RESULTS = 4  # --resume into a file of another configuration
    WORKER_DIED = 5  # the worker died before running any case
    OUTPUT = 6  # the results file cannot be written (no space, no permission, a read-only file system)
    INCOMPATIBLE_DEVICE = 7  # the framework build cannot run on this device (compat.py): a verdict, no case run
    # Stopped by a signal: 128 + the signal's number, as a shell reports it (130 for SIGINT, 143 for SIGTERM).


def log_path(out: str) -> str:
    """What the worker and pytest print goes beside the results: <results file without .jsonl>.log."""
    return os.path.splitext(out)[0] + ".log"


class ConfigError(Exception):
    """The config file cannot be read: one line for the user."""


# cases: the curated modules; declared: read the framework's declared support; census: every op x dtype of the
# framework's own test database (portability_harness.census), run like cases.
TASKS = ("cases", "declared", "census")


@dataclass
class Config:
    """One cell run: which cases, on which device, how to measure, where to write. With task "declared", the
    run reads what the framework declares it supports instead (portability_harness.declared) and writes the
    table into the folder `out`."""
    framework: str
    device: str
    out: str  # the JSON Lines results file (task "declared": the folder for the table)
    curated_root: str  # case ids are relative to this folder
    cases: List[str] = field(default_factory=list)  # folders or modules to collect; default <root>/<framework>
    mode: str = "steady"
    compiler: str = "eager"  # COMPILERS
    quick: bool = False  # few warm samples: checks cases, not for results
    functions: List[str] = field(default_factory=list)  # fnmatch patterns over sampled names; empty: all
    timeout_s: float = DEFAULT_TIMEOUT_S  # per case
    # The run's time budget ends at this time.time() (a quick pass's, a machine lent by the minute): no case starts
    # after it, the case running then is stopped, and every case not run is recorded as cut short (run_budget.py).
    stop_at: Optional[float] = None
    # A quick pass's limit per case: a case still running after it (and before timeout_s) is stopped and recorded as
    # cut short, not as a timeout, which stays what timeout_s says (run_budget.py).
    case_budget_s: Optional[float] = None
    resume: bool = False  # continue `out`, skipping the cases it holds
    run_id: str = ""
    profile: str = ""
    image: str = ""
    repeat: int = 1
    environment: str = ""  # what realised the image: a Docker image tag and id, or a venv
    git_commit: Optional[str] = None  # the host checkout's commit (an image has no git)
    memory_limit_mb: Optional[int] = None  # a worker holding more is killed and its case recorded as `memory`
    precision: Optional[float] = 0.01  # steady sampling stops when the median's interval is this close to it
    confidence: float = 0.95  # ... at this confidence
    # The CPUs the worker may use: "all-but-one" leaves one of this environment's CPUs to the supervisor and
    # the host, so that they never take a core from a timed call; "all"; or a number of CPUs.
    cpus: str = "all-but-one"
    task: str = "cases"
    # Task "census": fnmatch patterns over the database's op names (empty: all), canonical dtype names (empty:
    # all), and whether to try the dtypes the device does not declare too.
    census_ops: List[str] = field(default_factory=list)
    census_dtypes: List[str] = field(default_factory=list)
    census_undeclared: bool = False
    numerics: str = "strict"  # NUMERICS
    tpu_dtypes: str = "current"  # TPU_DTYPES
    # The variables the host passed to the harness (an existing environment: existing.PASSED and --env), for the
    # header; empty where the backend's own environment is used.
    passed_env: Dict[str, str] = field(default_factory=dict)
    # Where the host ran this (the engine, and on a cluster the node and Ray's version): the records' header
    # and footer carry it, so a cell resumed on another node says where each part ran.
    engine: Dict[str, Any] = field(default_factory=dict)
    # What the host read of the cell's device (cuda: runner.devices.gpu_facts' first GPU), for the compatibility
    # verdict and the header; empty on the CPU.
    device_facts: Dict[str, Any] = field(default_factory=dict)
    annotations: Optional[str] = None  # default <curated_root>/annotations.json
    # The folder, beside `out`, that the cell's repeats share for the compilers' persistent caches, and whether an
    # earlier repeat of the cell filled it in this run (compile_caches.py); empty: each repeat has caches of its own.
    shared_caches: str = ""
    caches_filled: bool = False

    def case_paths(self) -> List[str]:
        return self.cases or [os.path.join(self.curated_root, self.framework)]

    def annotations_path(self) -> str:
        return self.annotations or os.path.join(self.curated_root, "annotations.json")

    @property
    def log_path(self) -> str:
        return log_path(self.out)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    def write(self, path: str) -> str:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())
        return path

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Config":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown config keys {', '.join(unknown)}: the host runner is newer than this "
                              "harness; rebuild the environment")
        try:
            cfg = cls(**data)
        except TypeError as e:
            raise ConfigError(f"incomplete config: {e}")
        if cfg.framework not in FRAMEWORKS:
            raise ConfigError(f"unknown framework {cfg.framework!r}; choose one of {', '.join(FRAMEWORKS)}")
        if cfg.device not in DEVICE_KINDS:
            raise ConfigError(f"unknown device kind {cfg.device!r}; choose one of {', '.join(DEVICE_KINDS)}")
        if cfg.mode not in MODES:
            raise ConfigError(f"unknown mode {cfg.mode!r}; choose one of {', '.join(MODES)}")
        if cfg.compiler not in COMPILERS:
            raise ConfigError(f"unknown compiler {cfg.compiler!r}; choose one of {', '.join(COMPILERS)}")
        if cfg.numerics not in NUMERICS:
            raise ConfigError(f"unknown numerics {cfg.numerics!r}; choose one of {', '.join(NUMERICS)}")
        if cfg.tpu_dtypes not in TPU_DTYPES:
            raise ConfigError(f"unknown tpu_dtypes {cfg.tpu_dtypes!r}; choose one of {', '.join(TPU_DTYPES)}")
        if cfg.task not in TASKS:
            raise ConfigError(f"unknown task {cfg.task!r}; choose one of {', '.join(TASKS)}")
        if not (cfg.cpus in ("all", "all-but-one") or str(cfg.cpus).isdigit() and int(cfg.cpus) > 0):
            raise ConfigError(f"cpus = {cfg.cpus!r}; give all, all-but-one or a number of CPUs")
        return cfg

    def worker_cpus(self, available: List[int]) -> List[int]:
        """The CPUs of `available` (this environment's, in order) the worker is pinned to."""
        if self.cpus == "all" or len(available) == 1:
            return list(available)
        if self.cpus == "all-but-one":
            return list(available[1:])  # the first is left to the supervisor and the host
        return list(available[-min(int(self.cpus), len(available)):])

    @classmethod
    def read(cls, path: str) -> "Config":
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read the config {path}: {e}")
        if not isinstance(data, dict):
            raise ConfigError(f"{path} is not a JSON object")
        return cls.from_dict(data)


# --- events --------------------------------------------------------------------------------------------------

@dataclass
class Event:
    """One line of the event stream. Subclasses name their `kind`; fields are JSON values."""
    kind: ClassVar[str] = ""

    def encode(self) -> bytes:
        return (json.dumps({"event": self.kind, **asdict(self)}, default=str) + "\n").encode("utf-8")


@dataclass
class Plan(Event):
    """The cases this run will do and those the results file already holds: [case id, function] pairs."""
    kind: ClassVar[str] = "plan"
    pending: List[List[str]] = field(default_factory=list)
    done: List[List[str]] = field(default_factory=list)
    # The worker's start-up, time.time() at each step: imported (the framework and the plugin), collected, and
    # running (when a spare was handed the run; else as collected). The footer keeps them (`workers`).
    times: Dict[str, float] = field(default_factory=dict)
    # The `pass` and `layout` of each pending case that is not forward and dense (case_kinds): a record the supervisor
    # writes for it (lost, interrupted, cut short) says what kind of case it was.
    kinds: Dict[str, Dict[str, str]] = field(default_factory=dict)


@dataclass
class Start(Event):
    kind: ClassVar[str] = "start"
    case_id: str = ""
    function: str = ""


@dataclass
class CaseEnd(Event):
    """A case's record is written."""
    kind: ClassVar[str] = "case"
    case_id: str = ""
    function: str = ""
    outcome: str = ""
    category: Optional[str] = None


@dataclass
class Restart(Event):
    """The supervisor replaced a worker that died or hung."""
    kind: ClassVar[str] = "restart"
    reason: str = ""
    restarts: int = 0


@dataclass
class Notice(Event):
    """Something the user should know that does not stop the run (a torn line dropped on resume)."""
    kind: ClassVar[str] = "warning"
    message: str = ""


@dataclass
class Error(Event):
    """The run cannot go on: `reason` is an Exit name in lower case, `message` one line for the user."""
    kind: ClassVar[str] = "error"
    reason: str = ""
    message: str = ""
    code: int = int(Exit.USAGE)


@dataclass
class Finished(Event):
    kind: ClassVar[str] = "finished"
    counts: Dict[str, int] = field(default_factory=dict)


EVENTS: Dict[str, Type[Event]] = {cls.kind: cls for cls in (Plan, Start, CaseEnd, Restart, Notice, Error, Finished)}


def decode(line: bytes) -> Optional[Event]:
    """The event on one line, or None for anything else (a stray print, a half line)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("event") not in EVENTS:
        return None
    cls = EVENTS[data["event"]]
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


class Emitter:
    """Writes events to a file descriptor: the worker's pipe, or the supervisor's stdout."""

    def __init__(self, fd: Optional[int] = None):
        self.fd = 1 if fd is None else fd

    def __call__(self, event: Event) -> None:
        data = event.encode()
        while data:
            data = data[os.write(self.fd, data):]
