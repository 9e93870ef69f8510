"""The harness as a child process of the host, for the backends whose environment is an interpreter on this machine
(a venv the runner built, an environment the user has): started in a session of its own so that only the host
hears a terminal's Ctrl-C and passes it on, stopped when the host dies, its events read from its stdout.

Such a harness can also be started ahead, on standby: the engine starts a cell's next repeat while the current
one runs, so that its worker imports the framework and collects its cases on a CPU the running worker leaves
free, and tells it to go when the current repeat ends (`python -m portability_harness CONFIG --standby`).
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from abc import abstractmethod
from pathlib import Path
from typing import Iterator, Optional

from portability_harness import processes
from portability_harness.protocol import Config, Event

from runner.backends.base import STOP_WAIT_S, Environment, harness_events


class Harness:
    """`python -m portability_harness CONFIG` with exactly `env`, in the results folder: running from the start, or
    with `standby` waiting to be told to go by `events()`, or ended unused by `discard()`."""

    def __init__(self, python: str, env: dict[str, str], config: Config, standby: bool = False):
        self.config, self.standby = config, standby
        out_dir = Path(config.out).parent
        out_dir.mkdir(parents=True, exist_ok=True)
        self._tmp = tempfile.TemporaryDirectory(prefix="runner-harness-")
        path = config.write(os.path.join(self._tmp.name, "config.json"))
        self._stderr = open(os.path.join(self._tmp.name, "stderr"), "w+b")
        try:
            self.proc = subprocess.Popen([python, "-m", "portability_harness", path] + ["--standby"] * standby,
                                         cwd=out_dir, stdin=subprocess.PIPE if standby else subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=self._stderr,
                                         env=dict(env, PYTHONUNBUFFERED="1"),
                                         preexec_fn=processes.own_session(signal.SIGTERM))
        except BaseException:  # an interpreter gone since it was checked: nothing of this one is left behind
            self._stderr.close()
            self._tmp.cleanup()
            raise

    def events(self) -> Iterator[Event]:
        """The run's events, from now (a standby is told to go first)."""
        assert self.proc.stdout is not None
        try:
            if self.standby:
                self._tell(b"go\n")
            yield from harness_events(self.config, iter(self.proc.stdout.readline, b""), self._ended)
        finally:
            self._stop(signal.SIGTERM)

    def discard(self) -> None:
        """A standby not needed after all (the repeat before failed, the run stopped): it ends, writing nothing."""
        self._tell(b"")
        self._stop(None)

    def _tell(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.close()
        except OSError:  # it has died already: its exit status says why
            pass

    def _ended(self) -> tuple[int, str]:
        code = self.proc.wait()
        self._stderr.seek(0)
        return code, self._stderr.read().decode("utf-8", "replace")[-2000:]

    def _stop(self, signum: Optional[int]) -> None:
        """Stop the harness if it still runs (the host stopped reading: a signal), then clean up."""
        if self.proc.poll() is None and signum is not None:
            self.proc.send_signal(signum)
        try:
            self.proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()
        self._tmp.cleanup()


class ProcessEnvironment(Environment):
    """An environment whose harness runs as a child process of the host: its interpreter, and the variables
    `variables(config)` gives it."""

    python: str

    @abstractmethod
    def variables(self, config: Optional[Config] = None) -> dict[str, str]:
        """The harness's environment (for `config`, where it records what was passed)."""

    def run(self, config: Config) -> Iterator[Event]:
        yield from Harness(self.python, self.variables(config), config).events()

    def standby(self, config: Config) -> Optional[Harness]:
        return Harness(self.python, self.variables(config), config, standby=True)
