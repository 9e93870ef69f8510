"""The harness package on the lowest Python any profile pins (3.8: torch_xla 1.12 for TPU VMs): its own tests
run there, in a venv holding nothing but pytest and the harness wheel."""
from __future__ import annotations

import re
import subprocess
import tomllib

import pytest
from conftest import ROOT, clean_env

from runner import harness_dist, matrix
from runner.backends import interpreters
from runner.errors import UserError


def lowest_python() -> str:
    m = matrix.load(ROOT / "matrix.toml")
    versions = [p.python for p in m.profiles.values()]
    versions += [str(o.settings["python"]) for o in m.overrides if "python" in o.settings]
    return min(versions, key=lambda v: tuple(map(int, v.split("."))))


def test_the_harness_promises_the_lowest_python_a_profile_pins():
    declared = tomllib.loads((ROOT / "harness" / "pyproject.toml").read_text())["project"]["requires-python"]
    assert declared == f">={lowest_python()}"


def test_the_harness_tests_pass_on_the_lowest_python(tmp_path):
    version = lowest_python()
    try:
        python = interpreters.find(version, "the harness's lowest Python")
    except UserError as e:
        pytest.skip(f"no Python {version} here to test the harness on ({e})")
    pins = matrix.load(ROOT / "matrix.toml").profile("paper2023").packages
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.run([*pip, f"pytest=={pins['pytest']}", str(harness_dist.wheel(ROOT / "harness"))],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(ROOT / "harness" / "tests")], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    ran = re.search(r"(\d+) passed", proc.stdout)
    assert ran and int(ran.group(1)) >= 25, proc.stdout[-500:]
    assert f"Python {version}" in subprocess.run([str(venv / "bin" / "python"), "--version"], capture_output=True,
                                                 text=True).stdout
