"""The local backend: an image spec realised as a virtual environment, and the harness run inside it.

Venvs live in a cache folder keyed by image, profile and a hash of their inputs (Python version, pins,
constraints): created on first use, reused after, rebuilt when an input changes. The harness wheel is
installed into each and replaced when the harness changes; nothing else of the checkout is importable
inside (the harness runs with the image's environment, outside the checkout, with no PYTHONPATH).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from portability_harness.protocol import Config, Event

from runner import harness_dist
from runner.backends import Backend, Environment, Log, harness_events, interpreters, telling_error
from runner.errors import UserError
from runner.images import ImageSpec
from runner.matrix import Profile

if TYPE_CHECKING:
    from runner.plan import Cell

_COMPLETE = ".runner-complete"
_HARNESS = ".runner-harness"  # the wheel installed, by name


def cache_dir() -> Path:
    return Path(os.environ.get("RUNNER_VENV_DIR", harness_dist.cache_dir() / "venvs"))


def venv_path(image: ImageSpec, profile: Profile) -> Path:
    return cache_dir() / f"{image.name}-{profile.name}-{image.input_hash(profile)}"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(image: ImageSpec, profile: Profile, log: Log = lambda s: None) -> Path:
    """The venv of the image's pins for the profile, built on first use (without the harness)."""
    venv = venv_path(image, profile)
    if (venv / _COMPLETE).exists():
        return venv
    base = interpreters.find(profile.python, f"profile {profile.name}")
    log(f"building venv {venv.name} (Python {profile.python}): {', '.join(image.requirements(profile))}")
    shutil.rmtree(venv, ignore_errors=True)  # an interrupted build: start again
    venv.parent.mkdir(parents=True, exist_ok=True)
    _run([base, "-m", "venv", str(venv)], f"create a venv with {base}")
    with tempfile.TemporaryDirectory() as tmp:
        req, con = Path(tmp, "requirements.txt"), Path(tmp, "constraints.txt")
        req.write_text("\n".join(image.requirements(profile)) + "\n")
        con.write_text("\n".join(image.constraints(profile)) + "\n")
        cmd = [str(python_of(venv)), "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
               "-r", str(req), "-c", str(con)]
        for link in image.package_sources(profile):
            cmd += ["--find-links", link]
        sources = image.package_sources(profile)
        where = f" (packages come from PyPI and {', '.join(sources)})" if sources else ""
        _run(cmd, f"install the {profile.name} pins of {image.name}{where}")
    for old in venv.parent.glob(f"{image.name}-{profile.name}-*"):
        if old != venv:
            shutil.rmtree(old, ignore_errors=True)  # superseded by a changed spec
    (venv / _COMPLETE).write_text("\n".join(image.requirements(profile)) + "\n")
    return venv


def install_harness(venv: Path, wheel: Path) -> None:
    """Put the current harness wheel into the venv (its one dependency, pytest, is among the pins)."""
    marker = venv / _HARNESS
    if marker.exists() and marker.read_text() == wheel.parent.name:
        return
    _run([str(python_of(venv)), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--no-deps",
          "--force-reinstall", str(wheel)], f"install the harness into {venv.name}")
    marker.write_text(wheel.parent.name)


def _run(cmd: list, what: str) -> None:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        detail = telling_error((proc.stderr + proc.stdout).splitlines()) or \
            (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"could not {what}: {detail}", code=3)


class VenvEnvironment(Environment):
    def __init__(self, venv: Path, image: ImageSpec):
        self.venv = venv
        self.image = image
        self.description = f"venv {venv.name}"

    def run(self, config: Config) -> Iterator[Event]:
        out_dir = Path(config.out).parent
        out_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, **dict(self.image.environment), PYTHONUNBUFFERED="1")
        env.pop("PYTHONPATH", None)  # the harness sees its own package and the venv's, not the checkout
        with tempfile.TemporaryDirectory(prefix="runner-harness-") as tmp:
            path = config.write(os.path.join(tmp, "config.json"))
            with open(os.path.join(tmp, "stderr"), "w+b") as stderr:
                proc = subprocess.Popen([str(python_of(self.venv)), "-m", "portability_harness", path], cwd=out_dir,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=env)
                assert proc.stdout is not None

                def ended() -> tuple[int, str]:
                    code = proc.wait()
                    stderr.seek(0)
                    return code, stderr.read().decode("utf-8", "replace")[-2000:]

                try:
                    yield from harness_events(config, iter(proc.stdout.readline, b""), ended)
                finally:
                    if proc.poll() is None:  # the host stopped reading (interrupted): stop the harness too
                        proc.terminate()
                        proc.wait()


class LocalBackend(Backend):
    name = "local"

    def __init__(self, harness_dir: Path):
        self.harness_dir = harness_dir

    def prepare(self, cell: "Cell", log: Log) -> VenvEnvironment:
        venv = ensure_venv(cell.image, cell.profile, log)
        install_harness(venv, harness_dist.wheel(self.harness_dir))
        return VenvEnvironment(venv, cell.image)
