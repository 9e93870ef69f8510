"""The processes of a cell run, read from /proc: what a case started, and how much memory they all hold.

The harness runs in a session of its own (the backend starts it so); the worker gets a process group of
its own inside that session, and whatever a case starts stays in the session unless it calls setsid
itself. So "every process this run started" is "every process of this session but the supervisor". Between
cases the worker looks closer and cheaper: at its own descendants, orphans included (it adopts them).
Linux only: elsewhere these functions see no processes, and nothing is cleaned up or watched.
"""
from __future__ import annotations

import ctypes
import os
import signal
import time
from typing import Callable, Iterable, Optional, Set

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _session(pid: int) -> Optional[int]:
    """The session id of a live process, or None if it is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after its closing one.
    fields = data[data.rfind(b")") + 2:].split()
    if fields[0] in (b"Z", b"X"):  # a zombie holds no memory and cannot be killed again
        return None
    return int(fields[3])


def alive(pid: int) -> bool:
    """Whether a process is running: neither gone nor a zombie."""
    return _session(pid) is not None


def session_members(session: int) -> Set[int]:
    """Every live process of the session (the session leader included)."""
    try:
        pids = [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return set()
    return {pid for pid in pids if _session(pid) == session}


def adopt_orphans() -> bool:
    """Make this process the parent of every orphan among its descendants (PR_SET_CHILD_SUBREAPER), so that
    `descendants` finds what a case started even after the process in between has exited. False where the
    platform cannot (then `descendants` misses orphans: a case's daemon, which `session_members` still sees)."""
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def descendants(pid: int) -> Optional[Set[int]]:
    """Every live process below `pid`, read from its threads' /proc children lists (a few small reads, where a
    session scan reads every process's stat); None where the kernel does not list children."""
    found: Set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tids = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue  # gone meanwhile
        for tid in tids:
            try:
                with open(f"/proc/{parent}/task/{tid}/children", "rb") as f:
                    children = [int(c) for c in f.read().split()]
            except FileNotFoundError:
                if parent == pid and not found:
                    return None  # no CONFIG_PROC_CHILDREN (or the thread ended: the caller falls back alike)
                continue
            except OSError:
                continue
            for child in children:
                if child not in found and _session(child) is not None:  # a zombie is already ended
                    found.add(child)
                    todo.append(child)
    return found


def kill(pids: Iterable[int], collect: bool = False) -> None:
    """SIGKILL each; with `collect`, also wait for those that are this process's children (an orphan it adopted,
    a child a case left), which would stay zombies otherwise. Not for a child whose exit status a Popen reads."""
    pids = list(pids)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if not collect:
        return
    deadline = time.monotonic() + 0.5
    for pid in pids:
        while True:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] or time.monotonic() > deadline:
                    break
            except OSError:  # not our child, or collected already
                break
            time.sleep(0.001)


def rss_bytes(pids: Iterable[int]) -> int:
    """Resident memory of the processes together (shared pages counted in each: an upper bound)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            pass
    return total


def move_to(cpus: Iterable[int], pid: str = "self") -> None:
    """Pin every thread of a process (this one by default) to `cpus`: sched_setaffinity moves one thread, and
    the threads a framework started at import keep the CPUs they were started on."""
    cpus = set(cpus)
    for _ in range(3):  # a thread started while we pin is pinned on the next pass
        tids = set(os.listdir(f"/proc/{pid}/task"))
        for tid in tids:
            try:
                os.sched_setaffinity(int(tid), cpus)
            except OSError:  # ended meanwhile
                pass
        if set(os.listdir(f"/proc/{pid}/task")) == tids:
            return


def own_session(death_signal: int, cpus: Optional[Iterable[int]] = None) -> Callable[[], None]:
    """A `preexec_fn` for a child that leads a session of its own (so that everything it starts can be found
    and ended, and a terminal's Ctrl-C reaches only its parent), gets `death_signal` when its parent dies
    (so that a killed parent leaves no child running on), and runs on `cpus` when given."""
    parent = os.getpid()  # made in the parent, called in the child between fork and exec

    def preexec() -> None:
        os.setsid()
        if cpus is not None:
            os.sched_setaffinity(0, set(cpus))
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, death_signal)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            return
        # A parent that died between the fork and the prctl sent no signal: the child has a new parent by now.
        if os.getppid() != parent:
            os._exit(128 + death_signal)

    return preexec
