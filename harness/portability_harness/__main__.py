"""`python -m portability_harness CONFIG.json [--standby]`: run one cell's curated cases and write its JSON Lines
records.

CONFIG.json is a `protocol.Config` written by the host. Progress events (one JSON object a line) go to
stdout; what the worker and pytest print goes to <out>.log beside the results. With --standby (the host's next
repeat, started while the current one runs) the worker imports the framework and collects its cases beside the
running repeat, then waits for a line on stdin before anything is written; stdin closed instead, it ends.
"""
from __future__ import annotations

import os
import signal
import sys
from typing import List, Optional

from portability_harness import processes
from portability_harness.protocol import Config, ConfigError, Emitter, Error, Exit, Finished, Notice
from portability_harness.errors import HarnessError
from portability_harness.supervisor import Supervisor

USAGE = "usage: python -m portability_harness CONFIG.json [--standby]"


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    emit = Emitter()
    standby = args[1:] == ["--standby"]
    if len(args) != 1 + standby or args[0].startswith("-"):
        print(USAGE + "\n\n" + (__doc__ or ""), file=sys.stderr)
        return Exit.USAGE
    try:
        cfg = Config.read(args[0])
    except ConfigError as e:
        emit(Error(reason="usage", message=str(e), code=Exit.USAGE))
        return Exit.USAGE
    if cfg.task == "declared":
        return read_declared(cfg, emit)
    supervisor = Supervisor(cfg, args[0], emit)
    keep_off(supervisor.cpus)
    # Stop after recording the case in flight as interrupted; records already written stay, --resume continues.
    signal.signal(signal.SIGTERM, lambda signum, frame: supervisor.interrupt(signum))
    signal.signal(signal.SIGINT, lambda signum, frame: supervisor.interrupt(signum))
    try:
        if standby and not supervisor.stand_by(sys.stdin.buffer):
            return Exit.OK  # not needed after all: nothing was written
        return supervisor.run()
    except HarnessError as e:
        emit(Error(reason=e.code.name.lower(), message=str(e), code=e.code))
        return e.code


def keep_off(worker_cpus: Optional[List[int]]) -> None:
    """This process (the supervisor, and what it starts unpinned) onto the CPUs its worker leaves, where any are left
    (cpus = "all-but-one": the host's). Else the kernel may wake it, at each of the worker's events and each memory
    reading, on the CPU whose call is being timed: the more often, the busier the host's CPU (a verdict lane there,
    runner/lanes.py). Its spare and standby workers start on these CPUs anyway (Supervisor.spare_cpus)."""
    if not worker_cpus or not hasattr(os, "sched_getaffinity"):
        return
    rest = sorted(set(os.sched_getaffinity(0)) - set(worker_cpus))
    if rest:
        processes.move_to(rest)


def read_declared(cfg: Config, emit: Emitter) -> int:
    """The framework's declared support, as a table in the folder cfg.out (<framework>-<version>.json.gz)."""
    from portability_harness import declared
    from portability_harness.frameworks import adapter_for

    # The device's environment first (JAX_PLATFORMS...), as a cell run sets it before the import.
    os.environ.update(adapter_for(cfg.framework).environment(cfg.device, cfg.mode))
    try:
        table = declared.read(cfg.framework)
    except Exception as e:  # the framework's test database did not import: say which and why, in one line
        emit(Error(reason="usage", message=f"could not read {cfg.framework}'s declared support: "
                                            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"))
        return Exit.USAGE
    version = table["framework_version"].split("+", 1)[0]
    try:
        path = declared.save(table, os.path.join(cfg.out, f"{cfg.framework}-{version}.json.gz"))
    except OSError as e:
        emit(Error(reason="output", message=f"cannot write the table into {cfg.out}: {e.strerror or e}",
                   code=Exit.OUTPUT))
        return Exit.OUTPUT
    emit(Notice(message=f"declared support of {cfg.framework} {table['framework_version']}: {path}"))
    emit(Finished(counts={f"{kind} {what}": n for kind, cov in table["coverage"].items() for what, n in cov.items()}))
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
