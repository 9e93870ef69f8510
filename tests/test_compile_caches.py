"""Cold once, warm after (the harness's compile_caches.py): a repeat run on its own compiles from empty compiler
caches of its own (torch.compile on this CPU, with a TorchInductor cache folder set in the environment as a user's
machine has one: that folder is left untouched, the repeat's own removed at its end); a cell's later repeats reuse
the caches its first repeat filled (JAX's compilation cache, here eager JAX's per-primitive compilations), say so in
the header and in each case's `cold_cached`, and reach the same verdicts; the cell's folder is gone after the cell."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import cases_of, config, harness, harness_command, runner_cli

pytestmark = pytest.mark.slow

JAX_FUNCTIONS = ("jax.numpy.add", "jax.lax.erf", "jax.numpy.cos")


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
    assert not any(c["cold_cached"] for c in cases)
    assert not any(users_cache.iterdir()), "the repeat compiled into the user's cache"
    # The repeat's own folder was made under TMPDIR and is gone; TorchInductor's default place (also under
    # TMPDIR) was never used.
    assert os.listdir(temp) == [] or all(not n.startswith(("portability-compile-caches-", "torchinductor"))
                                         for n in os.listdir(temp)), os.listdir(temp)


def test_a_later_repeat_is_served_by_the_cache_the_first_filled(venv_for, tmp_path):
    env = venv_for("jax-cpu")
    shared = tmp_path / ".caches" / "jax-cpu-current"
    entries = []
    for repeat in (1, 2):
        cfg = config(tmp_path / f"jax-cpu-current-r{repeat}.jsonl", "jax", quick=True, functions=list(JAX_FUNCTIONS),
                     repeat=repeat, shared_caches=".caches/jax-cpu-current", caches_filled=repeat > 1)
        code, _ = harness(env, cfg)
        assert code == 0
        entries.append(sorted(p.name for p in (shared / "jax").iterdir()))
    assert entries[0], "the first repeat kept no compilation"
    # Every compilation of the second repeat was found in the cache: it wrote nothing new.
    assert entries[1] == entries[0]


def test_a_cells_later_repeats_reuse_its_caches_and_reach_the_same_verdicts(venv_for, tmp_path):
    venv_for("jax-cpu")
    out = tmp_path / "run"
    proc = runner_cli("bench", "--image", "jax-cpu", "--backend", "local", "--quick", "--repeats", "3",
                      *(a for f in JAX_FUNCTIONS for a in ("--functions", f)), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    headers = [json.loads((out / f"jax-cpu-current-r{r}.jsonl").read_text().splitlines()[0]) for r in (1, 2, 3)]
    assert [h["compile_caches"] for h in headers] == ["fresh, kept for the cell's later repeats"] + [
        "reused from an earlier repeat of the cell"] * 2
    cases = [cases_of(out / f"jax-cpu-current-r{r}.jsonl") for r in (1, 2, 3)]
    timed = [[c for c in repeat if c["cold_s"] is not None] for repeat in cases]
    assert timed[0] and not any(c["cold_cached"] for c in timed[0])
    assert all(c["cold_cached"] for c in timed[1] + timed[2])
    verdicts = [{c["case_id"]: (c["outcome"], c["category"]) for c in repeat} for repeat in cases]
    assert verdicts[1] == verdicts[0] and verdicts[2] == verdicts[0]
    assert not (out / ".caches").exists(), "the cell's caches outlived it"
    # The report's cold figures are the first repeat's alone; its warm ones every repeat's.
    from runner.report import latency_tables, load

    results = load.load([out])
    cold = latency_tables.case_latency(results, "cold_s")
    first = {c["case_id"]: c["cold_s"] for c in timed[0] if c["outcome"] == "passed"}
    assert first and dict(zip(cold["case_id"], cold["cold_s"])) == first
    warm = latency_tables.case_latency(results, "warm_median_s")
    assert set(warm["case_id"]) == set(first)
