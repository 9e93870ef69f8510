"""The node side of a cell on a Ray cluster: what a task carries (Attempt, packed by the driver) and what it does
on its node (run_on_node): unpack the cell's files into a folder of its own, run the cell's unfinished repeats
through the same backends as a local run, and stream every record and event home.

The files a task reads travel in the task, not in Ray's `working_dir`: Ray unpacks a working_dir into a folder
shared by every node of a machine and deletes and unpacks it again each time a node sets up the job's
environment, so a cell running on one node lost its files, and its working directory (`[Errno 2] No such file
or directory` from os.getcwd, with no path), when a second node on the same machine started a cell. A task
here works in its own folder, and an error names the step it was in and the file and line that raised it.
"""
from __future__ import annotations

import io
import os
import socket
import tarfile
import tempfile
import traceback
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from portability_harness.protocol import CaseEnd, Finished, Notice

from runner import backends, harness_dist
from runner.cell import Cell
from runner.errors import UserError
from runner.project import Project


def pack(project: Project) -> bytes:
    """What a cell's task reads on its node: the image specs, the harness sources (its wheel is built there)
    and the curated modules, each folder's contents rather than a link to it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", dereference=True) as tar:
        tar.add(project.images_dir.resolve(), arcname="images", filter=_no_cache)
        tar.add(project.curated_dir.resolve(), arcname="curated", filter=_no_cache)
        harness = project.harness_dir.resolve()
        for path in harness_dist.sources(harness):
            tar.add(path, arcname=f"harness/{path.relative_to(harness).as_posix()}")
    return buf.getvalue()


def _no_cache(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
    return None if "__pycache__" in info.name else info


@dataclass
class Attempt:
    """What a task needs to run (the rest of) one cell on a node."""
    cell: Cell
    run_id: str
    git_commit: Optional[str]
    seeds: dict[int, bytes]  # repeat -> the records the driver holds already (resume from them)
    finished: list[int]  # repeats the driver holds whole
    files: bytes  # images/, harness/ and curated/, packed (_pack)
    names: dict[int, str] = field(default_factory=dict)  # repeat -> results file name


class NodeStepFailed(Exception):
    """A cell's task failed on its node outside any case: the step it was in, and where, in one line."""


class Steps:
    """The step a task is in; an unexpected error inside `named()` becomes NodeStepFailed naming that step and
    the file and line that raised it (a UserError, CellFailed included, is one line already and passes)."""

    def __init__(self, first: str):
        self.now = first

    @contextmanager
    def named(self) -> Iterator["Steps"]:
        try:
            yield self
        except UserError:
            raise
        except Exception as e:
            raise NodeStepFailed(f"{self.now}: {_where(e)}") from e


def run_on_node(attempt: Attempt, sink: Any) -> dict:
    """A Ray task: run the cell's unfinished repeats here and stream every record and event to `sink`.
    An error names the step that failed (and, for an unexpected one, the file and line that raised it)."""
    import ray

    # Both backends imported as the task starts, not midway through the cell.
    import runner.backends.docker_engine  # noqa: F401
    import runner.backends.local  # noqa: F401

    context = ray.get_runtime_context()
    node = {"name": "ray", "ray_version": ray.__version__, "node_id": context.get_node_id(),
            "node": f"{socket.gethostname()} ({context.get_node_id()[:8]})"}
    steps = Steps("unpacking the cell's files")
    with tempfile.TemporaryDirectory(prefix="runner-cell-") as tmp:
        here = _cwd()
        os.chdir(tmp)  # what the cell's processes inherit is the task's own folder, nothing Ray may replace
        try:
            with steps.named():
                _run_cell(attempt, sink, node, Path(tmp), steps)
        finally:
            if here is not None:
                os.chdir(here)
    return node


def _run_cell(attempt: Attempt, sink: Any, node: dict, tmp: Path, steps: Steps) -> None:
    cell, key = attempt.cell, attempt.cell.key
    with tarfile.open(fileobj=io.BytesIO(attempt.files)) as tar:
        tar.extractall(tmp, filter="data")
    project = Project(tmp, None)  # type: ignore[arg-type]  # the cell is planned: no matrix needed
    out_dir = tmp / "results"
    out_dir.mkdir()
    backend = backends.get(backends.choose(cell.backend), project, cell.extra_env)
    environment, filled = None, False
    try:
        for repeat in range(1, cell.repeats + 1):
            if repeat in attempt.finished:
                continue
            sink.put(("repeat", key, repeat, node["node"]))
            steps.now = f"preparing the {backend.name} environment of {cell.label}"
            environment = environment or backend.prepare(cell, lambda s: sink.put(("log", key, repeat, s)),
                                                         out_dir / "install.log")
            steps.now = f"running repeat {repeat} of {cell.label}"
            out = out_dir / attempt.names[repeat]
            seed = attempt.seeds.get(repeat, b"")
            out.write_bytes(seed)
            config = cell.config(out, project.curated_dir, repeat, attempt.run_id, resume=bool(seed),
                                 environment=environment.description, git_commit=attempt.git_commit,
                                 shared_caches="caches", caches_filled=filled)
            filled = True  # the attempt's later repeats reuse the compilers' caches this one fills
            config.engine = node
            sent = len(seed)
            with closing(environment.run(config)) as events:
                for event in events:
                    if isinstance(event, (CaseEnd, Finished, Notice)):
                        sent = _stream(out, sent, key, repeat, sink)
                    sink.put(("event", key, repeat, event.encode()))
            _stream(out, sent, key, repeat, sink)
    finally:
        if environment is not None:
            environment.close()


def _cwd() -> Optional[str]:
    try:
        return os.getcwd()
    except FileNotFoundError:  # a folder removed under this worker process: nothing to go back to
        return None


def _where(e: BaseException) -> str:
    """The exception and the file and line that raised it: an error without a path (`[Errno 2] No such file or
    directory` from os.getcwd) still says where it came from."""
    frames = traceback.extract_tb(e.__traceback__)
    at = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{type(e).__name__}: {e}{at}"


def _stream(out: Path, sent: int, key: str, repeat: int, sink: Any) -> int:
    """Send the complete lines written since `sent`; returns the new offset."""
    with open(out, "rb") as f:
        f.seek(sent)
        data = f.read()
    whole = data[:data.rfind(b"\n") + 1]
    if whole:
        sink.put(("records", key, repeat, whole))
    return sent + len(whole)
