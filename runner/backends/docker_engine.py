"""The docker backend: an image spec realised as a Docker image (docker SDK), and the harness run in a container.

An image's tag names the image, the profile and a hash of every input of its build (base image, pins,
Dockerfile, install script, harness code), so an unchanged image is reused and a changed one rebuilt.
The container gets the results folder read-write and the curated cases read-only, no network for CPU
and CUDA cells, GPUs through a device request, TPUs the privileged host setup TPU VMs document, a
memory limit, and a cell timeout after which it is killed; it is removed afterwards.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import docker
from docker.errors import APIError, DockerException, ImageNotFound
from docker.types import DeviceRequest

from runner.backends import telling_error
from runner.errors import UserError
from runner.harness.events import decode
from runner.images import ImageSpec
from runner.matrix import Profile

REPOSITORY = "portability-runner"
IMAGE_UID = 1000  # the `runner` user that images/common/install.sh creates
RESULTS, CURATED = "/results", "/curated"
# The harness side of the package: what every image carries (stdlib + pytest code only).
HARNESS_PARTS = ("__init__.py", "catalog.py", "harness", "frameworks", "results")
_NO_ENGINE = "no Docker engine answers ({}); start one (scripts/docker-engine.sh start) or use --backend local"


def client() -> docker.DockerClient:
    try:
        c = docker.from_env(timeout=600)
        c.ping()
        return c
    except DockerException as e:
        raise UserError(_NO_ENGINE.format(_first_line(e)), code=3)


def engine_answers() -> bool:
    try:
        docker.from_env(timeout=5).ping()
        return True
    except DockerException:
        return False


def nvidia_runtime_reason(c: docker.DockerClient) -> str | None:
    """Why this engine cannot hand GPUs to a container, or None when the NVIDIA container toolkit is there:
    `--gpus` needs its runtime registered with the engine or its prestart hook on the engine's PATH."""
    if "nvidia" in c.info().get("Runtimes", {}) or shutil.which("nvidia-container-runtime-hook"):
        return None
    return ("the Docker engine has no NVIDIA runtime; install the NVIDIA Container Toolkit and run "
            "`nvidia-ctk runtime configure --runtime=docker`")


# --- build ----------------------------------------------------------------------------------------------------

def harness_files(root: Path) -> list[Path]:
    files = []
    for part in HARNESS_PARTS:
        path = root / "runner" / part
        files += [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()
                                                      and "__pycache__" not in p.parts)
    return files


def build_args(spec: ImageSpec, profile: Profile) -> dict[str, str]:
    return {"PYTHON": profile.python, "REQUIREMENTS": "\n".join(spec.requirements(profile)),
            "CONSTRAINTS": "\n".join(spec.constraints(profile)), "FIND_LINKS": " ".join(spec.package_sources(profile))}


def image_tag(root: Path, spec: ImageSpec, profile: Profile, base: str) -> str:
    digest = hashlib.sha256()
    for path in [spec.dockerfile, root / "images" / "common" / "install.sh", *harness_files(root)]:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    inputs = spec.input_hash(profile, base, digest.hexdigest())
    return f"{REPOSITORY}/{spec.name}:{profile.name}-{inputs}"


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    id: str
    reused: bool


def ensure_image(root: Path, spec: ImageSpec, profile: Profile, base: str,
                 log: Callable[[str], None] = lambda s: None, c: docker.DockerClient | None = None) -> BuiltImage:
    c = c or client()
    if not spec.dockerfile.exists():
        raise UserError(f"image {spec.name} has no Dockerfile ({spec.dockerfile}); add one or use --backend local")
    tag = image_tag(root, spec, profile, base)
    try:
        return BuiltImage(tag, c.images.get(tag).id, reused=True)
    except ImageNotFound:
        pass
    log(f"building {tag} from {base}: {', '.join(spec.requirements(profile))}")
    tail: list[str] = []
    with tempfile.TemporaryDirectory(prefix="runner-build-") as ctx:
        _write_context(root, spec, Path(ctx))
        try:
            for line in c.api.build(path=ctx, tag=tag, buildargs={"BASE": base, **build_args(spec, profile)},
                                    rm=True, forcerm=True, pull=False, decode=True,
                                    labels={"portability-runner.image": spec.name,
                                            "portability-runner.profile": profile.name}):
                if "error" in line:
                    raise UserError(f"building {spec.name} ({profile.name}) failed: "
                                    f"{_build_failure(line['error'], tail, base)}", code=3)
                text = str(line.get("stream", "")).strip()
                if text:
                    tail = (tail + [l.strip() for l in text.splitlines()])[-200:]
                    if text.startswith("Step "):
                        log(text)
        except APIError as e:
            raise UserError(f"building {spec.name} ({profile.name}) failed: "
                            f"{_build_failure(_first_line(e), tail, base)}", code=3)
    return BuiltImage(tag, c.images.get(tag).id, reused=False)


def _write_context(root: Path, spec: ImageSpec, ctx: Path) -> None:
    shutil.copy(spec.dockerfile, ctx / "Dockerfile")
    (ctx / "common").mkdir()
    shutil.copy(root / "images" / "common" / "install.sh", ctx / "common" / "install.sh")
    for path in harness_files(root):
        dest = ctx / path.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)


def _build_failure(error: str, tail: list[str], base: str) -> str:
    """The most telling line: pip's or install.sh's own error if the build printed one, else the engine's."""
    return _base_hint(telling_error(tail) or error.strip().splitlines()[0], base)


def _base_hint(message: str, base: str) -> str:
    if any(s in message.lower() for s in ("pull access denied", "not found", "no such host", "manifest unknown",
                                          "dial tcp", "lookup ")):
        return (f"base image {base} is not here and could not be pulled ({message}); without a registry, build "
                f"one with scripts/build-offline-base.sh and pass --base")
    return message


# --- run ------------------------------------------------------------------------------------------------------

def run_options(device: str) -> dict:
    """The container options a device kind needs (NVIDIA container toolkit and Cloud TPU VM docs)."""
    if device == "cuda":
        # `docker run --gpus all`: every GPU, with the driver capabilities the image's ENV names.
        return {"network_mode": "none", "device_requests": [DeviceRequest(count=-1, capabilities=[["gpu"]])]}
    if device == "tpu":
        # TPU VMs: the chips (/dev/accel* or /dev/vfio) and the runtime's host networking need
        # --privileged --net=host; PyTorch/XLA also asks for a large /dev/shm.
        return {"network_mode": "host", "privileged": True, "shm_size": "16g"}
    return {"network_mode": "none"}


def memory_limit() -> int:
    """Three quarters of the host's memory: a runaway case is OOM-killed (a `memory` outcome), not the host."""
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 3 // 4)


def run_harness(c: docker.DockerClient, tag: str, device: str, args: list[str], out_dir: Path, curated: Path,
                cell_timeout_s: float, env: dict[str, str], cell_files: list[Path]) -> Iterator[dict]:
    """Run the harness in a container; yield its progress events; remove the container whatever happens.

    cell_files: the files of out_dir this cell writes (results and log), handed to the image's user."""
    out_dir.mkdir(parents=True, exist_ok=True)
    user = f"{os.getuid()}:{os.getgid()}"
    if os.getuid() == 0:
        # Never run the harness as root: hand the results folder and this cell's files to the image's user.
        user = f"{IMAGE_UID}:{IMAGE_UID}"
        for path in [out_dir, *(p for p in cell_files if p.exists())]:
            os.chown(path, IMAGE_UID, IMAGE_UID)
    try:
        container = c.containers.run(
            tag, command=args, detach=True, user=user, mem_limit=memory_limit(),
            environment={"HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1", **env},
            volumes={str(out_dir.resolve()): {"bind": RESULTS, "mode": "rw"},
                     str(curated.resolve()): {"bind": CURATED, "mode": "ro"}},
            hostname=socket.gethostname(), labels={"portability-runner.cell": "1"}, **run_options(device))
    except APIError as e:
        raise UserError(f"could not start a container of {tag}: {_first_line(e)}", code=3)
    killed = threading.Event()

    def kill() -> None:  # the cell timeout
        killed.set()
        try:
            container.kill()
        except DockerException:
            pass  # it ended in the meantime

    timer = threading.Timer(cell_timeout_s, kill)
    timer.daemon = True
    timer.start()
    try:
        buffer = b""
        for chunk in container.logs(stdout=True, stderr=False, stream=True, follow=True):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                event = decode(line)
                if event is not None:
                    yield event
        code = container.wait().get("StatusCode", -1)
        if killed.is_set():
            yield {"event": "exit", "returncode": code,
                   "stderr": f"the container was killed after the cell timeout of {cell_timeout_s:.0f} s"}
        elif code != 0:
            stderr = container.logs(stdout=False, stderr=True, tail=50).decode("utf-8", "replace")
            oom = container.attrs.get("State", {}).get("OOMKilled") if _reload(container) else False
            yield {"event": "exit", "returncode": code,
                   "stderr": "the container ran out of memory" if oom else stderr.strip()}
    finally:
        timer.cancel()
        try:
            container.remove(force=True)
        except DockerException:
            pass


def _reload(container) -> bool:
    try:
        container.reload()
        return True
    except DockerException:
        return False


def _first_line(e: Exception) -> str:
    text = str(getattr(e, "explanation", None) or e)
    return (text.strip().splitlines() or ["no message"])[0]
