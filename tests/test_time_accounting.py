"""Where a repeat's time goes (issue: harness overhead): every case record carries its measurement's wall
(`measure_wall_s`) and the rest of its time by phase (`phases_s`), the footer the supervisor's and each worker's
start-up landmarks, and benchmarks/harness_overhead.py splits a real run's repeat into parts that add up to it."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import ROOT, cases_of, config, harness

pytestmark = pytest.mark.slow


def _benchmark():
    """benchmarks/harness_overhead.py as a module (its folder is not a package; it imports _venvs beside it)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("harness_overhead", ROOT / "benchmarks" / "harness_overhead.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_real_repeat_accounts_for_its_time_and_the_benchmark_splits_it(venv_for, tmp_path):
    out = tmp_path / "torch-cpu-current.jsonl"
    code, _ = harness(venv_for("torch-cpu"), config(out, "torch", functions=["torch.sum", "torch.zeros"]))
    assert code == 0
    from portability_harness.records import store

    contents = store.read(str(out))
    cases = [c for c in contents.cases if c["outcome"] == "passed"]
    assert len(cases) >= 5
    for c in cases:
        phases = c["phases_s"]
        assert set(phases) == {"measure", "setup", "inputs", "harness", "checks", "teardown"}
        assert all(v >= 0 for v in phases.values()), phases
        assert c["measure_wall_s"] == phases["measure"]
        # The measurement holds every timed call: the cold one and the warm samples (and calibration besides).
        assert c["measure_wall_s"] >= c["cold_s"] + c["warm_count"] * c["warm_min_s"] + c["calibration_s"]
        # The phases cover the case from before its calibration to the end of its pytest protocol, whose wall is
        # duration_s: they add up to it and the calibration (a few ms).
        assert 0 <= sum(phases.values()) - c["duration_s"] < 0.05
    footer = contents.footer
    (worker,) = footer["workers"]
    landmarks = [footer["supervisor_started_at"], worker["spawned"], worker["imported"], worker["collected"],
                 worker["running"], min(c["began_at"] for c in cases), worker["ended"], footer["supervisor_ended_at"]]
    assert landmarks == sorted(landmarks)

    parts = _benchmark().split(out)
    named = ("start-up", "collection", "set-up", "first call", "measure", "harness", "checks", "records")
    measured = [c for c in contents.cases if "phases_s" in c]
    # The measurement is split into each case's first call (its compiling, where compiled) and the rest.
    assert parts["first call"] == pytest.approx(sum(c["cold_s"] or 0.0 for c in measured)) and parts["first call"] > 0
    assert parts["measure"] + parts["first call"] == pytest.approx(sum(c["measure_wall_s"] for c in measured))
    assert sum(parts[p] for p in named) + parts["remainder"] == pytest.approx(parts["wall"])
    # What no part explains is small: the parts cover the repeat (a few ms of event handling are left).
    assert 0 <= parts["remainder"] < 0.05 * parts["wall"] + 0.5, parts
    assert parts["start-up"] > 0.5  # importing torch is part of it


def test_a_failed_case_leaves_its_traceback_in_the_log_in_pythons_own_format(venv_for, tmp_path):
    # jax.make_jaxpr's cases fail under jax.jit at trace (a jaxpr of a traced function). The log keeps each
    # failure's traceback for diagnosis, as Python prints it: pytest's long format (source listings, the reprs
    # of the fixtures) cost 0.1-0.7 s a failure in TensorFlow's deep traces (benchmarks/harness_overhead.py).
    from portability_harness.protocol import log_path

    out = tmp_path / "jax-cpu-current-compiled.jsonl"
    code, _ = harness(venv_for("jax-cpu"), config(out, "jax", functions=["jax.make_jaxpr"], compiler="compiled",
                                                  quick=True))
    assert code == 0
    failed = [c for c in cases_of(out) if c["outcome"] == "failed"]
    assert failed, cases_of(out)
    log = open(log_path(str(out)), encoding="utf-8").read()
    assert log.count("Traceback (most recent call last):") >= len(failed), log[-3000:]
    assert failed[0]["message"].split(":")[0] in log
    assert "\n_ _ _ _ " not in log and "\nE   " not in log  # pytest's long format would have these
