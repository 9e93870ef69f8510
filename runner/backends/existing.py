"""The existing-environment backend (`--backend python:/path/to/python`, bare `python` for the python3 on PATH): a
cell runs in an interpreter the user already has (a GPU VM's preinstalled frameworks, an HPC module, a notebook's
venv), and nothing is installed into it. The harness reaches the interpreter as it reaches the runner's own venvs,
unpacked in the cache and put on PYTHONPATH (harness_dist.unpacked); the frameworks and pytest are the
environment's own.

The cell is labelled with what really ran: its profile is `existing` (or the name the user gives with --profile),
the header carries the framework versions the worker reads and the environment's package list with a fingerprint
(harness worker), and the variables passed to the worker, chosen by PASSED and --env, never the host's whole
environment.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from portability_harness.protocol import Config

from runner import harness_dist
from runner.backends.base import Backend, Log
from runner.backends.process import ProcessEnvironment
from runner.errors import UserError

if TYPE_CHECKING:
    from runner.cell import Cell

OLDEST = (3, 8)  # the harness's own floor (harness/pyproject.toml)
# What a device and its libraries read from the environment, passed to the worker by name or prefix; anything else
# only when asked for with --env NAME. Both are recorded in the header (Config.passed_env).
PASSED = ("PATH", "HOME", "USER", "LANG", "LC_", "TMPDIR", "TZ", "LD_LIBRARY_PATH", "CUDA_", "NVIDIA_", "CUDNN_",
          "NCCL_", "XLA_", "TPU_", "PJRT_", "LIBTPU_", "JAX_", "TF_", "TORCH_", "PYTORCH_", "OMP_", "MKL_",
          "OPENBLAS_", "KMP_", "HIP_", "ROCR_", "SLURM_", "XDG_CACHE_HOME", "HF_HOME")
_SECRET = ("TOKEN", "SECRET", "PASSWORD", "KEY")  # recorded by name only
# The distributions that provide a framework's import (any one will do).
DISTRIBUTIONS = {"torch": ("torch",), "jax": ("jax",),
                 "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-tpu", "tf-nightly")}

def interpreter(backend: str) -> str:
    """The interpreter a `python[:PATH]` backend names; bare `python` is the python3 on PATH."""
    path = backend.partition(":")[2]
    if path:
        return path
    found = shutil.which("python3") or shutil.which("python")
    if not found:
        raise UserError("--backend python: no python3 on PATH; give the interpreter, e.g. --backend python:/usr/bin/python3")
    return found


@lru_cache(maxsize=None)
def probe(python: str, harness: Path) -> dict:
    """The interpreter's version and packages (portability_harness.environment, run there with the unpacked
    harness on its path): a one-line UserError if it cannot run."""
    p = Path(python)
    fix = "give the path of an environment's python, e.g. --backend python:/opt/venv/bin/python"
    if not p.exists():
        raise UserError(f"--backend python:{python}: no such file; {fix}")
    if p.is_dir() or not os.access(p, os.X_OK):
        raise UserError(f"--backend python:{python}: not an executable file; {fix}")
    version = _ask(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], harness, fix)
    if tuple(int(x) for x in version.split(".")[:2]) < OLDEST:
        raise UserError(f"--backend python:{python} is Python {version}; the harness needs "
                        f"{OLDEST[0]}.{OLDEST[1]} or newer: choose a newer environment")
    try:
        return json.loads(_ask(python, ["-m", "portability_harness.environment"], harness, fix))
    except ValueError:
        raise UserError(f"--backend python:{python}: could not read its packages; {fix}") from None


def _ask(python: str, args: list[str], harness: Path, fix: str) -> str:
    """The last line `python ARGS` prints, with the unpacked harness on its path and the passed variables only."""
    try:
        # In the harness's folder: `-m` puts the working directory on sys.path, and the runner's own checkout
        # would add its metadata to the environment's list.
        proc = subprocess.run([python, *args], capture_output=True, text=True, timeout=120, cwd=harness,
                              env=dict(passed_environment(), PYTHONPATH=str(harness)))
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and lines:
            return lines[-1]
    except (OSError, subprocess.SubprocessError):
        pass
    raise UserError(f"--backend python:{python}: it did not run as a Python interpreter; {fix}")


def lacks(python: str, framework: str, harness_dir: Path) -> Optional[str]:
    """Why the environment cannot run the framework's cells (no framework, no pytest), or None."""
    have = dict(p.split("==", 1) for p in probe(python, harness_dist.unpacked(harness_dir))["packages"])
    if not any(d in have for d in DISTRIBUTIONS[framework]):
        present = [f for f, ds in DISTRIBUTIONS.items() if any(d in have for d in ds)]
        hint = (f"it has {', '.join(present)}: choose an image of {'that framework' if len(present) == 1 else 'those'}"
                if present else "it has none of torch, jax, tensorflow")
        return f"python:{python} has no {framework} ({'/'.join(DISTRIBUTIONS[framework])}); {hint}"
    if "pytest" not in have:
        return (f"python:{python} has no pytest, which the harness runs cases with; install pytest there (the runner "
                "installs nothing into an existing environment)")
    return None


def passed_environment(extra: tuple[str, ...] = ()) -> dict[str, str]:
    """The variables the worker gets: PASSED by name or prefix, and `extra` by name."""
    return {k: v for k, v in os.environ.items()
            if k in extra or any(k == p or (p.endswith("_") and k.startswith(p)) for p in PASSED)}


def recorded(env: dict[str, str]) -> dict[str, str]:
    return {k: ("(set)" if any(s in k for s in _SECRET) else v) for k, v in sorted(env.items())}


def versions(python: str, framework: str, harness_dir: Path) -> str:
    """For a dry run: what the environment holds of the framework, e.g. "jax 0.10.2 (Python 3.11.7, packages ...)"."""
    facts = probe(python, harness_dist.unpacked(harness_dir))
    have = dict(p.split("==", 1) for p in facts["packages"])
    found = ", ".join(f"{d} {have[d]}" for d in DISTRIBUTIONS[framework] if d in have)
    return f"{found} (Python {'.'.join(map(str, facts['python']))}, packages {facts['packages_fingerprint']})"


class ExistingEnvironment(ProcessEnvironment):
    def __init__(self, python: str, harness: Path, facts: dict, extra_env: tuple[str, ...], image_env: dict):
        self.python, self.harness, self.extra_env, self.image_env = python, harness, extra_env, image_env
        version = ".".join(map(str, facts["python"]))
        self.description = f"existing {facts['executable']} (Python {version}, packages {facts['packages_fingerprint']})"

    def variables(self, config: Optional[Config] = None) -> dict[str, str]:
        env = {**passed_environment(self.extra_env), **self.image_env}  # the image's own settings (JAX_PLATFORMS...)
        if config is not None:
            config.passed_env = recorded(env)
        env["PYTHONPATH"] = str(self.harness)  # the harness only; the frameworks and pytest are the environment's
        return env


class ExistingBackend(Backend):
    name = "python"

    def __init__(self, harness_dir: Path, backend: str, extra_env: tuple[str, ...] = ()):
        self.harness_dir, self.python, self.extra_env = harness_dir, interpreter(backend), extra_env

    def ready(self, cell: "Cell") -> bool:
        return True  # nothing is built: preparing probes the interpreter (a second)

    def prepare(self, cell: "Cell", log: Log, install_log: Optional[Path] = None) -> ExistingEnvironment:
        reason = lacks(self.python, cell.framework, self.harness_dir)
        if reason:
            raise UserError(f"{cell.label}: {reason}", code=3)
        facts = probe(self.python, harness_dist.unpacked(self.harness_dir))
        log(f"using the existing environment {facts['executable']}: nothing is installed into it")
        return ExistingEnvironment(self.python, harness_dist.unpacked(self.harness_dir), facts, self.extra_env,
                                   dict(cell.image.environment))
