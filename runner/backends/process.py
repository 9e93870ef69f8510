"""The harness as a child process of the host, for the backends whose environment is an interpreter on this machine
(a venv the runner built, an environment the user has): started in a session of its own so that only the host
hears a terminal's Ctrl-C and passes it on, stopped when the host dies, its events read from its stdout."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from portability_harness import processes
from portability_harness.protocol import Config, Event

from runner.backends.base import STOP_WAIT_S, harness_events


def run_harness(python: str, env: dict[str, str], config: Config) -> Iterator[Event]:
    """`python -m portability_harness CONFIG` with exactly `env`, in the results folder; its events."""
    out_dir = Path(config.out).parent
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="runner-harness-") as tmp:
        path = config.write(os.path.join(tmp, "config.json"))
        with open(os.path.join(tmp, "stderr"), "w+b") as stderr:
            proc = subprocess.Popen([python, "-m", "portability_harness", path], cwd=out_dir,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
                                    env=dict(env, PYTHONUNBUFFERED="1"),
                                    preexec_fn=processes.own_session(signal.SIGTERM))
            assert proc.stdout is not None

            def ended() -> tuple[int, str]:
                code = proc.wait()
                stderr.seek(0)
                return code, stderr.read().decode("utf-8", "replace")[-2000:]

            try:
                yield from harness_events(config, iter(proc.stdout.readline, b""), ended)
            finally:
                if proc.poll() is None:  # the host stopped reading (a signal): stop the harness too
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(STOP_WAIT_S)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
