"""A Ray cluster on one machine, for the CI check and the benchmarks: a head and worker nodes, each a real
`ray start --block` process on 127.0.0.1 with its own ports and logical resources.

Every process gets the same explicit auth settings (RAY_AUTH_MODE=token and one generated token), so that
a token a local `ray.init()` left in ~/.ray/auth_token never decides how a node or the driver connects.
Each node leads a session of its own: stopping (or "losing") a node ends exactly the processes of that
session, never anything by name.

    with LocalCluster() as cluster:
        cluster.add_worker({"cell:cpu": 1})
        env = cluster.env          # give this to the driver (runner --engine ray --address cluster.address)
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from portability_harness import processes

RAY = Path(sys.executable).with_name("ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Node:
    name: str
    proc: subprocess.Popen
    resources: dict
    log: Path

    @property
    def session(self) -> int:
        return self.proc.pid  # `ray start` was started in a session of its own


@dataclass
class LocalCluster:
    head_cpus: int = 1
    nodes: list[Node] = field(default_factory=list)
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="runner-ray-")))

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """The environment every process of this cluster (and its driver) runs with."""
        env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=self.token, RAY_USAGE_STATS_ENABLED="0")
        env.pop("RAY_ADDRESS", None)
        return env

    def __enter__(self) -> "LocalCluster":
        try:
            self._start("head", ["--head", f"--num-cpus={self.head_cpus}", "--include-dashboard=false"], {})
        except BaseException:
            self.stop()  # a head that did not come up leaves none of its processes behind
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def add_worker(self, resources: dict, name: str = "") -> Node:
        return self._start(name or f"worker{len(self.nodes)}", ["--num-cpus=1"], resources)

    def _start(self, name: str, args: list[str], resources: dict, attempts: int = 3) -> Node:
        """Start a node, again with fresh ports if it does not come up: a raylet waits 15 s (fixed in Ray 2.58-2.60)
        for its node's dashboard agent and then aborts, which a busy 2-core machine can miss."""
        for attempt in range(1, attempts + 1):
            if name == "head":
                self.port = free_port()  # the cluster's address is the head's last attempt's
            node = self._launch(name, [f"--port={self.port}" if name == "head" else f"--address={self.address}",
                                       *args], resources)
            try:
                self._wait_until_up(node)
                return node
            except RuntimeError:
                processes.kill(processes.session_members(node.session))
                node.proc.wait()
                self.nodes.remove(node)
                if attempt == attempts:
                    raise
                node.log.rename(node.log.with_suffix(f".attempt{attempt}.log"))  # kept for diagnostics()
        raise AssertionError("unreachable")

    def _launch(self, name: str, args: list[str], resources: dict) -> Node:
        ports = [f"--node-manager-port={free_port()}", f"--object-manager-port={free_port()}",
                 f"--dashboard-agent-listen-port={free_port()}", f"--dashboard-agent-grpc-port={free_port()}",
                 f"--metrics-export-port={free_port()}", f"--runtime-env-agent-port={free_port()}"]
        log = self.tmp / f"{name}.log"
        # Its own temp dir (sockets, logs), so that nothing is left in /tmp/ray; the path stays short for sockets.
        # No log monitor on any node: the runner's driver does not take workers' output (log_to_driver=False) and
        # diagnostics() reads the log files, so it is one Python process less to start per node on two cores.
        cmd = [str(RAY), "start", "--block", "--node-ip-address=127.0.0.1", "--disable-usage-stats",
               "--include-log-monitor=false", f"--temp-dir={self.tmp}", *args, *ports]
        if resources:
            cmd.append(f"--resources={json.dumps(resources)}")
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        node = Node(name, proc, resources, log)
        self.nodes.append(node)
        return node

    def _wait_until_up(self, node: Node, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while b"block forever" not in node.log.read_bytes():
            if node.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray node {node.name} did not start; see {node.log}: "
                                   + node.log.read_text(errors="replace")[-1500:])
            time.sleep(0.5)

    def wait_for(self, resource: str, count: int, timeout: float = 120) -> None:
        """Until `count` live nodes offer `resource` (a node joins the cluster a moment after it is up)."""
        code = ("import ray, json; ray.init(address=%r, logging_level='ERROR', configure_logging=False);"
                "print(json.dumps(sum(1 for n in ray.nodes() if n['Alive'] and %r in n['Resources'])))"
                % (self.address, resource))
        deadline = time.monotonic() + timeout
        while True:
            out = subprocess.run([sys.executable, "-c", code], env=self.env, capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip() and int(out.stdout.strip().splitlines()[-1]) >= count:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster shows fewer than {count} nodes with {resource}: {out.stderr[-500:]}")
            time.sleep(1.0)

    def diagnostics(self, lines: int = 30, limit: int = 40_000) -> str:
        """For a failed check: each node's `ray start` output and the tails of the session's logs that say why a
        task or its environment failed (the raylets', the runtime-env agents', the workers' error streams)."""
        parts = []
        for node in self.nodes:
            alive = "running" if node.proc.poll() is None else f"exited {node.proc.returncode}"
            parts.append(f"--- node {node.name} {node.resources} ({alive}): {node.log}\n" + _tail(node.log, lines))
        logs = self.tmp / "session_latest" / "logs"
        for pattern in ("raylet*.out", "raylet*.err", "runtime_env*.log", "worker-*.err", "python-core-worker-*.log"):
            for path in sorted(logs.glob(pattern)):
                text = _tail(path, lines)
                if text.strip() and (not pattern.startswith(("worker", "python-core")) or "Error" in text):
                    parts.append(f"--- {path.name}\n{text}")
        report = "\n".join(parts)
        return report if len(report) <= limit else "[...]" + report[-limit:]

    def lose(self, node: Node) -> None:
        """The machine dies: every process of the node, at once (SIGKILL)."""
        processes.kill(processes.session_members(node.session))
        node.proc.wait()
        self.nodes.remove(node)

    def stop(self) -> None:
        """End every process this cluster started: workers, then the head (SIGTERM, then SIGKILL)."""
        for node in reversed(list(self.nodes)):
            if node.proc.poll() is None:
                node.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 30
        for node in self.nodes:
            try:
                node.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            processes.kill(processes.session_members(node.session))  # whatever is left of it
        self.nodes.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _tail(path: Path, lines: int) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as e:
        return f"(unreadable: {e})"
