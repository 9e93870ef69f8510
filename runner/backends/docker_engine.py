"""The docker backend: an image spec realised as a Docker image (docker SDK), and the harness run in a container.

Every image is built from images/Dockerfile, rendered with the image's [environment], on the profile's
base with its pins and the harness wheel. The tag names the image, the profile and a hash of every input
of its build (base image, pins, rendered Dockerfile, install script, harness sources), so an unchanged
image is reused and a changed one rebuilt. Each harness run gets a fresh container: its config file and
the curated cases read-only, the results folder read-write, no network for CPU and CUDA cells, GPUs
through a device request, TPUs the privileged host setup TPU VMs document, a memory limit, and a cell
timeout after which it is killed; it is removed afterwards.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import docker
from docker.errors import APIError, DockerException, ImageNotFound
from docker.types import DeviceRequest

from portability_harness.protocol import Config, Event

from runner import devices, harness_dist
from runner.backends.base import STOP_WAIT_S, Backend, Environment, Log, harness_events, telling_error
from runner.errors import UserError
from runner.images import ImageSpec
from runner.matrix import Profile

if TYPE_CHECKING:
    from runner.cell import Cell

REPOSITORY = "portability-runner"
IMAGE_UID = 1000  # the `runner` user that images/install.sh creates
RESULTS, CURATED, CONFIG = "/results", "/curated", "/run/portability/config.json"
_ENVIRONMENT_LINE = "# ENVIRONMENT"  # where images/Dockerfile takes the image's environment
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

def dockerfile(images_dir: Path, spec: ImageSpec) -> str:
    """images/Dockerfile with the image's [environment] where the ENVIRONMENT line stands."""
    template = (images_dir / "Dockerfile").read_text()
    if _ENVIRONMENT_LINE not in template:
        raise UserError(f"{images_dir / 'Dockerfile'} has no '{_ENVIRONMENT_LINE}' line for the image's environment")
    env = "".join(f"ENV {k}={v}\n" for k, v in spec.environment)
    return template.replace(_ENVIRONMENT_LINE + "\n", env)


def build_args(spec: ImageSpec, profile: Profile) -> dict[str, str]:
    return {"PYTHON": profile.python, "REQUIREMENTS": "\n".join(spec.requirements(profile)),
            "CONSTRAINTS": "\n".join(spec.constraints(profile)), "FIND_LINKS": " ".join(spec.package_sources(profile))}


def image_tag(images_dir: Path, harness_dir: Path, spec: ImageSpec, profile: Profile, base: str) -> str:
    digest = hashlib.sha256(dockerfile(images_dir, spec).encode() + b"\0" + (images_dir / "install.sh").read_bytes())
    inputs = spec.input_hash(profile, base, digest.hexdigest(), harness_dist.source_hash(harness_dir))
    return f"{REPOSITORY}/{spec.name}:{profile.name}-{inputs}"


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    id: str
    reused: bool


def ensure_image(images_dir: Path, harness_dir: Path, spec: ImageSpec, profile: Profile, base: str,
                 log: Callable[[str], None] = lambda s: None, c: docker.DockerClient | None = None,
                 install_log: Path | None = None) -> BuiltImage:
    """The image's tag and id, built if no image has the tag yet. The engine removes the intermediate
    containers of a failed build (rm, forcerm), so nothing half-built is left; what the build printed goes
    to `install_log`."""
    c = c or client()
    tag = image_tag(images_dir, harness_dir, spec, profile, base)
    try:
        return BuiltImage(tag, c.images.get(tag).id, reused=True)
    except ImageNotFound:
        pass
    log(f"building {tag} from {base}: {', '.join(spec.requirements(profile))}")
    output: list[str] = []
    where = f" (the build's whole output: {install_log})" if install_log else ""
    try:
        with tempfile.TemporaryDirectory(prefix="runner-build-") as ctx:
            _write_context(images_dir, harness_dir, spec, Path(ctx))
            try:
                for line in c.api.build(path=ctx, tag=tag, buildargs={"BASE": base, **build_args(spec, profile)},
                                        rm=True, forcerm=True, pull=False, decode=True,
                                        labels={"portability-runner.image": spec.name,
                                                "portability-runner.profile": profile.name}):
                    if "error" in line:
                        output.append(str(line["error"]))
                        raise UserError(f"building {spec.name} ({profile.name}) failed: "
                                        f"{_build_failure(line['error'], output[-200:], base)}{where}", code=3)
                    text = str(line.get("stream", "")).rstrip()
                    if text.strip():
                        output += text.splitlines()
                        if text.startswith("Step "):
                            log(text)
            except APIError as e:
                raise UserError(f"building {spec.name} ({profile.name}) failed: "
                                f"{_build_failure(_first_line(e), output[-200:], base)}{where}", code=3)
    finally:
        if install_log is not None and output:
            try:
                install_log.parent.mkdir(parents=True, exist_ok=True)
                install_log.write_text("\n".join(output) + "\n")
            except OSError:
                pass  # the log is a convenience; its failure must not hide the build's own error
    return BuiltImage(tag, c.images.get(tag).id, reused=False)


def _write_context(images_dir: Path, harness_dir: Path, spec: ImageSpec, ctx: Path) -> None:
    (ctx / "Dockerfile").write_text(dockerfile(images_dir, spec))
    shutil.copy(images_dir / "install.sh", ctx / "install.sh")
    (ctx / "harness").mkdir()
    shutil.copy(harness_dist.wheel(harness_dir), ctx / "harness")


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

def device_groups(paths: list[Path]) -> list[str]:
    """The groups that own a TPU's device nodes (/dev/accel*, /dev/vfio/*), for the container's non-root user:
    --privileged exposes the nodes, but opening one still takes the file's permissions."""
    groups = []
    for path in paths:
        try:
            groups.append(str(path.stat().st_gid))
        except OSError:
            continue
    return sorted(set(groups), key=int)


def run_options(device: str) -> dict:
    """The container options a device kind needs (NVIDIA container toolkit and Cloud TPU VM docs)."""
    if device == "cuda":
        # `docker run --gpus all`: every GPU, with the driver capabilities the image's ENV names.
        return {"network_mode": "none", "device_requests": [DeviceRequest(count=-1, capabilities=[["gpu"]])]}
    if device == "tpu":
        # TPU VMs: the chips (/dev/accel* or /dev/vfio) and the runtime's host networking need
        # --privileged --net=host; PyTorch/XLA also asks for a large /dev/shm.
        return {"network_mode": "host", "privileged": True, "shm_size": "16g",
                "group_add": device_groups(devices.tpu_nodes())}
    return {"network_mode": "none"}


class ContainerEnvironment(Environment):
    """A built image: each run is a fresh container, removed afterwards."""

    def __init__(self, c: docker.DockerClient, built: BuiltImage, device: str, cell_timeout_s: float):
        self.c, self.built, self.device = c, built, device
        self.cell_timeout_s = cell_timeout_s
        self.description = f"docker {built.tag} {built.id}"

    def run(self, config: Config) -> Iterator[Event]:
        out = Path(config.out)
        out_dir = out.parent
        out_dir.mkdir(parents=True, exist_ok=True)
        curated = Path(config.curated_root).resolve()
        inside = dataclasses.replace(config, out=f"{RESULTS}/{out.name}", curated_root=CURATED,
                                     cases=[_inside(curated, p) for p in config.cases],
                                     annotations=config.annotations and _inside(curated, config.annotations))
        user = f"{os.getuid()}:{os.getgid()}"
        if os.getuid() == 0:
            # Never run the harness as root: hand the results folder and this cell's files to the image's user.
            user = f"{IMAGE_UID}:{IMAGE_UID}"
            for path in (out_dir, out, Path(config.log_path)):
                if path.exists():
                    os.chown(path, IMAGE_UID, IMAGE_UID)
        label = {"portability-runner.cell": "1", "portability-runner.out": str(out.resolve())}
        # A container still writing this file outlived a host that was killed: the folder's lock says no live
        # run owns the file, so it is an orphan; end it before its file is resumed.
        for orphan in self.c.containers.list(filters={"label": f"portability-runner.out={out.resolve()}"}):
            orphan.remove(force=True)
        with tempfile.TemporaryDirectory(prefix="runner-config-") as tmp:
            path = inside.write(os.path.join(tmp, "config.json"))
            os.chmod(tmp, 0o755)
            os.chmod(path, 0o644)
            try:
                container = self.c.containers.run(
                    # The cell's memory limit holds for the whole container too (the harness also watches it).
                    self.built.tag, command=[CONFIG], detach=True, user=user,
                    mem_limit=f"{config.memory_limit_mb}m" if config.memory_limit_mb else None,
                    environment={"HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"},
                    volumes={str(out_dir.resolve()): {"bind": RESULTS, "mode": "rw"},
                             str(curated): {"bind": CURATED, "mode": "ro"},
                             path: {"bind": CONFIG, "mode": "ro"}},
                    hostname=socket.gethostname(), labels=label, **run_options(self.device))
            except APIError as e:
                raise UserError(f"could not start a container of {self.built.tag}: {_first_line(e)}", code=3)
            killed = threading.Event()

            def kill() -> None:  # the cell timeout
                killed.set()
                try:
                    container.kill()
                except DockerException:
                    pass  # it ended in the meantime

            def ended() -> tuple[int, str]:
                code = container.wait().get("StatusCode", -1)
                if killed.is_set():
                    return code or -9, f"the container was killed after the cell timeout of {self.cell_timeout_s:.0f} s"
                if code == 0:
                    return 0, ""
                stderr = container.logs(stdout=False, stderr=True, tail=50).decode("utf-8", "replace")
                oom = container.attrs.get("State", {}).get("OOMKilled") if _reload(container) else False
                return code, "the container ran out of memory" if oom else stderr

            timer = threading.Timer(self.cell_timeout_s, kill)
            timer.daemon = True
            timer.start()
            try:
                yield from harness_events(config, container.logs(stdout=True, stderr=False, stream=True, follow=True),
                                          ended)
            finally:
                timer.cancel()
                try:
                    # Stopped early (a signal reached the host): SIGTERM lets the harness record its case in
                    # flight as interrupted; the engine kills what is left after the wait.
                    container.stop(timeout=int(STOP_WAIT_S))
                    container.remove(force=True)
                except DockerException:
                    pass


def _inside(curated: Path, path: str) -> str:
    """A host path under the curated folder as the container sees it (mounted at CURATED)."""
    try:
        return f"{CURATED}/{Path(path).resolve().relative_to(curated).as_posix()}"
    except ValueError:
        raise UserError(f"{path} is outside the curated folder {curated}, which is all a container sees")


class DockerBackend(Backend):
    name = "docker"

    def __init__(self, images_dir: Path, harness_dir: Path):
        self.images_dir, self.harness_dir = images_dir, harness_dir

    def prepare(self, cell: "Cell", log: Log, install_log: Path | None = None) -> ContainerEnvironment:
        c = client()
        assert cell.base is not None, "the plan resolves a docker cell's base image"
        built = ensure_image(self.images_dir, self.harness_dir, cell.image, cell.profile, cell.base, log, c,
                             install_log)
        log(f"{'reusing' if built.reused else 'built'} {built.tag}")
        return ContainerEnvironment(c, built, cell.device, cell.cell_timeout_s)


def _reload(container) -> bool:
    try:
        container.reload()
        return True
    except DockerException:
        return False


def _first_line(e: Exception) -> str:
    text = str(getattr(e, "explanation", None) or e)
    return (text.strip().splitlines() or ["no message"])[0]
