"""`python -m portability_harness CONFIG.json`: run one cell's curated cases and write its JSON Lines records.

CONFIG.json is a `protocol.Config` written by the host. Progress events (one JSON object a line) go to
stdout; what the worker and pytest print goes to <out>.log beside the results.
"""
from __future__ import annotations

import signal
import sys
from typing import List, Optional

from portability_harness.protocol import Config, ConfigError, Emitter, Error, Exit
from portability_harness.supervisor import HarnessError, Supervisor

USAGE = "usage: python -m portability_harness CONFIG.json"


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    emit = Emitter()
    if len(args) != 1 or args[0].startswith("-"):
        print(USAGE + "\n\n" + (__doc__ or ""), file=sys.stderr)
        return Exit.USAGE
    try:
        cfg = Config.read(args[0])
    except ConfigError as e:
        emit(Error(reason="usage", message=str(e), code=Exit.USAGE))
        return Exit.USAGE
    supervisor = Supervisor(cfg, args[0], emit)
    # Stop after recording the case in flight as interrupted; records already written stay, --resume continues.
    signal.signal(signal.SIGTERM, lambda signum, frame: supervisor.interrupt(signum))
    signal.signal(signal.SIGINT, lambda signum, frame: supervisor.interrupt(signum))
    try:
        return supervisor.run()
    except HarnessError as e:
        emit(Error(reason=e.code.name.lower(), message=str(e), code=e.code))
        return e.code


if __name__ == "__main__":
    sys.exit(main())
