"""Shared fixtures: the project root and real framework venvs built by the local backend."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from runner import images, matrix
from runner.backends import local

ROOT = Path(__file__).resolve().parent.parent
FAULT_CASES = ROOT / "tests" / "fault_cases"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def venv_for():
    """venv_for(image, profile='current'): the image's real venv, built on first use and cached."""
    built: dict = {}
    m = matrix.load(ROOT / "matrix.toml")

    def get(image: str, profile: str = "current") -> Path:
        key = (image, profile)
        if key not in built:
            built[key] = local.ensure_venv(images.load(ROOT / "images", image), m.profile(profile))
        return built[key]

    return get


def harness(venv: Path, *args: str, timeout: float = 600) -> tuple[int, list[dict]]:
    """Run `python -m runner.harness ARGS` in a venv; returns its exit status and progress events."""
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "runner.harness", *args], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                          timeout=timeout)
    events = [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")]
    return proc.returncode, events


def cases_of(path: Path) -> list[dict]:
    from runner.results import store

    return store.read(str(path)).cases


def one_line_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    """Bad input: one line on stderr naming the problem (and the words given), a non-zero exit, no traceback."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
