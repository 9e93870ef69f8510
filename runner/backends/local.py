"""The local backend: an image spec realised as a virtual environment, and the harness run inside it.

Venvs live in a cache folder keyed by image, profile and a hash of their inputs (Python version,
pins, constraints): created on first use, reused after, rebuilt when an input changes.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from runner.errors import UserError
from runner.harness.events import decode
from runner.images import ImageSpec
from runner.matrix import Profile
from runner.backends import interpreters, telling_error

_COMPLETE = ".runner-complete"


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "portability-runner" / "venvs"
    return Path(os.environ.get("RUNNER_VENV_DIR", default))


def venv_path(image: ImageSpec, profile: Profile) -> Path:
    return cache_dir() / f"{image.name}-{profile.name}-{image.input_hash(profile)}"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(image: ImageSpec, profile: Profile, log: Callable[[str], None] = lambda s: None) -> Path:
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
        for link in profile.find_links:
            cmd += ["--find-links", link]
        where = f" (packages come from PyPI and {', '.join(profile.find_links)})" if profile.find_links else ""
        _run(cmd, f"install the {profile.name} pins of {image.name}{where}")
    for old in venv.parent.glob(f"{image.name}-{profile.name}-*"):
        if old != venv:
            shutil.rmtree(old, ignore_errors=True)  # superseded by a changed spec
    (venv / _COMPLETE).write_text("\n".join(image.requirements(profile)) + "\n")
    return venv


def _run(cmd: list, what: str) -> None:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        detail = telling_error((proc.stderr + proc.stdout).splitlines()) or \
            (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"could not {what}: {detail}", code=3)


def run_harness(venv: Path, args: list[str], project_root: Path) -> Iterator[dict]:
    """Run `python -m runner.harness ARGS` in the venv; yield its progress events; raise on a bad exit."""
    env = dict(os.environ, PYTHONPATH=str(project_root), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([str(python_of(venv)), "-m", "runner.harness", *args], cwd=project_root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        for line in proc.stdout:
            event = decode(line)
            if event is not None:
                yield event
    finally:
        if proc.poll() is None and sys.exc_info()[0] is not None:
            proc.terminate()
        stderr = proc.stderr.read().decode("utf-8", "replace")
        proc.wait()
    if proc.returncode != 0:
        yield {"event": "exit", "returncode": proc.returncode, "stderr": stderr.strip()[-2000:]}
