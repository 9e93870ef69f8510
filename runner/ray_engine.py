"""Runs planned cells on a Ray cluster: each cell on a node that offers its device, records streamed home.

Each node that may run cells advertises one unit of the logical resource `cell:<device kind>` (`ray start
--resources '{"cell:cpu": 1}'`, see cluster/); a cell is a Ray task that needs that unit, so a node never
runs two cells at once and timings are not disturbed; the head offers none. The task runs the cell on its
node through the same backends as a local run (a venv or a container; Ray is never needed inside a
benchmark environment), with the node's GPUs or TPU chips requested so that Ray sets their visibility.

Every record the harness writes on the node is sent to the driver as soon as its line is complete and
appended (fsynced) into the local results folder, so a node that dies loses at most the case in flight.
The cell is then tried again on another node of its kind with the records kept so far (resume: each
case ends up recorded once). A case that fails is a result, never a reason to try again.

The driver's `runner` and `portability_harness` packages reach the nodes as Ray `py_modules` (unpacked once
per machine, never overwritten); the files a task reads travel packed in the task (ray_node.py says why not
in a `working_dir`).
"""
from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any, Callable, Optional

from portability_harness.protocol import decode

from runner.backends.base import CellIncompatible
from runner.cell import Cell
from runner.errors import Stopped, UserError
from runner.project import Project
from runner.ray_node import Attempt, NodeStepFailed, pack, run_on_node
from runner.rundir import CellState, RunDir

RESOURCE = "cell:{device}"
CONNECT_TIMEOUT_S = 60.0  # to wait for the cluster to show a node with a cell resource
PROBE_TIMEOUT_S = 5.0  # for the head's port to accept a connection
REPLACEMENT_WAIT_S = 300.0  # after a node died: for another node of its kind (an autoscaler's replacement)
MAX_ATTEMPTS = 3  # a cell whose node is lost this often is recorded as failed
_EXCLUDES = ["**/__pycache__"]  # of the py_modules


def ray_module():
    try:
        import ray
    except ImportError:
        raise UserError("--engine ray needs Ray on this host: pip install -e '.[ray]' (make test installs it)")
    return ray


def resource(device: str) -> str:
    return RESOURCE.format(device=device)


def connect(address: str) -> Any:
    """Join the cluster as its driver; this host's runner and harness packages travel to every node as
    py_modules (ray_node.py says why not as a working_dir). A cluster that does not answer is one
    line within seconds (Ray itself would retry for minutes)."""
    import portability_harness

    import runner

    ray = ray_module()
    if ray.is_initialized():
        return ray
    _probe(address)
    modules = [str(Path(m.__file__).resolve().parent) for m in (runner, portability_harness)]
    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False, configure_logging=False,
                 runtime_env={"py_modules": modules, "excludes": _EXCLUDES})
    except Exception as e:  # ConnectionError, ValueError, RuntimeError, AuthenticationError: Ray raises several
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        hint = ("set RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN, or ~/.ray/auth_token) as on its "
                "nodes" if "auth" in f"{type(e).__name__} {e}".lower() else "check --address")
        raise UserError(f"could not join the Ray cluster at {address} ({first}); {hint}", code=3)
    return ray


def _probe(address: str) -> None:
    """The cluster's GCS port accepts a connection, or one line saying it does not."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"--address {address!r} is not HOST:PORT; give the head node's address, e.g. 10.0.0.2:6379")
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT_S).close()
    except OSError as e:
        raise UserError(f"no Ray cluster answers at --address {address} ({e.strerror or e}); start one (`ray up "
                        "cluster/gcp.yaml`, or `ray start --head` on this machine) or fix --address", code=3)


def offered(ray: Any) -> dict[str, int]:
    """Per cell resource, how many live nodes offer it."""
    count: dict[str, int] = {}
    for node in ray.nodes():
        if not node.get("Alive"):
            continue
        for name in node.get("Resources", {}):
            if name.startswith("cell:"):
                count[name] = count.get(name, 0) + 1
    return count


def wait_for_cells(ray: Any, timeout_s: float = CONNECT_TIMEOUT_S) -> dict[str, int]:
    """The cell resources the cluster offers, once any node offers one; a cluster without any fails fast."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = offered(ray)
        if found or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    if not found:
        raise UserError(f"the Ray cluster shows no node with a cell resource after {timeout_s:.0f} s; start workers "
                        "with `ray start --resources '{\"cell:cpu\": 1}'` (see cluster/README.md)", code=3)
    return found


def blocked_reason(cell: Cell, found: dict[str, int]) -> Optional[str]:
    if resource(cell.device) in found:
        return None
    offers = ", ".join(sorted(found)) or "none"
    return f"no node of the Ray cluster offers {resource(cell.device)} (nodes offer: {offers})"


# --- on the driver ----------------------------------------------------------------------------------------------

def plan_on(address: str, cells: list[Cell]) -> list[Cell]:
    """The cells with the cluster's answer to whether each can run (which nodes offer its device)."""
    found = wait_for_cells(connect(address))
    return [_with_cluster(c, found) for c in cells]


def run(project: Project, cells: list[Cell], rundir: RunDir, resume: bool, address: str,
        display: Callable[[int], Any], on_error: Callable[[Cell, str], None] = lambda c, e: None) -> dict:
    """Run the runnable cells on the cluster; returns merged.json's record as it stands at the end.
    display(total) returns the live view (a progress.ClusterProgress) of a run of that many cells."""
    ray = connect(address)
    with rundir.running(plan_on(address, cells), resume) as run:
        with display(len(run.todo)) as view:
            driver = Driver(ray, project, rundir, run.states, view, on_error)
            try:
                driver.run(run.todo)
            except Stopped:
                driver.stop()
                raise
    return run.merged


class Driver:
    """Submits cells as tasks, writes home what their nodes stream, and tries a lost node's cell again."""

    def __init__(self, ray: Any, project: Project, rundir: RunDir, states: list[CellState], view: Any,
                 on_error: Callable[[Cell, str], None]):
        from ray.util.queue import Queue
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.ray, self.project, self.rundir, self.states, self.view = ray, project, rundir, states, view
        self.on_error = on_error
        # The queue lives on the driver's node, so that a worker node that dies takes nothing with it.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.sink = Queue(actor_options={"num_cpus": 0, "scheduling_strategy": here})
        self.remote = ray.remote(run_on_node)
        self.files = pack(project)
        self.running: dict[Any, CellState] = {}
        self.lines: dict[str, Any] = {}  # cell key -> the display line of its running repeat
        self.nodes: dict[str, list[str]] = {}  # cell key -> the nodes it ran on, in order
        self.attempts: dict[str, int] = {}
        self.lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.RaySystemError,
                     ray.exceptions.ObjectLostError, ray.exceptions.OutOfMemoryError,
                     ray.exceptions.LocalRayletDiedError)

    def run(self, todo: list[CellState]) -> None:
        for state in todo:
            self.submit(state)
        self.rundir.save(self.states)
        while self.running:
            ready, _ = self.ray.wait(list(self.running), num_returns=1, timeout=0.2)
            self.drain()
            for ref in ready:
                self.settle(ref, self.running.pop(ref))

    def submit(self, state: CellState) -> None:
        """A task for the cell's unfinished repeats, seeded with the records already home."""
        cell, rd = state.cell, self.rundir
        names = {r: rd.results_file(cell, r).name for r in range(1, cell.repeats + 1)}
        state.files += [n for n in names.values() if n not in state.files]
        finished = [r for r, n in names.items() if rd.finished(rd.path / n)]
        seeds = {r: (rd.path / n).read_bytes() for r, n in names.items()
                 if r not in finished and (rd.path / n).exists()}
        attempt = Attempt(cell, rd.run_id, self.project.git_commit, seeds, finished, self.files, names)
        # max_retries=0: a lost node's cell is tried again here, with resume semantics, not rerun by Ray.
        ref = self.remote.options(max_retries=0, **_requirements(self.ray, cell)).remote(attempt, self.sink)
        self.attempts[cell.key] = self.attempts.get(cell.key, 0) + 1
        state.status, state.reason = "running", None
        self.running[ref] = state

    def drain(self) -> None:
        """Everything the nodes sent so far: records to append home, lines and events for the display."""
        from ray.util.queue import Empty

        while True:
            try:
                items = self.sink.get_nowait_batch(max(1, self.sink.qsize()))
            except Empty:
                return
            for kind, key, repeat, payload in items:
                cell = next(s.cell for s in self.states if s.cell.key == key)
                if kind == "records":
                    self.rundir.append(self.rundir.results_file(cell, repeat), payload)
                elif kind == "repeat":
                    self.nodes.setdefault(key, []).append(payload)
                    which = f" repeat {repeat}/{cell.repeats}" if cell.repeats > 1 else ""
                    self.lines[key] = self.view.line(f"{cell.label}{which} on {payload}")
                elif kind == "log" and key in self.lines:
                    self.lines[key].log(payload)
                elif kind == "event" and key in self.lines:
                    event = decode(payload)
                    if event is not None:
                        self.lines[key](event)

    def settle(self, ref: Any, state: CellState) -> None:
        """A task ended: the cell is done, failed (a result), or its node was lost (try again elsewhere)."""
        ray, cell = self.ray, state.cell
        self.drain()  # a task's records are all in the queue once the task has ended
        where = f"node {self.nodes[cell.key][-1]}" if self.nodes.get(cell.key) else "its node"
        try:
            ray.get(ref)
            state.status, state.reason = self.rundir.ended(state)
        except self.lost as e:
            if self.attempts[cell.key] < MAX_ATTEMPTS and _await_node(ray, cell):
                self.submit(state)  # the rest of the cell, on another node of its kind
                self.rundir.save(self.states)
                return
            state.status = "failed"
            state.reason = (f"{where} was lost ({type(e).__name__}) {self.attempts[cell.key]} time(s), and no "
                            f"other node offers {resource(cell.device)} to continue it")
            self.on_error(cell, state.reason)
        except ray.exceptions.RayError as e:  # the task raised there: the cell failed, a result like any other
            cause = getattr(e, "cause", None)
            if isinstance(cause, CellIncompatible):  # a verdict on that node's device, not a failure
                state.status, state.reason = "incompatible", f"on {where}: {cause}"
                self.finish(state)
                return
            reason = str(cause) if isinstance(cause, (UserError, NodeStepFailed)) else _first_line(cause or e)
            state.status, state.reason = "failed", f"on {where}: {reason}"
            self.on_error(cell, state.reason)
        self.finish(state)

    def finish(self, state: CellState) -> None:
        self.lines.pop(state.cell.key, None)
        self.view.cell_done()
        self.rundir.save(self.states)
        self.rundir.publish(self.states)

    def stop(self) -> None:
        """A signal reached the driver: cancel the tasks (their harnesses record the case in flight)."""
        for ref, state in self.running.items():
            self.ray.cancel(ref)
            state.status, state.reason = "interrupted", "the run was stopped while this cell ran"
        self.drain()


def _with_cluster(cell: Cell, found: dict[str, int]) -> Cell:
    """The cell with the cluster's answer to whether it can run (the driver's own devices do not matter)."""
    import dataclasses

    if cell.excluded or cell.blocked:
        return cell
    return dataclasses.replace(cell, blocked=blocked_reason(cell, found))


def _requirements(ray: Any, cell: Cell) -> dict:
    """The task's resources: the node's one cell unit of the device kind, no CPU slot (the cell unit alone
    keeps a node to one cell), and for a CUDA or TPU cell all the accelerators of the smallest node that
    offers the kind, so that Ray sets CUDA_VISIBLE_DEVICES or the TPU visibility variables."""
    options: dict = {"num_cpus": 0, "resources": {resource(cell.device): 1}}
    name = {"cuda": "GPU", "tpu": "TPU"}.get(cell.device)
    counts = [n["Resources"].get(name, 0) for n in ray.nodes()
              if name and n.get("Alive") and resource(cell.device) in n.get("Resources", {})]
    count = min((c for c in counts if c), default=0)
    if name == "GPU" and count:
        options["num_gpus"] = count
    elif name == "TPU" and count:
        options["resources"]["TPU"] = count
    return options


def _first_line(e: BaseException) -> str:
    """The last line of a remote traceback's text: the exception itself, not Ray's wrapping."""
    lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
    return lines[-1][:400] if lines else type(e).__name__


def _await_node(ray: Any, cell: Cell) -> bool:
    deadline = time.monotonic() + REPLACEMENT_WAIT_S
    while time.monotonic() < deadline:
        if resource(cell.device) in offered(ray):
            return True
        time.sleep(2.0)
    return False
