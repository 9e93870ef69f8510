"""The compilers' cache folder of a repeat: its own, made on the first worker's start and removed at the end, and a
folder left by a supervisor that was killed outright (its process gone) removed by the next one, while a live one's
stays; or the cell's, shared by its repeats: emptied by the first, kept by the others and by every repeat's end."""
from __future__ import annotations

import os
import subprocess
import sys

from portability_harness import compile_caches
from portability_harness.protocol import ENV_DECLARED, Config


def _config(tmp_path, **fields) -> Config:
    return Config(**{"framework": "jax", "device": "cpu", "out": str(tmp_path / "jax-cpu-current-r1.jsonl"),
                     "curated_root": str(tmp_path), **fields})


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
    caches = compile_caches.Caches(_config(tmp_path))
    env = caches.env()
    assert caches.policy == compile_caches.FRESH and "JAX_COMPILATION_CACHE_DIR" not in env
    assert not dead.exists() and live.exists() and other.exists()
    mine = os.path.dirname(env["TORCHINDUCTOR_CACHE_DIR"])
    assert os.path.basename(mine).startswith(f"{compile_caches.PREFIX}{os.getpid()}-")
    assert all(os.path.isdir(p) for k, p in env.items() if k != ENV_DECLARED) and env["TMPDIR"].startswith(mine)
    assert os.path.dirname(env[ENV_DECLARED]) == mine  # the declared-support table its workers share
    caches.remove()
    assert not os.path.exists(mine)


def test_the_cells_folder_is_emptied_by_its_first_repeat_and_kept_for_the_next(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_XLA_FLAGS", "--tf_xla_enable_xla_devices")
    shared = tmp_path / ".caches" / "jax-cpu-current"
    left = shared / "jax" / "left-by-a-stopped-run"
    left.parent.mkdir(parents=True)
    left.write_text("x")
    first = compile_caches.Caches(_config(tmp_path, shared_caches=".caches/jax-cpu-current"))
    assert first.policy == compile_caches.FILLED
    env = first.env()
    assert not left.exists(), "a first repeat starts from empty caches"
    assert env["JAX_COMPILATION_CACHE_DIR"] == str(shared / "jax") and env["TMPDIR"] == str(shared / "tmp")
    # Every compilation is kept, however quick; TensorFlow's XLA cache beside the flags the environment gave.
    assert env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "0"
    assert env["TF_XLA_FLAGS"] == f"--tf_xla_enable_xla_devices --tf_xla_persistent_cache_directory={shared / 'xla'}"
    (shared / "jax" / "compiled").write_text("x")
    first.remove()
    second = compile_caches.Caches(_config(tmp_path, shared_caches=".caches/jax-cpu-current", caches_filled=True,
                                           repeat=2))
    assert second.policy == compile_caches.REUSED
    assert second.env()["JAX_COMPILATION_CACHE_DIR"] == str(shared / "jax")
    assert (shared / "jax" / "compiled").exists(), "a later repeat reuses what the first compiled"
    second.remove()
    assert (shared / "jax" / "compiled").exists(), "the host removes the cell's folder when the cell ends"


def test_a_cell_no_cache_serves_keeps_fresh_caches_per_repeat(tmp_path):
    shared = {"shared_caches": ".caches/cell", "caches_filled": True}
    for fresh in (dict(framework="tensorflow"), dict(framework="torch"), dict(mode="paper"), dict(task="census"),
                  dict(framework="torch", device="xla-cpu", compiler="compiled")):
        assert compile_caches.policy(_config(tmp_path, **shared, **fresh)) == compile_caches.FRESH, fresh
    for served in (dict(), dict(framework="torch", compiler="compiled"), dict(framework="tensorflow", device="cuda"),
                   dict(framework="tensorflow", compiler="compiled")):
        assert compile_caches.policy(_config(tmp_path, **shared, **served)) == compile_caches.REUSED, served
