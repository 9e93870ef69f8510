"""The node side of a Ray cell without a cluster: what a task carries, and the one line a failed step gives.

The cause of a cell that failed on its node with a bare "[Errno 2] No such file or directory": Ray's
working_dir, unpacked into one folder per machine, was deleted and unpacked again when a second node of the
machine set up the job, so os.getcwd() of the first node's task failed. A task now carries its files (pack) and
works in a folder of its own; an error names its step and the file and line that raised it.
"""
from __future__ import annotations

import io
import os
import tarfile

import pytest
from conftest import CURATED, ROOT

from runner import harness_dist, matrix
from runner.errors import UserError
from runner.project import Project
from runner.ray_node import NodeStepFailed, Steps, pack


def test_a_step_that_fails_says_which_step_and_where(tmp_path):
    gone = tmp_path / "working_dir"
    gone.mkdir()
    here = os.getcwd()
    steps = Steps("unpacking the cell's files")
    try:
        os.chdir(gone)
        os.rmdir(gone)  # what Ray did to a running task's working_dir
        with pytest.raises(NodeStepFailed) as raised:
            with steps.named():
                steps.now = "preparing the local environment of jax-cpu (current)"
                os.getcwd()
    finally:
        os.chdir(here)
    message = str(raised.value)
    assert message.startswith("preparing the local environment of jax-cpu (current): FileNotFoundError: [Errno 2]")
    assert "(at test_ray_node.py:" in message and "in test_a_step_that_fails_says_which_step_and_where)" in message


def test_a_users_error_passes_as_its_own_line():
    with pytest.raises(UserError, match="^could not install"):
        with Steps("preparing").named():
            raise UserError("could not install jax==0.0.1: no matching distribution")


def test_a_task_carries_the_images_the_harness_sources_and_the_curated_modules():
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"), CURATED)
    with tarfile.open(fileobj=io.BytesIO(pack(project))) as tar:
        names = set(tar.getnames())
    harness = {f"harness/{p.relative_to(ROOT / 'harness').as_posix()}" for p in harness_dist.sources(ROOT / "harness")}
    assert harness <= names and "harness/pyproject.toml" in names
    assert {f"images/{p.relative_to(ROOT / 'images').as_posix()}" for p in (ROOT / "images").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts} <= names
    assert {f"curated/{p.relative_to(CURATED).as_posix()}" for p in CURATED.rglob("*.py")} <= names
    assert not any("__pycache__" in n or n.startswith(("harness/tests", "runner/")) for n in names)
