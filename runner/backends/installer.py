"""The installer that builds local venvs: uv where it is available (it downloads in parallel and links from its
cache), else pip. Both get the same package sources: uv does not read pip's configuration, so the indexes
and find-links pip is configured with on this machine are handed to uv explicitly; a venv then holds the same
builds whichever tool made it. Output lines that say what is being fetched are passed to `log` as they come.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

from runner.backends.base import Log, telling_error
from runner.errors import UserError

# Lines worth showing while an environment is built: what is being fetched and installed.
_PROGRESS = re.compile(r"^\s*(Collecting|Downloading|Downloaded|Installing|Installed|Resolved|Prepared|Building)\b")
# pip configuration keys that name where packages come from, and uv's option for each.
_SOURCES = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}


def uv_executable() -> Optional[str]:
    beside = Path(sys.executable).with_name("uv")  # installed with the runner (a host dependency)
    return str(beside) if beside.exists() else shutil.which("uv")


def pip_sources() -> list[str]:
    """uv options for the package sources pip's configuration names (files and PIP_* variables)."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    args: list[str] = []
    for line in out.splitlines():
        key, _, value = line.partition("=")
        option = _SOURCES.get(key.rsplit(".", 1)[-1])
        if option:
            for item in value.strip().strip("'\"").split():
                if [option, item] != args[-2:] and item not in args:
                    args += [option, item]
    return args


class Installer:
    """Creates a venv with a given interpreter and installs requirements into it."""

    def __init__(self, uv: Optional[str] = None):
        self.uv = uv
        self.name = "uv" if uv else "pip"
        self._sources: Optional[list[str]] = None

    @classmethod
    def find(cls) -> "Installer":
        return cls(uv_executable())

    def create(self, python: str, path: Path, output: list[str]) -> None:
        cmd = [self.uv, "venv", "--python", python, str(path)] if self.uv else [python, "-m", "venv", str(path)]
        _run(cmd, f"create a venv with {python}", output)

    def install(self, venv: Path, args: list[str], what: str, output: list[str], log: Log = lambda s: None,
                install_log: Optional[Path] = None) -> None:
        """Install into the venv: `args` as pip takes them (-r FILE, -c FILE, --find-links URL, --no-deps ...)."""
        python = str(venv / "bin" / "python")
        if self.uv:
            if self._sources is None:
                self._sources = pip_sources()
            # unsafe-best-match: every index is searched for the best version, as pip does (uv's default
            # stops at the first index that has the package at all).
            cmd = [self.uv, "pip", "install", "--python", python, "--index-strategy", "unsafe-best-match",
                   *self._sources, *args]
        else:
            cmd = [python, "-m", "pip", "install", "--no-input", "--disable-pip-version-check", *args]
        _run(cmd, what, output, install_log, log)


def _run(cmd: list, what: str, output: list[str], install_log: Optional[Path] = None, log: Log = lambda s: None) -> None:
    """Run an installer command, passing its progress lines to `log` as they come; raise with its reason."""
    output.append(f"$ {' '.join(str(c) for c in cmd)}")
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        line = line.rstrip()
        lines.append(line)
        if _PROGRESS.match(line):
            log(line.strip())
    output += lines
    if proc.wait() != 0:
        detail = telling_error(lines) or next((l for l in reversed(lines) if l.strip()), "no output")
        where = f" (the installer's whole output: {install_log})" if install_log else ""
        raise UserError(f"could not {what}: {detail}{where}", code=3)
