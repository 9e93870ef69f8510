"""Runs a cell's cases in a pytest worker and replaces the worker when a case kills it.

The worker imports the framework once and runs case after case. If a case segfaults, aborts, exits,
is killed for memory or hangs past the per-case timeout, the supervisor records that case (it knows
which one was running from the worker's events), starts a new worker, and the new worker skips every
case already in the results file, exactly as `--resume` does after a killed run.
"""
from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from portability_harness import classify as clf
from portability_harness.protocol import (ENV_CONFIG, ENV_EVENTS_FD, CaseEnd, Config, Emitter, Error, Exit,
                                          Finished, Notice, Plan, Restart, Start, decode)
from portability_harness.records import schema, store

GRACE_S = 5.0  # beyond the per-case timeout, for pytest's own traceback dump before the kill
# A worker imports the framework and collects every module before its first case: that start-up is
# bounded by this (or the per-case timeout, if longer), not by the per-case timeout, which may be short.
STARTUP_S = 600.0
_INI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest.ini")


class HarnessError(Exception):
    """A problem with the whole cell run (bad --out, worker cannot start): one line for the user."""

    def __init__(self, message: str, code: Exit = Exit.USAGE):
        super().__init__(message)
        self.code = code


@dataclass
class WorkerEnd:
    returncode: int
    in_flight: Optional[Tuple[str, str]]  # (case id, function) running when the worker ended
    timed_out: bool
    finished: bool
    error: Optional[Error]
    progressed: bool


def _die_with_parent() -> None:
    """Worker pre-exec: die when the supervisor dies, so a killed run leaves no worker behind."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Supervisor:
    def __init__(self, cfg: Config, config_path: str, emit: Emitter):
        self.cfg = cfg
        self.config_path = os.path.abspath(config_path)  # the worker reads the same file
        self.emit = emit
        self.log_path = cfg.log_path
        self.planned = False
        self.proc: Optional[subprocess.Popen] = None

    def prepare_output(self) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(self.cfg.out)), exist_ok=True)
        if not self.cfg.resume:
            if store.holds_results(self.cfg.out):
                raise HarnessError(f"{self.cfg.out} already holds results; pass --resume to continue it or choose "
                                   "another --out")
            return
        try:
            torn = store.repair(self.cfg.out)
        except store.CorruptResults as e:
            raise HarnessError(str(e))
        if torn is not None:
            self.emit(Notice(message=f"dropped a torn last line of {self.cfg.out} ({len(torn)} bytes)"))

    def worker_command(self) -> List[str]:
        return [
            sys.executable, "-m", "pytest",
            # The curated root is the rootdir and the limit of conftest discovery: a conftest.py of a
            # project the curated folder sits in is never loaded into the worker.
            "-c", _INI, "--rootdir", os.path.abspath(self.cfg.curated_root),
            "--confcutdir", os.path.abspath(self.cfg.curated_root),
            "-p", "portability_harness.plugin", "--import-mode=importlib", "-q", "-rN",
            # pytest's faulthandler dumps every thread's stack when a case outlives the timeout: the
            # log then shows where it hung before the supervisor kills the worker.
            "-o", f"faulthandler_timeout={self.cfg.timeout_s}",
            *[os.path.abspath(p) for p in self.cfg.case_paths()],
        ]

    def run(self) -> int:
        self.prepare_output()
        restarts = 0
        while True:
            end = self.run_worker()
            if end.error is not None:
                self.emit(end.error)
                return end.error.code
            if end.finished and end.in_flight is None:
                break
            if end.in_flight is not None:
                self.record_lost_case(end)
            elif not end.progressed:
                raise HarnessError(
                    f"the worker died (exit {end.returncode}) before running any case; see {self.log_path}: "
                    + self.log_tail(), code=Exit.WORKER_DIED)
            restarts += 1
            self.emit(Restart(reason=describe_exit(end.returncode, end.timed_out), restarts=restarts))
        self.write_footer(restarts)
        return Exit.OK

    def run_worker(self) -> WorkerEnd:
        read_fd, write_fd = os.pipe()
        env = dict(os.environ, **{ENV_CONFIG: self.config_path, ENV_EVENTS_FD: str(write_fd)})
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.worker_command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=env, pass_fds=(write_fd,), preexec_fn=_die_with_parent,
            )
        os.close(write_fd)
        in_flight: Optional[Tuple[str, str]] = None
        started = time.monotonic()
        limit = max(self.cfg.timeout_s, STARTUP_S)  # until the worker's plan: its start-up
        timed_out = finished = progressed = False
        error = None
        buffer = b""
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                deadline = started + limit + GRACE_S
                wait = max(0.0, deadline - time.monotonic())
                ready, _, _ = select.select([pipe], [], [], wait)
                if not ready:
                    timed_out = True
                    self.kill_worker()
                    break
                chunk = pipe.read(65536)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    event = decode(line)
                    if isinstance(event, Plan):
                        limit, started = self.cfg.timeout_s, time.monotonic()
                        if not self.planned:  # a replacement worker's plan is the rest of the first one
                            self.planned = True
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
        return WorkerEnd(returncode, in_flight, timed_out, finished, error, progressed)

    def kill_worker(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def record_lost_case(self, end: WorkerEnd) -> None:
        case_id, function = end.in_flight  # type: ignore[misc]
        if end.timed_out:
            category = "timeout"
        elif end.returncode == -signal.SIGKILL:
            category = "memory"  # a SIGKILL the supervisor did not send is the kernel's OOM killer
        else:
            category = "crash"
        message = describe_exit(end.returncode, end.timed_out, self.cfg.timeout_s)
        detail = self.log_tail()
        if detail and category != "timeout":
            message += f": {detail}"
        rec = schema.case(function=function, module=case_id.split("::")[0], case_id=case_id, params={},
                          outcome="failed", category=category, message=message, category_source="supervisor")
        version = (store.read(self.cfg.out).header or {}).get("framework_version") or ""  # the worker wrote it
        annotation = clf.annotated(clf.load_annotations(self.cfg.annotations_path()), case_id, self.cfg.device,
                                   version)
        if annotation is not None:
            rec.update(category=annotation.category, category_source="annotation", annotation=annotation.reason)
        with store.Writer(self.cfg.out) as writer:
            writer.append(rec)
        self.emit(CaseEnd(case_id=case_id, function=function, outcome="failed", category=rec["category"]))

    def log_tail(self) -> str:
        """The most telling line the dead worker left in its log (faulthandler's, or the last one)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(max(0, os.path.getsize(self.log_path) - 8192))
                lines = [l.strip() for l in f.read().decode("utf-8", "replace").splitlines() if l.strip()]
        except OSError:
            return ""
        for line in reversed(lines):
            if line.startswith("Fatal Python error"):
                return line
        return lines[-1][:300] if lines else ""

    def write_footer(self, restarts: int) -> None:
        contents = store.read(self.cfg.out)
        counts = schema.count_outcomes(contents.cases)
        with store.Writer(self.cfg.out) as writer:
            writer.append(schema.footer(counts, worker_restarts=restarts))
        self.emit(Finished(counts=counts))


def describe_exit(returncode: int, timed_out: bool, timeout_s: Optional[float] = None) -> str:
    if timed_out:
        return f"exceeded the per-case timeout of {timeout_s:g} s and was killed" if timeout_s else "timed out"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the worker died with {name}"
    return f"the worker exited with status {returncode}"
