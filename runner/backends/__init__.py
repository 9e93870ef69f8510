"""How a cell runs: one interface, two realisations of an image spec.

    backend = backends.get(cell.backend)
    environment = backend.prepare(cell, log)        # a venv built, or a Docker image built or reused
    for event in environment.run(config): ...       # the harness run on one config, as protocol events

`local` builds a venv from the image spec (the default where no Docker engine answers); `docker` builds
the image and runs each config in a fresh container; `python[:PATH]` runs in an environment the user already has,
installing nothing into it (existing.py). Both install the same harness wheel, hand it the
config as one JSON file, and end a run the same way: a harness that exits without finishing raises
CellFailed with its most telling line. The interface and what both share are in base.py; this module picks
the backend.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from runner.errors import UserError

if TYPE_CHECKING:
    from runner.backends.base import Backend
    from runner.project import Project

NAMES = ("auto", "docker", "local", "python[:PATH]")


def is_existing(name: str) -> bool:
    """`python` or `python:/path/to/python`: an environment the user already has (existing.py)."""
    return name == "python" or name.startswith("python:")


def check(name: str) -> str:
    if name not in NAMES[:3] and not is_existing(name):
        raise UserError(f"unknown --backend {name!r}; choose one of {', '.join(NAMES)}")
    return name


def choose(name: str) -> str:
    """`auto`: docker when an engine answers (on the host that runs the cell), else local."""
    if check(name) != "auto":
        return name  # python[:PATH] included: the interpreter is looked for where the cell runs
    from runner.backends import docker_engine  # the docker SDK only when asked about

    return "docker" if docker_engine.engine_answers() else "local"


def get(name: str, project: "Project", extra_env: tuple[str, ...] = ()) -> Backend:
    """The backend `name` (local, docker or python[:PATH]) of the project's images, with its harness; `extra_env`:
    the variables --env names for an existing environment."""
    if is_existing(name):
        from runner.backends.existing import ExistingBackend

        return ExistingBackend(project.harness_dir, name, extra_env)
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
