"""The local backend: an image spec realised as a virtual environment, and the harness run inside it.

Venvs live in a cache folder keyed by image, profile and a hash of their inputs (Python version, pins,
constraints): created on first use, reused after, rebuilt when an input changes. A venv is built in a
folder of its own and renamed into place only when whole, under a lock, so a failed or concurrent build
leaves nothing half-built; a venv in use holds a shared lock, and a superseded one is removed only when
no run holds it. The harness is not installed into a venv: its wheel, unpacked once per version in the cache,
is the harness run's PYTHONPATH (harness_dist.unpacked), so a venv never changes when the harness does and runs
of two harness versions can share it. Nothing else of the checkout is importable inside (the harness runs with
the image's environment, outside the checkout), in a session of its own so that only the host hears a
terminal's Ctrl-C, and it is stopped when the host dies (process.py).
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from portability_harness import build_facts, compat
from portability_harness.protocol import Config

from runner import devices, harness_dist
from runner.backends import interpreters
from runner.backends.base import Backend, Log
from runner.backends.installer import Installer
from runner.backends.process import ProcessEnvironment
from runner.images import ImageSpec
from runner.matrix import Profile

if TYPE_CHECKING:
    from runner.cell import Cell

_COMPLETE = ".runner-complete"
_IN_USE = ".runner-in-use"  # shared-locked by every run using the venv
_BYTECODE = ".runner-bytecode"  # its packages are byte-compiled (compile_bytecode)


def cache_dir() -> Path:
    return Path(os.environ.get("RUNNER_VENV_DIR", harness_dist.cache_dir() / "venvs"))


def venv_path(image: ImageSpec, profile: Profile) -> Path:
    return cache_dir() / f"{image.venv_name}-{profile.name}-{image.input_hash(profile)}"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _flock(path: Path, mode: int) -> Optional[int]:
    """A descriptor holding the lock, or None when `mode` has LOCK_NB and another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def ensure_venv(image: ImageSpec, profile: Profile, log: Log = lambda s: None,
                install_log: Optional[Path] = None) -> Path:
    """The venv of the image's pins for the profile, built on first use (without the harness)."""
    venv = venv_path(image, profile)
    if (venv / _COMPLETE).exists():
        _remove_superseded(image, profile, venv)
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    build_lock = _flock(venv.parent / f".{venv.name}.lock", fcntl.LOCK_EX | fcntl.LOCK_NB)
    if build_lock is None:
        log(f"waiting for another process building {venv.name}")
        build_lock = _flock(venv.parent / f".{venv.name}.lock", fcntl.LOCK_EX)
    try:
        if not (venv / _COMPLETE).exists():  # the other process may have built it meanwhile
            _build(image, profile, venv, log, install_log)
    finally:
        os.close(build_lock)  # type: ignore[arg-type]
    _remove_superseded(image, profile, venv)
    return venv


def _build(image: ImageSpec, profile: Profile, venv: Path, log: Log, install_log: Optional[Path]) -> None:
    base = interpreters.find(profile.python, f"profile {profile.name}")
    installer = Installer.find()
    log(f"building venv {venv.name} (Python {profile.python}, {installer.name}): "
        f"{', '.join(image.requirements(profile))}")
    building = Path(tempfile.mkdtemp(prefix=f".{venv.name}.building-", dir=venv.parent))
    building.chmod(0o755)  # as `python -m venv` would make it, not mkdtemp's 0700
    output: list[str] = []
    try:
        installer.create(base, building, output)
        req, con = building / "requirements.txt", building / "constraints.txt"
        req.write_text("\n".join(image.requirements(profile)) + "\n")
        con.write_text("\n".join(image.constraints(profile)) + "\n")
        args = ["-r", str(req), "-c", str(con)]
        for link in image.package_sources(profile):
            args += ["--find-links", link]
        sources = image.package_sources(profile)
        where = f" (packages come from PyPI and {', '.join(sources)})" if sources else ""
        installer.install(building, args, f"install the {profile.name} pins of {image.name}{where}", output, log,
                          install_log)
        (building / _COMPLETE).write_text("\n".join(image.requirements(profile)) + "\n")
        shutil.rmtree(venv, ignore_errors=True)  # an incomplete leftover of a build killed before this lock
        # `python -m` works from the new place: the venv's python is a link to the base interpreter.
        os.rename(building, venv)
    finally:
        shutil.rmtree(building, ignore_errors=True)
        if install_log is not None and output:
            _keep_log(install_log, output)


def _writing_bytecode(env: dict[str, str]) -> dict[str, str]:
    """`env` without the host's PYTHONDONTWRITEBYTECODE: a venv is the runner's own, and without its bytecode
    caches every worker compiles the framework's modules from source again (5 s of a torch repeat's 35)."""
    return {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_bytecode(venv: Path, log: Log = lambda s: None) -> None:
    """Byte-compile the venv's packages once, ahead of its cell (uv installs without bytecode, and a worker would
    otherwise compile what it imports on its first start: 5-10 s of the first repeat of a torch or TensorFlow
    cell). A failure leaves the compiling to the workers, as before."""
    if (venv / _BYTECODE).exists():
        return
    log(f"compiling the bytecode of {venv.name}")
    site = sorted((venv / "lib").glob("python*/site-packages"))
    done = subprocess.run([str(python_of(venv)), "-m", "compileall", "-q", "-j", "1", *map(str, site)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env=_writing_bytecode(dict(os.environ)))
    if done.returncode in (0, 1):  # 1: some file did not compile (a template, a Python 2 leftover): the rest did
        (venv / _BYTECODE).write_text("")


def _keep_log(path: Path, output: list[str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n".join(output) + "\n")
    except OSError:
        pass  # the log is a convenience; its failure must not hide the install's own error


def _remove_superseded(image: ImageSpec, profile: Profile, current: Path) -> None:
    """Venvs of the same image and profile from earlier inputs, unless a run still uses one."""
    # Matched whole: a glob on the prefix alone would take profile jax-0.4.1's for jax-0.4.13's.
    own = re.compile(re.escape(f"{image.venv_name}-{profile.name}-") + r"[0-9a-f]+")
    for old in current.parent.glob(f"{image.venv_name}-{profile.name}-*"):
        if old != current and old.is_dir() and own.fullmatch(old.name):
            remove_venv(old)


def remove_venv(venv: Path) -> bool:
    """Delete a cached venv unless a run is using it (then False: left for a later cleanup)."""
    fd = _flock(venv / _IN_USE, fcntl.LOCK_EX | fcntl.LOCK_NB) if (venv / _COMPLETE).exists() else None
    if fd is None and (venv / _COMPLETE).exists():
        return False
    try:
        shutil.rmtree(venv, ignore_errors=True)
    finally:
        if fd is not None:
            os.close(fd)
    return True


def known_incompatibility(cell: "Cell", harness_dir: Path) -> Optional[str]:
    """For a dry run: why a cuda cell's framework build cannot run on this host's GPU, where its venv is built
    already (the build is probed there, nothing is installed); None when it can, or when that is not known yet."""
    gpu, venv = devices.facts(cell.device), venv_path(cell.image, cell.profile)
    if cell.device != "cuda" or not gpu or not (venv / _COMPLETE).exists():
        return None
    environment = VenvEnvironment(venv, cell.image, harness_dist.unpacked(harness_dir), lock=False)
    build = build_facts.probe(cell.framework, cell.device, environment.python, environment.variables())
    return compat.cuda_reason(build.get("label", cell.framework), build, gpu) if build else None


class VenvEnvironment(ProcessEnvironment):
    def __init__(self, venv: Path, image: ImageSpec, harness: Path, lock: bool = True):
        self.venv, self.image, self.harness = venv, image, harness
        self.python = str(python_of(venv))
        self.description = f"venv {venv.name}"
        self._in_use = _flock(venv / _IN_USE, fcntl.LOCK_SH) if lock else None

    def close(self) -> None:
        if self._in_use is not None:
            os.close(self._in_use)
            self._in_use = None

    def variables(self, config: Optional[Config] = None) -> dict[str, str]:
        """The harness's environment: the host's, the image's own settings, and on PYTHONPATH the unpacked harness
        alone (the venv's packages come from the venv, nothing from the checkout); bytecode caches written."""
        return _writing_bytecode(dict(os.environ, **dict(self.image.environment), PYTHONPATH=str(self.harness)))


class LocalBackend(Backend):
    name = "local"

    def __init__(self, harness_dir: Path):
        self.harness_dir = harness_dir

    def ready(self, cell: "Cell") -> bool:
        venv = venv_path(cell.image, cell.profile)
        return (venv / _COMPLETE).exists() and (venv / _BYTECODE).exists()

    def prefetch(self, cell: "Cell", log: Log, install_log: Optional[Path] = None) -> None:
        compile_bytecode(ensure_venv(cell.image, cell.profile, log, install_log), log)

    def prepare(self, cell: "Cell", log: Log, install_log: Optional[Path] = None) -> VenvEnvironment:
        venv = ensure_venv(cell.image, cell.profile, log, install_log)
        return VenvEnvironment(venv, cell.image, harness_dist.unpacked(self.harness_dir))
