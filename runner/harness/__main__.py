"""`python -m runner.harness`: run one framework's curated cases on one device, write JSON Lines.

Prints progress events (JSON, one a line) on stdout for the host; everything the worker prints goes
to <out>.log beside the results.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import uuid
from typing import List, Optional

from runner.frameworks import FRAMEWORKS
from runner.frameworks.base import DEVICE_KINDS
from runner.harness.config import DEFAULT_TIMEOUT_S, Config
from runner.harness.events import Emitter
from runner.harness.supervisor import HarnessError, Supervisor


def parse(argv: Optional[List[str]]) -> Config:
    p = argparse.ArgumentParser(prog="python -m runner.harness", description=__doc__)
    p.add_argument("--framework", required=True, choices=FRAMEWORKS)
    p.add_argument("--device", required=True, choices=DEVICE_KINDS)
    p.add_argument("--out", required=True, help="the JSON Lines results file of this cell")
    p.add_argument("--curated", default=os.environ.get("RUNNER_CURATED", "curated"), help="the curated root")
    p.add_argument("--cases", action="append", default=[], help="module or folder to run (default: <curated>/<framework>)")
    p.add_argument("--mode", choices=("steady", "paper"), default="steady")
    p.add_argument("--quick", action="store_true", help="few warm samples (CI), not for results")
    p.add_argument("--functions", action="append", default=[], help="fnmatch pattern over sampled names")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="per-case timeout in seconds")
    p.add_argument("--resume", action="store_true", help="continue a results file, skipping recorded cases")
    p.add_argument("--run-id", default="")
    p.add_argument("--profile", default="")
    p.add_argument("--image", default="")
    p.add_argument("--annotations", default=None)
    p.add_argument("--repeat", type=int, default=1, help="which repeat of the cell this run is (1-based)")
    p.add_argument("--environment", default="", help="what realised the image: a Docker image id or a venv name")
    a = p.parse_args(argv)
    return Config(
        framework=a.framework, device=a.device, out=a.out, curated_root=a.curated, cases=a.cases, mode=a.mode,
        quick=a.quick, functions=a.functions, timeout_s=a.timeout, resume=a.resume,
        run_id=a.run_id or uuid.uuid4().hex[:12], profile=a.profile, image=a.image, annotations=a.annotations,
        repeat=a.repeat, environment=a.environment,
    )


def main(argv: Optional[List[str]] = None) -> int:
    cfg = parse(argv)
    emit = Emitter()
    if not os.path.isdir(cfg.curated_root):
        emit("error", kind="usage", message=f"curated folder {cfg.curated_root} does not exist; pass --curated")
        return 2
    supervisor = Supervisor(cfg, emit)

    def stop(signum: int, frame: object) -> None:
        supervisor.kill_worker()  # records already written stay; --resume continues
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        return supervisor.run()
    except HarnessError as e:
        emit("error", kind="harness", message=str(e))
        return e.code


if __name__ == "__main__":
    sys.exit(main())
