"""The harness as a wheel: built once per version of harness/, installed into every image and unpacked once for the
interpreters of this machine (the runner's venvs, environments a user has), which get it on PYTHONPATH.

The wheel's name carries a hash of the harness sources, so a venv or an image knows whether it holds the
current harness, and an image's tag changes when the harness does.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from runner.errors import UserError


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "portability-runner"
    return Path(os.environ.get("RUNNER_CACHE_DIR", default))


def sources(harness_dir: Path) -> list[Path]:
    files = [harness_dir / "pyproject.toml"]
    files += sorted(p for p in (harness_dir / "portability_harness").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return files


def source_hash(harness_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sources(harness_dir):
        digest.update(path.relative_to(harness_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def wheel(harness_dir: Path) -> Path:
    """The harness wheel of the current sources, built on first use."""
    folder = cache_dir() / "harness" / source_hash(harness_dir)
    found = sorted(folder.glob("portability_harness-*.whl"))
    if found:
        return found[0]
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=folder.parent)
    try:
        # Built from a copy, so setuptools' build/ and egg-info never land in the checkout (which may be
        # read-only); no build isolation: setuptools comes with the host's install, no index is needed.
        src = Path(tmp) / "src"
        for path in sources(harness_dir):
            (src / path.relative_to(harness_dir)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, src / path.relative_to(harness_dir))
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                               "--disable-pip-version-check", "-w", tmp, str(src)], capture_output=True, text=True)
        shutil.rmtree(src)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise UserError(f"could not build the harness wheel from {harness_dir}: {last}", code=3)
        try:
            os.rename(tmp, folder)  # whole or not at all
        except OSError:
            pass  # another process built it meanwhile
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(folder.glob("portability_harness-*.whl"))[0]


def unpacked(harness_dir: Path) -> Path:
    """The current harness wheel unpacked once beside it (a wheel is a zip of the package, importable as it is): the
    folder the backends on this machine put on an interpreter's PYTHONPATH. Nothing is installed into a venv or an
    environment, so venvs never change when the harness does and checkouts of different harness versions can use
    the same venvs at once."""
    wheel_path = wheel(harness_dir)
    folder = wheel_path.parent / "unpacked"
    if not (folder / "portability_harness").is_dir():
        tmp = tempfile.mkdtemp(prefix=".unpacking-", dir=wheel_path.parent)
        try:
            with zipfile.ZipFile(wheel_path) as z:
                z.extractall(tmp)
            os.rename(tmp, folder)  # whole or not at all
        except OSError:
            pass  # another process unpacked it meanwhile
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder
