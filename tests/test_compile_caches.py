"""Each repeat compiles from empty compiler caches: torch.compile on this CPU, with a TorchInductor cache folder set
in the environment as a user's machine has one, leaves that folder untouched, writes into a folder of the repeat's
own, and removes that folder when the repeat ends; the header says so."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import cases_of, config, harness_command

pytestmark = pytest.mark.slow


def test_a_compiled_repeat_uses_caches_of_its_own_and_removes_them(venv_for, tmp_path):
    env_ = venv_for("torch-cpu")
    users_cache, temp = tmp_path / "users-inductor-cache", tmp_path / "tmp"
    users_cache.mkdir()
    temp.mkdir()
    out = tmp_path / "torch-compiled.jsonl"
    cfg = config(out, "torch", compiler="compiled", quick=True, functions=["torch.log1p"])
    env = dict(env_.variables(), TORCHINDUCTOR_CACHE_DIR=str(users_cache), TMPDIR=str(temp))
    proc = subprocess.run(harness_command(env_, cfg, tmp_path), cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cases = cases_of(out)
    compiled = [c for c in cases if c["outcome"] == "passed" and c["compile_s"]]
    assert compiled, [(c["outcome"], c["message"]) for c in cases]
    header = json.loads(out.read_text().splitlines()[0])
    assert header["compile_caches"] == "fresh per repeat"
    assert not any(users_cache.iterdir()), "the repeat compiled into the user's cache"
    # The repeat's own folder was made under TMPDIR and is gone; TorchInductor's default place (also under
    # TMPDIR) was never used.
    assert os.listdir(temp) == [] or all(not n.startswith(("portability-compile-caches-", "torchinductor"))
                                         for n in os.listdir(temp)), os.listdir(temp)
