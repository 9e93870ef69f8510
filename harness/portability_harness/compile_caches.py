"""Empty on-disk compiler caches for each repeat, so that a compiled case's cold call and `compile_s` always
measure a first compile.

TorchInductor keeps what it compiled (FX graphs, C++ and Triton kernels) under /tmp/torchinductor_<user> and
~/.triton across processes: on the 2-core machine a torch.compile'd function's first call took 22 s with an
empty cache and 3 s with the one its previous run left, so a repeat's cold figures depended on what ran on the
host before it (an earlier repeat, another cell of the same torch). The CUDA driver likewise keeps the kernels it
JIT-compiled from PTX. The supervisor of a repeat points these at one folder of its own, which its workers (a
replacement after a crash included) share and which is removed when the repeat ends. The workers' TMPDIR is in
it too: TorchInductor puts its precompiled C++ headers under the temporary folder whatever its cache variable
says (and a case's own temporary files go with the repeat). JAX, TensorFlow and torch_xla keep no persistent
cache unless asked to.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Dict, Optional

from portability_harness import processes

# The variables the frameworks read for their caches' place; each gets a subfolder of the repeat's own folder.
VARIABLES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TRITON_CACHE_DIR": "triton", "CUDA_CACHE_PATH": "cuda",
             "TMPDIR": "tmp"}
# For the header: what a reader of the records needs to know about the cold figures.
POLICY = "fresh per repeat"
PREFIX = "portability-compile-caches-"  # then the supervisor's PID, so that a folder whose owner is gone is known


class FreshCaches:
    """One repeat's cache folder: `env()` for each worker it starts, `remove()` when the repeat ends."""

    def __init__(self) -> None:
        self.folder: Optional[str] = None

    def env(self) -> Dict[str, str]:
        if self.folder is None:
            remove_orphans()
            self.folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
            for sub in VARIABLES.values():
                os.mkdir(os.path.join(self.folder, sub))
        return {name: os.path.join(self.folder, sub) for name, sub in VARIABLES.items()}

    def remove(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def remove_orphans() -> None:
    """The folders of supervisors that were killed outright (SIGKILL skips the removal): their process is gone. A
    torch.compile repeat's caches run to hundreds of MB."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        pid = name[len(PREFIX):].split("-", 1)[0] if name.startswith(PREFIX) else ""
        if pid.isdigit() and not processes.alive(int(pid)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)

