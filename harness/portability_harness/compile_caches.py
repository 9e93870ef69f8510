"""The compilers' on-disk caches of a repeat: cold once, warm after.

A cell's first repeat in a run compiles from empty caches, so that its cold calls and `compile_s` measure a first
compile. Its later repeats may reuse what it compiled, where a framework keeps a persistent cache that can serve
the cell (`served`): they then record `cold_cached` in every case, and a report never puts such a cold call beside
a first compile. Warm samples are alike either way: they are timed after the first call, caches or none.

Why the caches must be owned at all: TorchInductor keeps what it compiled (FX graphs, C++ and Triton kernels) under
/tmp/torchinductor_<user> and ~/.triton across processes: on the 2-core machine a torch.compile'd function's
first call took 22 s with an empty cache and 3 s with the one its previous run left, so a repeat's cold figures
depended on what ran on the host before it (another cell of the same torch, a run days ago). The CUDA driver
likewise keeps the kernels it JIT-compiled from PTX. JAX, TensorFlow and torch_xla keep no persistent cache unless
asked to; where a cell's later repeats share a folder, JAX's compilation cache (every compilation, however quick:
eager JAX compiles each primitive on its first use) and TensorFlow's XLA cache are asked to keep theirs in it too.

So each repeat's supervisor points these at a folder its workers (a replacement after a crash included) share:
- of its own, removed when the repeat ends (policy FRESH), or
- the cell's (Config.shared_caches, a folder the host names beside the results and removes when the cell ends):
  emptied by the cell's first repeat in the run (FILLED) and reused by the others (REUSED; Config.caches_filled).
The workers' TMPDIR is in it too: TorchInductor puts its precompiled C++ headers under the temporary folder
whatever its cache variable says (and a case's own temporary files go with the folder). So is the framework's
declared-support table, which the classifier reads at a worker's first support failure: the first worker to read it
saves it there and a replacement loads it (reading torch's OpInfo database took 7-9 s a worker; torch-xla-cpu
replaced its worker 22 times a repeat until a failed call's frames were let go, and about 5 times since).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Dict, Optional

from portability_harness import processes
from portability_harness.protocol import ENV_DECLARED, Config

# The variables the frameworks read for their caches' place; each gets a subfolder of the folder.
VARIABLES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TRITON_CACHE_DIR": "triton", "CUDA_CACHE_PATH": "cuda",
             "TMPDIR": "tmp"}
# The header's `compile_caches`: what a reader of the records needs to know about the cold figures.
FRESH = "fresh per repeat"
FILLED = "fresh, kept for the cell's later repeats"
REUSED = "reused from an earlier repeat of the cell"
PERSISTENT = ("jax", "xla")  # the subfolders of JAX's and TensorFlow's caches, kept only in a cell's folder
DECLARED = "declared-support.json.gz"  # the declared-support table the repeat's workers share
PREFIX = "portability-compile-caches-"  # then the supervisor's PID, so that a folder whose owner is gone is known


def served(cfg: Config) -> bool:
    """Whether a persistent cache this module keeps can serve a compilation of `cfg`'s cell: the CUDA driver's on
    a GPU, JAX's (eager too), TorchInductor's and TensorFlow's XLA cache for a compiled CPU or GPU cell. Not the
    paper mode's: its one timed call is the cold one. (torch_xla's cache is not asked for: its cells run once.)"""
    if cfg.mode == "paper" or cfg.task != "cases":
        return False
    if cfg.device == "cuda" or cfg.framework == "jax":
        return True
    return cfg.compiler == "compiled" and cfg.device == "cpu"


def policy(cfg: Config) -> str:
    if not cfg.shared_caches or not served(cfg):
        return FRESH
    return REUSED if cfg.caches_filled else FILLED


class Caches:
    """One repeat's caches: `env()` for each worker it starts, `remove()` when the repeat ends."""

    def __init__(self, cfg: Config) -> None:
        self.policy = policy(cfg)
        self.shared: Optional[str] = None  # the cell's folder, which outlives the repeat
        if self.policy != FRESH:
            self.shared = os.path.join(os.path.dirname(os.path.abspath(cfg.out)), cfg.shared_caches)
        self.folder: Optional[str] = None

    def env(self) -> Dict[str, str]:
        if self.folder is None:
            self.folder = self._make()
        env = {name: os.path.join(self.folder, sub) for name, sub in VARIABLES.items()}
        env[ENV_DECLARED] = os.path.join(self.folder, DECLARED)
        if self.shared is not None:
            env.update(_persistent(self.folder))
        return env

    def _make(self) -> str:
        if self.shared is None:
            remove_orphans()
            folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        else:
            folder = self.shared
            if self.policy == FILLED:  # what a run stopped earlier left: this repeat starts cold
                shutil.rmtree(folder, ignore_errors=True)
        for sub in [*VARIABLES.values(), *(PERSISTENT if self.shared else ())]:
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        return folder

    def remove(self) -> None:
        if self.folder is not None and self.shared is None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None


def _persistent(folder: str) -> Dict[str, str]:
    """The caches JAX and TensorFlow keep only when asked: JAX's for every compilation (by default it keeps only
    those that took a second), TensorFlow's XLA executables beside the flags the environment already gives."""
    xla = f"--tf_xla_persistent_cache_directory={os.path.join(folder, 'xla')}"
    return {"JAX_COMPILATION_CACHE_DIR": os.path.join(folder, "jax"),
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0", "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
            "TF_XLA_FLAGS": " ".join(f for f in (os.environ.get("TF_XLA_FLAGS", ""), xla) if f)}


def remove_orphans() -> None:
    """The folders of supervisors that were killed outright (SIGKILL skips the removal): their process is gone. A
    torch.compile repeat's caches run to hundreds of MB."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        pid = name[len(PREFIX):].split("-", 1)[0] if name.startswith(PREFIX) else ""
        if pid.isdigit() and not processes.alive(int(pid)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
