"""A pytest worker process as the supervisor sees it from outside: the handle it started, how it ended, the
line of its log that says why it died, and how it and whatever its cases started are ended.

None of this knows about cases, records or the census: it is the part of the supervisor that only deals with
a child process, kept apart so that the supervisor itself reads as the run's logic.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import List, Optional, Tuple

from portability_harness import processes
from portability_harness.protocol import DUMP_SIGNAL, Error

# A C++ CHECK's fatal line, in glog's format ("F0000 00:00:1795489553.083221 7347 x.cc:52] ...": torch_xla, jaxlib) or
# in TSL's ("2026-12-07 00:55:29.097412: F external/xla/xla/permutation_util.h:105] ...": XLA inside torch_xla,
# TensorFlow), where the faulthandler line after it says only "Aborted".
_CHECK_FATAL = re.compile(r"F\d{4} [\d:. ]+\S+ \S+:\d+\] |\d{4}-\d\d-\d\d [\d:.]+: F \S+:\d+\] ")
_FAULTHANDLER = re.compile(r"Fatal Python error")


@dataclass
class WorkerEnd:
    returncode: int
    in_flight: Optional[Tuple[str, str]]  # (case id, function) running when the worker ended
    timed_out: bool
    finished: bool
    error: Optional[Error]
    progressed: bool
    memory_bytes: Optional[int] = None  # what the worker held when the memory limit ended it
    in_flight_s: float = 0.0  # how long the case in flight had run when the worker ended


@dataclass
class Spawned:
    """A worker process and the read end of its event pipe; a spare also holds the pipe it waits on."""
    proc: subprocess.Popen
    events: int
    go: Optional[int] = None  # a spare's: one byte written hands it the run; closed unwritten, it exits
    spawned_at: float = 0.0  # time.time() just before it was started


def kill_session(proc: subprocess.Popen) -> None:
    """End a worker and every process of its session."""
    members = processes.session_members(proc.pid)
    if proc.poll() is None:
        members.add(proc.pid)
    processes.kill(members)


def dump_stacks(proc: subprocess.Popen) -> None:
    """Ask a worker for every thread's stack in its log (it may have ended meanwhile)."""
    try:
        os.kill(proc.pid, DUMP_SIGNAL)
    except ProcessLookupError:
        pass


def discard_spare(spare: Spawned) -> None:
    """End a spare that will not take over: its pipes closed, its session killed, the process reaped."""
    for fd in (spare.go, spare.events):
        try:
            os.close(fd)  # type: ignore[arg-type]
        except OSError:  # the go pipe is closed once written
            pass
    kill_session(spare.proc)
    spare.proc.wait()


def tell_to_go(spare: Optional[Spawned]) -> Optional[Spawned]:
    """A waiting worker, told to take over, if it is still alive (else ended)."""
    if spare is None:
        return None
    try:
        if spare.proc.poll() is None:
            os.write(spare.go, b"1")  # type: ignore[arg-type]
            os.close(spare.go)  # type: ignore[arg-type]
            return spare
    except OSError:  # it died between the look and the write
        pass
    discard_spare(spare)
    return None


# A worker exits with this after recording a case whose error leaves the device unusable (classify.STICKY).
RETIRED = 75
# A worker exits with this, the case unrecorded, where a case met an error that an earlier case's failure left in the
# process (classify.INHERITED): the next worker runs it again, first.
RERUN = 76


def describe_exit(end: WorkerEnd, timeout_s: Optional[float] = None, memory_limit_mb: Optional[int] = None) -> str:
    if end.timed_out:
        return f"exceeded the per-case timeout of {timeout_s:g} s and was killed" if timeout_s else "timed out"
    if end.memory_bytes is not None:
        limit = f" of {memory_limit_mb / 1024:.3g} GiB" if memory_limit_mb else ""
        return f"held {end.memory_bytes / 2 ** 30:.3g} GiB, more than the memory limit{limit}, and was killed"
    if end.returncode < 0:
        try:
            name = signal.Signals(-end.returncode).name
        except ValueError:
            name = f"signal {-end.returncode}"
        return f"the worker died with {name}"
    if end.returncode == RETIRED:
        return "the last case left the device unusable (a sticky device error); a new worker takes the next case"
    if end.returncode == RERUN:
        return ("the case met an error an earlier case left in the process (torch_xla's lost tensor data); a new "
                "worker runs it again")
    return f"the worker exited with status {end.returncode}"


def log_lines(log_path: str) -> List[str]:
    """The non-empty lines of the last 64 KiB of a worker's log (none if it cannot be read)."""
    try:
        with open(log_path, "rb") as f:
            # faulthandler's dump of every thread's stack can run to tens of kilobytes after the cause
            f.seek(max(0, os.path.getsize(log_path) - 65536))
            return [l.strip() for l in f.read().decode("utf-8", "replace").splitlines() if l.strip()]
    except OSError:
        return []


def log_tail(log_path: str) -> str:
    """The most telling line the dead worker left in its log: a glog FATAL line (a C++ CHECK that aborted
    the process, as TensorFlow's and XLA's do), else faulthandler's, else the last one."""
    lines = log_lines(log_path)
    # pytest's progress dots run on into the line faulthandler starts: "ss.Fatal Python error: Aborted"
    for telling in (_CHECK_FATAL, _FAULTHANDLER):
        for line in reversed(lines):
            found = telling.search(line)
            if found:
                return line[found.start():][:300]
    return lines[-1][:300] if lines else ""


# pytest.ini beside this module: the worker's settings, never a project's.
_INI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest.ini")


def pytest_command(curated_root: str, case_paths: List[str]) -> List[str]:
    """The worker's command line: pytest with the harness's plugin over the cases' files."""
    return [
        sys.executable, "-m", "pytest",
        # The curated root is the rootdir and the limit of conftest discovery: a conftest.py of a
        # project the curated folder sits in is never loaded into the worker.
        "-c", _INI, "--rootdir", os.path.abspath(curated_root),
        "--confcutdir", os.path.abspath(curated_root),
        # A module that cannot be imported is recorded by the plugin; the others still run.
        "--continue-on-collection-errors",
        "-p", "portability_harness.plugin", "--import-mode=importlib", "-q", "-rN",
        # The log keeps each failure's traceback, in Python's own format: pytest's long format (source, the
        # fixtures' reprs) took 0.1-0.7 s a failure in TensorFlow's deep traces, half a compiled TF repeat.
        "--tb=native",
        # No output capture: what a case prints goes straight to the log, and stays there when the worker
        # dies mid-case (captured, it died with the worker's temporary file). Capturing and reading back
        # stdout and stderr around each of a case's three phases cost 0.1-0.2 ms a case. The log keeps the
        # passing cases' output too (a TensorFlow repeat's: 0.9 MB, mostly its graph-mode "never used"
        # notices); the capsys and capfd fixtures still capture for the cases that read their output.
        "--capture=no",
        *[os.path.abspath(p) for p in case_paths],
    ]
