"""What both backends share: the interface (Backend, Environment), CellFailed and CellIncompatible, how a harness run's output
becomes events, and the most telling line of a failed install. Kept out of the package's __init__, which picks a
backend and so imports both, and free of the plan, which asks that choice: each backend imports this without a
circle.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, Protocol

from portability_harness.protocol import Config, Error, Event, Exit, decode

from runner.errors import UserError

if TYPE_CHECKING:
    from runner.cell import Cell

STOP_WAIT_S = 60  # a harness asked to stop records its case in flight, then exits; after this it is killed
Log = Callable[[str], None]


class CellFailed(UserError):
    """The harness of a cell could not finish: one line naming the cell and why."""

    def __init__(self, message: str):
        super().__init__(message, code=3)


class CellIncompatible(UserError):
    """The framework build cannot run on this device (the harness's compat.py): the cell's verdict, not a failure;
    the message names both sides."""

    def __init__(self, message: str):
        super().__init__(message, code=0)


class Environment(ABC):
    """A realised image: runs the harness on one config and yields its events."""

    description: str  # what realised it, for the records' header: "venv <name>" or "docker <tag> <id>"

    @abstractmethod
    def run(self, config: Config) -> Iterator[Event]:
        """Run the harness on `config` (host paths); yield its events; raise CellFailed if it did not finish.
        Closing the iterator early (a signal reached the host) stops the harness, which records the case in
        flight as interrupted."""

    def standby(self, config: Config) -> Optional["Standby"]:
        """The harness of `config` started ahead, while the repeat before it runs (its worker imports the framework
        and collects its cases, then waits), or None where this environment cannot (a container is started per
        run): the engine then runs `config` when its turn comes."""
        return None

    def close(self) -> None:
        """The engine is done with this environment."""


class Standby(Protocol):
    """A harness started ahead (Environment.standby)."""

    def events(self) -> Iterator[Event]:
        """Tell it to go; its events, as `Environment.run` gives them."""

    def discard(self) -> None:
        """It is not needed after all: it ends, writing nothing."""


class Backend(ABC):
    name: str

    @abstractmethod
    def prepare(self, cell: "Cell", log: Log, install_log: Path) -> Environment:
        """Build (or reuse) the cell's environment; raise UserError with pip's or the engine's reason. What the
        installer printed goes to `install_log` when anything is built."""

    def ready(self, cell: "Cell") -> bool:
        """Whether `prepare` would return at once, building nothing (runner.scheduler starts a repeat ahead only then);
        False where it cannot tell."""
        return False

    def prefetch(self, cell: "Cell", log: Log, install_log: Path) -> None:
        """Build the cell's environment ahead, while another cell runs (runner.prefetch), so that `prepare` finds
        it ready; a backend that builds nothing ahead leaves this as it is. Errors are left to `prepare`."""


def harness_events(config: Config, chunks: Iterable[bytes], ended: Callable[[], tuple[int, str]]) -> Iterator[Event]:
    """The events of one harness run, read from its output chunks (a pipe's reads, a container's log); then,
    once the output ends, `ended()` gives (exit status, what else is known: stderr's tail, a kill), and a
    run that did not finish raises CellFailed with the harness's own error line if it gave one."""
    errors: list[Error] = []
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            event = decode(line)
            if isinstance(event, Error):
                errors.append(event)
            elif event is not None:
                yield event
    returncode, detail = ended()
    label = f"{config.image} ({config.profile})"
    if errors and errors[-1].reason == Exit.INCOMPATIBLE_DEVICE.name.lower():
        raise CellIncompatible(errors[-1].message)
    if errors:
        raise CellFailed(f"{label}: {errors[-1].message}")
    if returncode != 0:
        last = (detail.strip().splitlines() or ["no output"])[-1]
        raise CellFailed(f"{label}: the harness exited with status {returncode}: {last}")


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GENERIC = re.compile(r"(ERROR|error): (ResolutionImpossible|Ignored the following)")


def telling_error(output: list[str]) -> str | None:
    """The most telling line of a failed install: the installer's last own error line (uv's `cause:` beneath
    it, which names the requirement), not its generic closing advice."""
    lines = [_ANSI.sub("", l).strip() for l in output]
    causes = [l.split(":", 1)[1].strip() for l in lines if l.startswith(("cause:", "Caused by:"))]
    if causes:
        return causes[-1]
    errors = [l for l in lines if l.startswith(("ERROR:", "error:")) and not _GENERIC.match(l)]
    return errors[-1].split(":", 1)[1].strip() if errors else None
