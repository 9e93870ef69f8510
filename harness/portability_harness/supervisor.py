"""Runs a cell's cases in a pytest worker and replaces the worker when a case kills it.

The worker imports the framework once and runs case after case. If a case segfaults, aborts, exits, holds
more memory than the cell's limit or hangs past the per-case timeout, the supervisor records that case (it
knows which one was running from the worker's events), ends every process of the worker's session, starts
a new worker, and the new worker skips every case already in the results file, exactly as `--resume` does
after a killed run. Where cases kill workers often (a census: a framework that aborts on generated inputs), the
framework's import would dominate, so once a census has lost a worker the supervisor keeps a spare one
started, its framework imported and its cases collected, that takes over the moment the running one dies; the
host's next repeat starts up the same way while the current one runs (stand_by).
SIGINT or SIGTERM ends the run the same way, the case in flight recorded as
`interrupted` (a resumed run runs it again), and so does the end of a time budget (run_budget.py, cut short).
The results file is locked for the run's life.
What concerns the worker only as a child process (how it ended, its log, ending it) is worker_process.py's.
"""
from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from typing import Any, BinaryIO, Dict, List, Optional, Tuple

from portability_harness import lost_cases, processes, run_budget
from portability_harness.compile_caches import Caches
from portability_harness.errors import HarnessError, write_error
from portability_harness.protocol import (ENV_CONFIG, ENV_EVENTS_FD, ENV_GO_FD, ENV_WORKER_CPUS, CaseEnd, Config,
                                          Emitter, Error, Exit, Finished, Notice, Plan, Restart, Start, decode)
from portability_harness.records import schema, store
from portability_harness.worker_process import (RERUN, Spawned, WorkerEnd, describe_exit, discard_spare, dump_stacks,
                                                kill_session, log_tail, pytest_command, tell_to_go)

# A case past the per-case timeout is sent protocol.DUMP_SIGNAL (the worker's faulthandler writes every thread's
# stack to the log: where it hung) and killed this long after.
DUMP_GRACE_S = 1.0
# A worker imports the framework and collects every module before its first case: that start-up is
# bounded by this (or the per-case timeout, if longer), not by the per-case timeout, which may be short.
STARTUP_S = 600.0
# On an accelerator the first start can compile every kernel (TensorFlow's PTX through the driver's JIT on a GPU
# newer than its build) or wait for the TPU runtime: an hour, not ten minutes.
DEVICE_STARTUP_S = 3600.0
RELEASE_WAIT_S = 120.0  # for the last worker's processes to be gone before a new one opens an exclusive device
LOCK_WAIT_S = 15.0  # for the harness of a run stopped a moment ago to record its case in flight and exit
WATCH_S = 0.5  # how often the worker's memory is read when the cell has a limit (a /proc scan, ~2 ms)


class Supervisor:
    def __init__(self, cfg: Config, config_path: str, emit: Emitter):
        self.cfg = cfg
        self.config_path = os.path.abspath(config_path)  # the worker reads the same file
        self.emit = emit
        self.log_path = cfg.log_path
        self.planned = False
        self.kinds: Dict[str, Dict[str, str]] = {}  # the plan's pass and layout of its cases (Plan.kinds)
        self.proc: Optional[subprocess.Popen] = None
        self.spare: Optional[Spawned] = None
        self.standby: Optional[Spawned] = None  # the worker started up before the run was told to go (stand_by)
        self.standing_by = False
        self.keep_spare = False  # set once a census has lost a worker
        self.spares_taken = 0
        self.last_session: Optional[int] = None  # the session of the last worker started
        self.interrupted: Optional[int] = None  # the signal that stopped the run
        self.budget = run_budget.Budget(cfg.stop_at)
        self.started_at = time.time()
        self.workers: List[dict] = []  # each worker's start-up and end, time.time() (the footer's `workers`)
        self._lock: Optional[int] = None
        self.caches = Caches(cfg)  # the compilers' on-disk caches: empty at the cell's start
        available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.cpus = cfg.worker_cpus(available) if available else None

    # --- the run --------------------------------------------------------------------------------------

    def prepare_output(self) -> None:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.cfg.out)), exist_ok=True)
            already = store.holds_results(self.cfg.out)
            self._lock = store.lock(self.cfg.out, wait_s=LOCK_WAIT_S)
        except store.Locked as e:
            raise HarnessError(str(e))
        except OSError as e:
            raise write_error(self.cfg.out, e)
        if not self.cfg.resume:
            if already:
                raise HarnessError(f"{self.cfg.out} already holds results; pass --resume to continue it or choose "
                                   "another --out")
            return
        try:
            torn = store.repair(self.cfg.out)
        except store.CorruptResults as e:
            raise HarnessError(str(e))
        except OSError as e:
            raise write_error(self.cfg.out, e)
        if torn is not None:
            self.emit(Notice(message=f"dropped a torn last line of {self.cfg.out} ({len(torn)} bytes)"))

    def worker_command(self) -> List[str]:
        return pytest_command(self.cfg.curated_root, self.case_paths())

    def case_paths(self) -> List[str]:
        """What the worker collects: the curated modules, or for a census the one module that generates its
        cases from the framework's database."""
        if self.cfg.task == "census":
            from portability_harness.census import cases

            return [cases.__file__]
        return self.cfg.case_paths()

    def check_compatible(self) -> None:
        """A framework build that cannot run on the cell's GPU ends the run before any case, as a verdict on the
        cell (Exit.INCOMPATIBLE_DEVICE) naming both sides; no results file is written."""
        if self.cfg.task != "declared":
            from portability_harness import build_facts

            reason = build_facts.cell_reason(self.cfg.framework, self.cfg.device, self.cfg.device_facts)
            if reason:
                raise HarnessError(reason, code=Exit.INCOMPATIBLE_DEVICE)

    def run(self) -> int:
        self.check_compatible()
        self.prepare_output()
        restarts = 0
        try:
            while self.interrupted is None:
                end = self.run_worker()
                if self.interrupted is not None:
                    self.record_interrupted(end)
                    break
                if end.error is not None:
                    self.emit(end.error)
                    if end.error.code == Exit.INCOMPATIBLE_DEVICE:
                        store.drop_if_empty(self.cfg.out)  # a verdict on the cell (no compiler): no results file
                    return end.error.code
                if end.finished and end.in_flight is None:
                    self.write_footer(restarts)
                    return Exit.OK
                if self.budget.stopped_worker:  # (a worker started past the budget is stopped at once)
                    return self.cut_short(end.in_flight, restarts)
                if end.in_flight is not None and end.returncode != RERUN:  # (RERUN: the next worker runs it)
                    self.record_lost_case(end)
                    self.keep_spare = self.spare_allowed()
                elif not end.progressed:
                    raise HarnessError(
                        f"the worker died (exit {end.returncode}) before running any case; see {self.log_path}: "
                        + log_tail(self.log_path), code=Exit.WORKER_DIED)
                restarts += 1
                self.emit(Restart(reason=describe_exit(end), restarts=restarts))
        except OSError as e:  # appending a record the worker could not write
            raise write_error(self.cfg.out, e)
        finally:
            # Ended by an exception too (its stdout gone with the host that died: BrokenPipeError), it ends its
            # worker's session: left to its death signal, the worker would die alone, and what its case started
            # (a `sleep` child or daemon) would run on, re-parented to init.
            self.kill_worker()
            self.end_spare()
            self.end_standby()
            self.caches.remove()
        return 128 + (self.interrupted or 0)

    def interrupt(self, signum: int) -> None:
        """SIGINT or SIGTERM: end the worker; `run` then records the case in flight as interrupted."""
        self.interrupted = signum
        self.kill_worker()
        self.end_spare()
        self.end_standby()
        if self.standing_by:  # nothing runs or was written yet; the wait for the host's line ends here
            raise SystemExit(128 + signum)

    def stand_by(self, told: BinaryIO) -> bool:
        """The host's next repeat, started while its current one runs: the worker starts up (imports the framework,
        collects the cases) on CPUs the running worker does not use, then waits, as does this for the host's line
        on `told`. True: the run goes on, and its wall time starts now; False: the host closed `told` (the repeat
        before failed, the run stopped), and the worker is ended with nothing written. With no CPUs to spare
        beside the worker's, or on a device the running worker holds, the worker starts once told, as usual."""
        had_log, go = os.path.exists(self.log_path), b""
        self.standing_by = True
        try:
            if self.cpus and self.cfg.device not in ("cuda", "tpu") and self.spare_cpus() != self.cpus:
                self.standby = self.spawn(spare=True)
            go = told.readline()
        finally:
            self.standing_by = False
            if not go:  # an unfinished `go` (a signal) is False too
                self.end_standby()
                self.caches.remove()
                if not had_log:
                    with contextlib.suppress(OSError):
                        os.remove(self.log_path)
        self.started_at = time.time()
        return bool(go)

    def spawn(self, spare: bool = False) -> Spawned:
        read_fd, write_fd = os.pipe()
        env = dict(os.environ, **self.caches.env(), **{ENV_CONFIG: self.config_path, ENV_EVENTS_FD: str(write_fd)})
        passed = [write_fd]
        go, cpus = None, self.cpus
        if spare:
            wait_fd, go = os.pipe()
            env[ENV_GO_FD] = str(wait_fd)
            passed.append(wait_fd)
            cpus = self.spare_cpus()
            if cpus != self.cpus:  # spare_cpus gives the worker's own when there are none to pin
                env[ENV_WORKER_CPUS] = ",".join(map(str, self.cpus))
        spawned_at = time.time()
        with open(self.log_path, "ab") as log:
            proc = subprocess.Popen(
                self.worker_command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                # Its own session: what its cases start is found and ended; it dies with the supervisor; it
                # runs on the CPUs the config gives it (frameworks size their thread pools to them).
                env=env, pass_fds=tuple(passed), preexec_fn=processes.own_session(signal.SIGKILL, cpus),
            )
        for fd in passed:
            os.close(fd)
        return Spawned(proc, read_fd, go, spawned_at)

    def spare_allowed(self) -> bool:
        """A census keeps a spare worker once it has lost one, but not on a device one process holds alone (a TPU's
        chips) or whose memory a framework preallocates (JAX and TensorFlow take most of a GPU's): there the
        spare would fail to start, or starve the worker it stands beside."""
        return self.cfg.task == "census" and self.cfg.device not in ("cuda", "tpu")

    def spare_cpus(self) -> Optional[List[int]]:
        """Where a spare starts up: on as many of the CPUs left to the supervisor as the worker has (a framework
        sizes its thread pools to the CPUs it starts on, and the spare keeps those pools when it moves to the
        worker's), so that its framework import does not slow the running worker; on the worker's own where
        fewer are left."""
        if not self.cpus:
            return self.cpus
        rest = sorted(set(os.sched_getaffinity(0)) - set(self.cpus))
        return rest[:len(self.cpus)] if len(rest) >= len(self.cpus) else self.cpus

    def take_spare(self) -> Optional[Spawned]:
        """The spare, told to take over, if it is still alive."""
        spare, self.spare = self.spare, None
        taken = tell_to_go(spare)
        self.spares_taken += taken is not None
        return taken

    def end_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is not None:
            discard_spare(spare)

    def end_standby(self) -> None:
        standby, self.standby = self.standby, None
        if standby is not None:
            discard_spare(standby)

    def await_release(self) -> None:
        """On a device one process holds alone (a TPU's chips) or whose memory a framework preallocates (a GPU), a
        new worker waits until every process of the last one has exited, instead of failing to open the device
        and ending the cell."""
        if self.last_session is None or self.cfg.device not in ("cuda", "tpu"):
            return
        deadline = time.monotonic() + RELEASE_WAIT_S
        while processes.session_members(self.last_session) and time.monotonic() < deadline:
            time.sleep(0.1)

    def run_worker(self) -> WorkerEnd:
        standby, self.standby = self.standby, None
        worker = tell_to_go(standby) or self.take_spare()
        if worker is None:
            self.await_release()
            worker = self.spawn()
        self.last_session = worker.proc.pid  # its own session (processes.own_session)
        self.proc, read_fd = worker.proc, worker.events
        if self.interrupted is not None:  # the signal came while this worker was being started: `interrupt` ended
            self.kill_worker()  # the one before, and this one would run on; it ends now, its events read to their end
        timeline: Dict[str, Any] = {"spawned": worker.spawned_at}
        if worker is standby:
            timeline["standby"] = True  # started up before the run's start (stand_by)
        self.workers.append(timeline)
        limit_bytes = (self.cfg.memory_limit_mb or 0) * 2 ** 20
        in_flight: Optional[Tuple[str, str]] = None
        started = time.monotonic()
        # Until the worker's plan: its start-up.
        limit = max(self.cfg.timeout_s, DEVICE_STARTUP_S if self.cfg.device in ("cuda", "tpu") else STARTUP_S)
        timed_out = finished = progressed = False
        dumped = None  # the `started` whose case was asked for its stacks (once per case past its timeout)
        memory: Optional[int] = None
        error = None
        buffer = b""
        watched = time.monotonic()
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                grace = DUMP_GRACE_S if dumped == started else 0.0
                wait = max(0.0, min(started + limit + grace, self.budget.until()) - time.monotonic())
                ready, _, _ = select.select([pipe], [], [], min(wait, WATCH_S) if limit_bytes else wait)
                # Every WATCH_S, not at every event: a fast cell sends a hundred events a second, and each scan of
                # /proc costs ~2 ms of the CPU left to the supervisor and the host.
                if limit_bytes and time.monotonic() - watched >= WATCH_S:
                    watched = time.monotonic()
                    held = processes.rss_bytes(processes.session_members(self.proc.pid))
                    if held > limit_bytes:
                        memory = held
                        self.kill_worker()
                        break
                if not finished and self.budget.spent():
                    self.budget.stopped_worker = True
                    self.kill_worker()
                    break
                if not ready:
                    if time.monotonic() < started + limit + grace:
                        continue  # only the memory watch woke
                    if in_flight is not None and dumped != started:
                        dumped = started  # a case hangs: its stacks to the log first, the kill a second later
                        dump_stacks(self.proc)
                        continue
                    timed_out = True
                    self.kill_worker()
                    break
                chunk = pipe.read(65536)
                if not chunk:
                    # A worker ended by the stack dump's signal (one that could not dump: no handler yet) timed out.
                    timed_out = dumped == started
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    event = decode(line)
                    if isinstance(event, Plan):
                        self.kinds.update(event.kinds)
                        limit, started = run_budget.case_limit(self.cfg), time.monotonic()
                        timeline.update(event.times)
                        if self.keep_spare and self.spare is None:  # imports while this one runs
                            self.spare = self.spawn(spare=True)
                        if not self.planned:  # a replacement worker's plan is the rest of the first one
                            self.planned = True
                            self.budget.planned = event.pending
                            self.emit(event)
                    elif isinstance(event, Start):
                        in_flight = (event.case_id, event.function)
                        started = time.monotonic()
                        self.emit(event)
                    elif isinstance(event, CaseEnd):
                        in_flight = None
                        progressed = True
                        started = time.monotonic()
                        self.emit(event)
                    elif isinstance(event, Finished):
                        finished = True
                    elif isinstance(event, Error):
                        error = event
        returncode = self.proc.wait()
        timeline["ended"] = time.time()
        self.kill_worker()  # whatever the last case started and left behind
        return WorkerEnd(returncode, in_flight, timed_out, finished, error, progressed, memory,
                         round(time.monotonic() - started, 3) if in_flight else 0.0)

    def kill_worker(self) -> None:
        """End the worker and every process of its session (what its cases started)."""
        if self.proc is not None:
            kill_session(self.proc)

    # --- records the supervisor writes itself ---------------------------------------------------------

    def record_lost_case(self, end: WorkerEnd) -> None:
        case_id, function = end.in_flight  # type: ignore[misc]
        rec = lost_cases.lost(self.cfg, end, *lost_cases.describer(self.cfg, self.kinds)(case_id))
        self.append(rec)
        self.emit(CaseEnd(case_id=case_id, function=function, outcome=rec["outcome"], category=rec["category"]))

    def record_interrupted(self, end: WorkerEnd) -> None:
        if end.in_flight is None:
            return
        case_id, function = end.in_flight
        self.append(lost_cases.interrupted(end, *lost_cases.describer(self.cfg, self.kinds)(case_id)))
        self.emit(CaseEnd(case_id=case_id, function=function, outcome="interrupted"))

    def cut_short(self, in_flight: Optional[Tuple[str, str]], restarts: int) -> int:
        """The budget ended: every planned case without a result is recorded as cut short, then the footer."""
        store.repair(self.cfg.out)  # a worker killed mid-write may have left a torn line
        cut = run_budget.record(self.cfg, self.budget.planned, in_flight and in_flight[0],
                                lost_cases.describer(self.cfg, self.kinds))
        for rec in cut:
            self.emit(CaseEnd(case_id=rec["case_id"], function=rec["function"], outcome="interrupted"))
        self.write_footer(restarts)
        return Exit.OK

    def append(self, record: dict) -> None:
        store.repair(self.cfg.out)  # a worker killed mid-write may have left a torn line
        with store.Writer(self.cfg.out) as writer:
            writer.append(record)

    def write_footer(self, restarts: int) -> None:
        cases = store.read(self.cfg.out).cases
        counts = schema.count_outcomes(cases)
        self.append(schema.footer(counts, worker_restarts=restarts, spares_taken=self.spares_taken,
                                  engine=self.cfg.engine or None, supervisor_started_at=self.started_at,
                                  supervisor_ended_at=time.time(), workers=self.workers, **run_budget.counted(cases)))
        self.emit(Finished(counts=counts))
