"""Shared by the benchmarks: the CPU cells' venvs with the harness, built by the local backend as `runner bench` does."""
from __future__ import annotations

from pathlib import Path

from runner import matrix
from runner.backends.local import LocalBackend, VenvEnvironment
from runner.plan import Options, plan
from runner.project import Project

ROOT = Path(__file__).resolve().parent.parent
CPU_IMAGES = {"torch": "torch-cpu", "tensorflow": "tf-cpu", "jax": "jax-cpu"}


def venv(framework: str, profile: str = "current") -> VenvEnvironment:
    """The cell's venv as `runner bench` realises it: `.python`, and `.variables()` with the harness on PYTHONPATH."""
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    (cell,) = plan(project, Options(profiles=(profile,), images=(CPU_IMAGES[framework],), backend="local",
                                    compilers=("eager",)))
    return LocalBackend(project.harness_dir).prepare(cell, log=print)
