"""The state of one worker process, which the plugin's hooks share: the framework's adapter (imported once),
the results file's writer, the event pipe to the supervisor, the measuring policy and what is already done.

Kept out of plugin.py, which holds what pytest calls (hooks and fixtures): this is what they call, the worker's
start-up, its header and its per-case records and categories.
"""
from __future__ import annotations

import atexit
import dataclasses
import fnmatch
import getpass
import os
import platform
import re
import socket
import sys
from typing import Any, Dict, List, Optional, Tuple

import pytest

import portability_harness
from portability_harness import classify as clf
from portability_harness import compile_caches, declared, divergence, environment, host_cpu, processes
from portability_harness.catalog import curated, module_function, usage_by_name
from portability_harness.errors import write_error
from portability_harness.frameworks import DeviceUnavailable, adapter_for
from portability_harness.protocol import (ENV_DECLARED, ENV_EVENTS_FD, ENV_GO_FD, ENV_WORKER_CPUS, CaseEnd, Config,
                                          Emitter, Error, Exit, Finished)
from portability_harness.worker_process import RERUN, RETIRED, log_lines
from portability_harness.records import schema, store
from portability_harness.timing import Policy


# Categories a compiled failure keeps whatever the compiler said: our own case's bug, and the process's limits.
_NOT_THE_COMPILERS = ("case_error", "memory", "timeout", "crash")
# The worker's records reach the disk within this long (each is in the file at once: a worker that dies loses none).
SYNC_EVERY_S = 1.0


class Worker:
    """State of one worker process: the adapter (framework imported once), the writer, the events."""

    def __init__(self, cfg: Config):
        self.numerics: Dict[str, Any] = {}  # what adapter.numerics put in force, for the header
        self.cfg = cfg
        self.root = os.path.abspath(cfg.curated_root)
        self.emit = Emitter(int(os.environ[ENV_EVENTS_FD]))
        self.adapter = adapter_for(cfg.framework)
        self.policy = Policy.named(cfg.mode, cfg.quick, cfg.precision, cfg.confidence)
        self.annotations = clf.load_annotations(cfg.annotations_path())
        self.cpu = host_cpu.identity()  # the header's host_cpu, and what an annotation's cpu_without is held to
        self.done = store.read(cfg.out).done
        self.writer: Optional[store.Writer] = None
        self.header: Dict[str, Any] = {}
        self.waiting: List[Dict[str, Any]] = []  # records a spare made before its turn (a module's import error)
        self._declared: Optional[Dict[str, Any]] = None
        self.times: Dict[str, float] = {}  # start-up landmarks for the plan (protocol.Plan.times)
        self.session: Optional[pytest.Session] = None  # set when the session has ended and been reported
        # Whether a first call may have been served by a cache an earlier repeat of the cell filled (compile_caches)
        self.cold_cached = compile_caches.policy(cfg) == compile_caches.REUSED
        self.begun = 0  # cases this process has started

    def wait_for_turn(self) -> None:
        """A spare worker, started while another still runs (or before its repeat's run: stand_by), waits here
        with the framework imported and its cases collected until the supervisor hands it the run; it then
        writes its header where there is none yet and skips what is done by now."""
        go = os.environ.pop(ENV_GO_FD, None)
        if go is None:
            return
        told = os.read(int(go), 1)  # blocks; the supervisor closing the pipe unread ends the spare
        os.close(int(go))
        if not told:
            os._exit(0)
        cpus = os.environ.pop(ENV_WORKER_CPUS, "")
        if cpus:  # it started up beside the running worker, on the supervisor's CPUs
            processes.move_to(int(c) for c in cpus.split(","))
        contents = store.read(self.cfg.out)  # once: a census's results file runs to megabytes
        self.done = contents.done
        self.open(contents.header)
        waiting, self.waiting = self.waiting, []
        for rec in waiting:  # what its collection found (a module that does not import), unless recorded by now
            if rec["case_id"] not in self.done:
                self.write_record(rec)

    def internal_error(self, e: BaseException) -> None:
        """pytest ended the session on an exception of its own. One from writing (the log, the worker's stdout, on
        a full disk) is the run's output error: said as such, never a finished run with cases missing."""
        if isinstance(e, OSError):
            self.emit(Error(reason=Exit.OUTPUT.name.lower(), message=str(write_error(self.cfg.log_path, e)),
                            code=Exit.OUTPUT))

    def session_finished(self, session: Any, exitstatus: int) -> None:
        self.writer.sync()  # on the disk before the supervisor writes the footer
        # Finished only where every case ran (failed ones included): a session pytest ended early (an internal
        # error, an interruption) leaves the rest to the supervisor, which does not write the footer.
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
            self.emit(Finished())
        self.session = session
        # Registered last, so that it runs first (atexit is last in, first out): before the handlers of what the
        # worker imported (JAX's frees every executable it compiled: 3.5 s of a JAX repeat) and the teardown.
        atexit.register(self.exit_without_teardown)

    def exit_without_teardown(self) -> None:
        """A worker whose session has ended ends at once with pytest's status: the frameworks' exit handlers and the
        interpreter's teardown (freeing the framework's objects, its libraries' static destructors) took 1.5 s of
        a torch repeat and 3.5 s of a JAX one after the last record, and nothing of a finished worker is needed
        after it (the records are on the disk, the log is flushed here, the supervisor ends what cases started,
        and their temporary files go with the repeat's folder)."""
        if self.session is None:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(int(self.session.exitstatus))

    def fail(self, code: Exit, message: str) -> None:
        """End the worker: the supervisor passes the error on and exits with the code."""
        self.emit(Error(reason=code.name.lower(), message=message, code=code))
        pytest.exit(message, returncode=int(code))

    def start(self) -> None:
        # (A JAX accelerator cell names the CPU beside its platform: the census and backward cases compare with it.)
        environment = self.adapter.environment(self.cfg.device, self.cfg.mode)
        os.environ.update(environment)
        self.adapter.tpu_dtypes = self.cfg.tpu_dtypes
        self.adapter.declared_table = self.declared_table
        try:
            self.adapter.setup(self.cfg.device, self.cfg.mode, self.cfg.compiler)
        except DeviceUnavailable as e:
            why = telling_line(self.cfg.log_path)  # the framework's own warning, in the log the worker writes
            self.fail(Exit.DEVICE_UNAVAILABLE, f"{e}" + (f" (its log: {why})" if why else ""))
        if self.adapter.model:
            # The TPU model's cells give verdicts, not latencies (XLA's CPU backend op by op says nothing of a TPU's
            # speed): one timed call, as paper mode times; the forecast's untimed calls follow it.
            self.policy = Policy.named("paper")
        missing = self.adapter.compiler_missing() if self.cfg.compiler == "compiled" else None
        if missing:  # a set-up that cannot compile anything is the cell's verdict, not a failure of every case
            self.fail(Exit.INCOMPATIBLE_DEVICE, missing)
        self.numerics = self.adapter.numerics(self.cfg.numerics)
        self.header = self._header()  # (the package list, the catalog: a spare makes it before its turn)
        if ENV_GO_FD not in os.environ:  # a spare writes nothing before it is told to take over (wait_for_turn)
            self.open(store.read(self.cfg.out).header)

    def open(self, existing: Optional[Dict[str, Any]]) -> None:
        """The results file: its `existing` header checked against this worker's (a resumed run), or this one's
        written."""
        header = dict(self.header, cpus=_cpus())  # a spare has moved to the worker's CPUs by now
        if existing is not None:
            why = schema.incompatibility(existing, header)
            if why:
                self.fail(Exit.INCOMPATIBLE_RESULTS, f"{self.cfg.out}: {why}; write to a new --out instead of resuming")
        self.writer = store.Writer(self.cfg.out, sync_every_s=SYNC_EVERY_S)
        if existing is None:
            self.writer.append(header)

    def _header(self) -> Dict[str, Any]:
        cfg, a = self.cfg, self.adapter
        return schema.header(
            run_id=cfg.run_id,
            framework=cfg.framework,
            framework_version=a.version(),
            device=cfg.device,
            device_model=device_model(cfg.device, a.device_model(), cfg.device_facts),
            image=cfg.image,
            profile=cfg.profile,
            repeat=cfg.repeat,
            environment=cfg.environment,
            python=platform.python_version(),
            mode=cfg.mode,
            compiler=cfg.compiler,
            quick=cfg.quick,
            timeout_s=cfg.timeout_s,
            memory_limit_mb=cfg.memory_limit_mb,
            engine=cfg.engine or None,
            policy=dataclasses.asdict(self.policy),
            cpus=_cpus(),
            host_cpu=self.cpu,  # what tells two CPUs of one name apart (host_cpu.py)
            host=socket.gethostname(),
            user=getpass.getuser(),
            runner_version=portability_harness.__version__,
            git_commit=cfg.git_commit,
            # An xla-cpu cell's XLA_FLAGS: its quick-compile flags (frameworks/xla_quick_compile.py), or none.
            framework_facts=dict(a.facts(), **({"xla_flags": os.environ.get("XLA_FLAGS")}
                                               if a.device_kind == "xla-cpu" else {})),
            numerics=self.numerics,
            tpu_dtypes=cfg.tpu_dtypes if a.model else None,
            compile_caches=compile_caches.policy(cfg),
            build=a.build(),
            passed_env=cfg.passed_env or None,
            # Every distribution of the environment, and a fingerprint that tells two runs of it apart.
            **{k: v for k, v in environment.facts().items() if k.startswith("packages")},  # what the build supports (CUDA runtime, cuDNN, arch list): compat.py's side of it
            device_facts=cfg.device_facts or None,  # what the host read of the device (driver, capability)
            # The sample's usage facts travel with the results, so a report needs no checkout to rank them.
            catalog=usage_by_name(curated(self.root, cfg.framework)) if cfg.task != "census" else {},
            **self._census_header(),
        )

    def _census_header(self) -> Dict[str, Any]:
        """A census's header says so (`task`, which the report's loader keeps apart from the study's cases) and
        names the database, of this framework version, and what the census selected."""
        if self.cfg.task != "census":
            return {}
        from portability_harness import census

        options = census.Options(ops=list(self.cfg.census_ops), dtypes=list(self.cfg.census_dtypes),
                                 undeclared=self.cfg.census_undeclared)
        extra = {"jax_enable_x64": True} if self.cfg.framework == "jax" else None
        return {"task": "census", "database": census.database_header(self.cfg.framework, self.adapter.version(),
                                                                       options, extra)}

    def case_id(self, nodeid: str) -> str:
        return nodeid  # the worker's rootdir is the curated root, so node ids are relative to it

    def selected(self, function: str) -> bool:
        return not self.cfg.functions or any(fnmatch.fnmatchcase(function, p) for p in self.cfg.functions)

    def record_import_failure(self, nodeid: str, text: str) -> None:
        """A curated module that cannot be imported (pytest's collect report: its `nodeid` and the text of its
        longrepr), recorded as one failed case, so that it is never silently lost."""
        path = os.path.join(self.root, nodeid.split("::")[0])
        function = module_function(path) or nodeid
        if not self.selected(function):
            return
        errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
        last = errors[-1] if errors else text.strip().splitlines()[-1]
        match = re.match(r"([\w.]+?)(?::\s*(.*))?$", last)
        chain = [(match.group(1).split(".")[-1], match.group(2) or "")] if match else [("Error", last)]
        self.write_case(function=function, module=nodeid.split("::")[0], case_id=nodeid, params={},
                        outcome="failed", message=last, **self.category(nodeid, chain, True))

    def unusable_after(self, outcome: str, message: Optional[str]) -> Optional[int]:
        """How a case's failure leaves this process, where it leaves it unusable: RERUN (the error is one an earlier
        case left in it, classify.INHERITED, met after other cases here: the worker ends before the record, and the
        next one runs the case again, first), RETIRED (a sticky device error: the worker ends after the record)."""
        if outcome != "failed" or not message:
            return None
        if self.begun > 1 and clf.INHERITED.search(message):
            return RERUN
        return RETIRED if clf.STICKY.search(message) else None

    def leave(self, code: int) -> None:
        """End the worker with `code` (worker_process's RERUN or RETIRED), its records on the disk."""
        self.writer.sync()
        os._exit(code)

    def write_case(self, **fields: Any) -> None:
        rec = schema.case(**fields)
        rec["cold_cached"] = self.cold_cached and rec["cold_s"] is not None
        if self.writer is None:  # a spare collecting before its turn
            self.waiting.append(rec)
        else:
            self.write_record(rec)

    def write_record(self, rec: Dict[str, Any]) -> None:
        assert self.writer is not None
        try:
            self.writer.append(rec)
        except OSError as e:  # a full disk, a file system gone read-only: the run cannot go on
            self.fail(Exit.OUTPUT, str(write_error(self.cfg.out, e)))
        self.done.add(rec["case_id"])
        self.emit(CaseEnd(case_id=rec["case_id"], function=rec["function"], outcome=rec["outcome"],
                          category=rec["category"]))

    def failure(self, state: Any, dtypes: Any) -> Tuple[str, Dict[str, Any]]:
        """A failed case's message and category fields (state: its case_state.CaseState)."""
        message = clf.describe(state.chain)
        compiled = self.cfg.compiler == "compiled"
        # A compiler traces the case's own code symbolically (tf.function's autograph, torch.compile's Dynamo): an
        # AttributeError it raises there is the compiler refusing the code, which the eager cell runs, not our bug.
        in_case = state.raised_in_case and not (compiled and state.stage in ("trace", "lower"))
        fields = self.category(state.case_id, state.chain, in_case, state.function, dtypes)
        if state.extra.get("db_ruling") and fields.get("category_source") == "classifier":
            fields["category_source"] = "db"  # the case's own database expects this failure (census)
        why = (self.adapter.not_compilable(state.chain, state.stage) if compiled
               and fields.get("category") not in _NOT_THE_COMPILERS and fields.get("category_source") != "annotation"
               else None)
        if why:  # the function cannot be compiled whole, whatever the device: not a device's missing kernel
            message, fields = why, {"category": "not_compilable", "category_source": "compiler"}
        if state.stage == "check" and compiled and divergence.diverged(state.divergence):
            # The case's own check, with its own tolerance, refused an output that differs from the eager one.
            fields = {"category": "precision", "category_source": "divergence"}
        return message, fields

    def category(self, case_id: str, chain: List, raised_in_case: bool, function: Optional[str] = None,
                 dtypes: Any = ()) -> Dict[str, Any]:
        note = clf.annotated(self.annotations, case_id, self.cfg.device, self.adapter.version(),
                             (self.cpu or {}).get("features"))
        if note is not None:
            return {"category": note.category, "category_source": "annotation", "annotation": note.reason}
        rules = clf.classify(chain, raised_in_case, framework_modules=(self.adapter.module,))
        if rules != "not_implemented":
            return {"category": rules, "category_source": "classifier"}
        # A support failure: what the framework declares tells a missing dtype (type) from a missing op.
        category = clf.classify(chain, raised_in_case, framework_modules=(self.adapter.module,),
                                table=self.declared_table(), device=self.cfg.device, function=function,
                                dtypes=list(dtypes) + declared.dtypes.in_name(case_id))
        return {"category": category, "category_source": "classifier"}

    def declared_table(self) -> Optional[Dict[str, Any]]:
        """This framework version's own declarations, read at the first support failure: from the framework by the
        repeat's first worker to need them, which saves them where its replacements load them (ENV_DECLARED)."""
        if self._declared is None:
            shared = os.environ.get(ENV_DECLARED)
            self._declared = _load_table(shared)
            if self._declared is None:
                try:
                    self._declared = declared.read(self.cfg.framework)
                except Exception as e:  # a test database that does not import (a missing expecttest): rules alone
                    print(f"declared support could not be read ({type(e).__name__}: {e}); classifying by the "
                          "message", file=sys.stderr)
                    self._declared = {}
                else:
                    _save_table(self._declared, shared)
        return self._declared or None


def _load_table(path: Optional[str]) -> Optional[Dict[str, Any]]:
    try:
        return declared.load(path) if path and os.path.exists(path) else None
    except (OSError, ValueError):  # unreadable (a disk that filled): read from the framework again
        return None


def _save_table(table: Dict[str, Any], path: Optional[str]) -> None:
    """Written whole, then renamed, so that a replacement never loads half a table; where it cannot be written, each
    worker reads its own."""
    if path:
        part = os.path.join(os.path.dirname(path), ".part-" + os.path.basename(path))
        try:
            os.replace(declared.save(table, part), path)
        except OSError:
            pass


def _cpus() -> Optional[List[int]]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


def device_model(device: str, seen: str, host: Dict[str, Any]) -> str:
    """The device's name in the header: the host's reading of a TPU's type where it has one, so that one TPU is
    one setup whichever framework looked at it (each names it its own way, and none does inside a container);
    else what the framework says."""
    kind = host.get("accelerator_type") if device == "tpu" else None
    return f"TPU {kind}" if kind else seen


# What a framework logs when it sees no device, most telling first: a missing driver or library names the fix;
# a failed call only the symptom.
_WHY_NO_DEVICE = (re.compile(r"Could not find cuda drivers|Cannot dlopen|Could not load dynamic library|"
                             r"no CUDA-capable device|driver version is insufficient", re.I),
                  re.compile(r"cuInit|CUDA_ERROR|Skipping registering GPU|TPU", re.I))


def telling_line(log_path: str) -> Optional[str]:
    """The line of the worker's log that best says why a framework sees no device, if any."""
    lines = log_lines(log_path)
    for pattern in _WHY_NO_DEVICE:
        found = [l for l in lines if pattern.search(l)]
        if found:
            return found[-1][:300]
    return None
