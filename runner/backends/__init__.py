"""How a cell runs: one interface, two realisations of an image spec.

    backend = backends.get(cell.backend)
    environment = backend.prepare(cell, log)        # a venv built, or a Docker image built or reused
    for event in environment.run(config): ...       # the harness run on one config, as protocol events

`local` builds a venv from the image spec (the default where no Docker engine answers); `docker` builds
the image and runs each config in a fresh container. Both install the same harness wheel, hand it the
config as one JSON file, and end a run the same way: a harness that exits without finishing raises
CellFailed with its most telling line.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional

from portability_harness.protocol import Config, Error, Event, decode

from runner.errors import UserError

if TYPE_CHECKING:
    from runner.plan import Cell
    from runner.project import Project

NAMES = ("auto", "docker", "local")
STOP_WAIT_S = 60  # a harness asked to stop records its case in flight, then exits; after this it is killed
Log = Callable[[str], None]


class CellFailed(UserError):
    """The harness of a cell could not finish: one line naming the cell and why."""

    def __init__(self, message: str):
        super().__init__(message, code=3)


class Environment(ABC):
    """A realised image: runs the harness on one config and yields its events."""

    description: str  # what realised it, for the records' header: "venv <name>" or "docker <tag> <id>"

    @abstractmethod
    def run(self, config: Config) -> Iterator[Event]:
        """Run the harness on `config` (host paths); yield its events; raise CellFailed if it did not finish.
        Closing the iterator early (a signal reached the host) stops the harness, which records the case in
        flight as interrupted."""

    def close(self) -> None:
        """The engine is done with this environment."""


class Backend(ABC):
    name: str

    @abstractmethod
    def prepare(self, cell: "Cell", log: Log, install_log: Path) -> Environment:
        """Build (or reuse) the cell's environment; raise UserError with pip's or the engine's reason. What the
        installer printed goes to `install_log` when anything is built."""


def check(name: str) -> str:
    if name not in NAMES:
        raise UserError(f"unknown --backend {name!r}; choose one of {', '.join(NAMES)}")
    return name


def choose(name: str) -> str:
    """`auto`: docker when an engine answers (on the host that runs the cell), else local."""
    if check(name) != "auto":
        return name
    from runner.backends import docker_engine  # the docker SDK only when asked about

    return "docker" if docker_engine.engine_answers() else "local"


def get(name: str, project: "Project") -> Backend:
    """The backend `name` (local or docker) of the project's images, with its harness."""
    if name == "docker":
        from runner.backends.docker_engine import DockerBackend

        return DockerBackend(project.images_dir, project.harness_dir)
    from runner.backends.local import LocalBackend

    return LocalBackend(project.harness_dir)


def unavailable_reason(name: str, device: str) -> Optional[str]:
    """Why the backend cannot serve the device kind on this host (the docker engine has no GPU runtime)."""
    if name == "docker" and device == "cuda":
        from runner.backends import docker_engine

        return docker_engine.nvidia_runtime_reason(docker_engine.client())
    return None


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
