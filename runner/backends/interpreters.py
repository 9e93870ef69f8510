"""Find a Python interpreter of a given minor version: uv, then pyenv, then PATH.

None of these tools is assumed to exist; each is asked only if it is there.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from runner.errors import UserError


def _version_of(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _candidates(version: str):
    yield sys.executable
    uv = shutil.which("uv")
    if uv:
        try:
            out = subprocess.run([uv, "python", "find", "--no-python-downloads", version], capture_output=True,
                                 text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                yield out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    versions = Path(pyenv_root) / "versions"
    if versions.is_dir():
        for d in sorted(versions.iterdir(), reverse=True):
            if d.name == version or d.name.startswith(version + "."):
                yield str(d / "bin" / "python")
    found = shutil.which(f"python{version}")
    if found:
        yield found


def find(version: str, purpose: str) -> str:
    for candidate in _candidates(version):
        if os.path.exists(candidate) and _version_of(candidate) == version:
            return candidate
    raise UserError(
        f"Python {version} ({purpose}) is not installed; install it (`uv python install {version}` or "
        f"`pyenv install {version}`) or put python{version} on PATH, then retry"
    )
