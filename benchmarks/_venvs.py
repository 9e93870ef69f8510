"""Shared by the benchmarks: the CPU cells' venvs, built by the local backend as `runner bench` does."""
from __future__ import annotations

from pathlib import Path

from runner import images, matrix
from runner.backends import local

ROOT = Path(__file__).resolve().parent.parent
CPU_IMAGES = {"torch": "torch-cpu", "tensorflow": "tf-cpu", "jax": "jax-cpu"}


def venv(framework: str, profile: str = "current") -> Path:
    m = matrix.load(ROOT / "matrix.toml")
    return local.ensure_venv(images.load(ROOT / "images", CPU_IMAGES[framework]), m.profile(profile))
