"""The repeat's compiler-cache folder: made on the first worker's start, removed at the end, and a folder left by a
supervisor that was killed outright (its process gone) removed by the next one, while a live one's stays."""
from __future__ import annotations

import os
import subprocess
import sys

from portability_harness import compile_caches


def test_a_killed_supervisors_folder_is_removed_and_a_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_caches.tempfile, "tempdir", str(tmp_path))  # where gettempdir() points
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = tmp_path / f"{compile_caches.PREFIX}{gone.pid}-abc"
    (dead / "inductor").mkdir(parents=True)
    live = tmp_path / f"{compile_caches.PREFIX}{os.getppid()}-def"
    live.mkdir()
    other = tmp_path / "someone-elses-folder"
    other.mkdir()
    caches = compile_caches.FreshCaches()
    env = caches.env()
    assert not dead.exists() and live.exists() and other.exists()
    mine = os.path.dirname(env["TORCHINDUCTOR_CACHE_DIR"])
    assert os.path.basename(mine).startswith(f"{compile_caches.PREFIX}{os.getpid()}-")
    assert all(os.path.isdir(p) for p in env.values()) and env["TMPDIR"].startswith(mine)
    caches.remove()
    assert not os.path.exists(mine)
