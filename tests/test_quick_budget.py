"""A --quick pass's time limits of its own, which cut cases short instead of failing them (harness run_budget.py): a
limit per case (matrix.QUICK_CASE_S, below the per-case timeout) and a budget for the whole run, after which every
case not measured is recorded as cut short; the summary and the report list them, and --resume measures what the
run's budget left. Real harness runs of real cases on the CPU (torch, and a JAX census)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FAULT_CASES, ROOT
from portability_harness import run_budget
from portability_harness.records import store

from runner import matrix, view
from runner.report import load
from runner.plan import Options, plan

pytestmark = pytest.mark.slow

SLEEPS = "torch/test_sleeps.py::test_sleeps"


def runner(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, COLUMNS="200"), timeout=900)


def test_a_quick_run_has_a_limit_per_case_and_a_budget(project):
    (quick,) = plan(project, Options(images=("jax-cpu",), backend="local", quick=True, compilers=("eager",)))
    (steady,) = plan(project, Options(images=("jax-cpu",), backend="local", compilers=("eager",)))
    assert quick.case_budget_s == matrix.QUICK_CASE_S < quick.timeout_s == steady.timeout_s
    assert quick.stop_at is not None and steady.stop_at is None and steady.case_budget_s is None
    cfg = quick.config(Path("x.jsonl"), ROOT, 1, "r", False, "", None)
    assert (cfg.stop_at, cfg.case_budget_s) == (quick.stop_at, quick.case_budget_s)
    (given,) = plan(project, Options(images=("jax-cpu",), backend="local", quick=True, budget_s=0,
                                     compilers=("eager",)))
    assert given.stop_at is None  # --quick-budget-s 0: no budget
    (timed,) = plan(project, Options(images=("jax-cpu",), backend="local", quick=True, timeout_s=120.0,
                                     compilers=("eager",)))
    assert timed.case_budget_s is None and timed.timeout_s == 120.0  # a --timeout given is the limit a case


def test_a_budget_that_ends_mid_run_cuts_the_rest_short_and_resume_measures_them(venv_for, tmp_path):
    venv_for("torch-cpu")
    cases = tmp_path / "cases" / "torch"
    cases.mkdir(parents=True)
    for name in ("test_steady.py", "test_sleeps.py"):
        shutil.copy(FAULT_CASES / "torch" / name, cases / name)
    out = tmp_path / "run"
    args = ["bench", "--image", "torch-cpu", "--backend", "local", "--curated", str(cases.parent), "--quick",
            "--out", str(out)]
    # 40 s: torch imports and the quick cases run well within it, and the sleeping case is still running when it
    # ends (before the quick per-case timeout, 60 s, could end it).
    first = runner(*args, "--quick-budget-s", "40")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "Traceback" not in first.stdout + first.stderr
    results = out / "torch-cpu-current.jsonl"
    contents = store.read(str(results))
    ids = [c["case_id"] for c in contents.cases]
    assert len(ids) == len(set(ids)) == 14  # every case once: none dropped
    cut = [c for c in contents.cases if c.get("cut_short")]
    sleeps = next(c for c in contents.cases if c["case_id"] == SLEEPS)
    assert sleeps in cut and sleeps["outcome"] == "interrupted"  # stopped by the budget, not by a timeout
    assert sleeps["message"] in (run_budget.STOPPED, run_budget.NOT_STARTED)
    assert sleeps["pass"] == "backward"  # what the worker planned, though the supervisor wrote the record
    assert all(c["outcome"] == "interrupted" and c["cut_short"] == "run" for c in cut)
    assert all(c["outcome"] == "passed" for c in contents.cases if c not in cut)
    assert contents.footer["cut_short"] == len(cut)
    merged = json.loads((out / "merged.json").read_text())
    (cell,) = merged["cells"]
    assert cell["status"] == "cut_short" and f"{len(cut)} case" in cell["reason"]
    assert merged["status"] == "finished"
    # The run says which cases it cut short: the printed summary and summary.md, by function.
    line = f"torch-cpu current: {view.counted(len(cut), 'case')} of "
    assert line in first.stdout and "torch.add" in first.stdout.split(line)[1].splitlines()[0]
    assert line in (out / "summary.md").read_text()
    # Its backward case has no verdict (cut short, not "skipped"); its forward case passed.
    assert re.search(r"torch\.add\s*│\s*pass\s*│\s*cut short\s*│", first.stdout)
    (note,) = [n for n in load.load([out]).notes if "cut short" in n]  # the report's notes
    assert f"{view.counted(len(cut), 'case')} of " in note and "torch.add" in note
    # --resume measures the cases cut short, on a budget of its own (none here): the others pass, and the sleeping
    # case meets the quick pass's limit a case, which cuts it short too, not as a timeout (the timeout is 900 s).
    again = runner(*args, "--resume", "--quick-budget-s", "0")
    assert again.returncode == 0, again.stderr[-3000:]
    contents = store.read(str(results))
    assert len(contents.cases) == 14
    assert all(c["outcome"] == "passed" for c in contents.cases if c["case_id"] != SLEEPS)
    sleeps = next(c for c in contents.cases if c["case_id"] == SLEEPS)
    assert (sleeps["outcome"], sleeps["category"], sleeps["cut_short"], sleeps["pass"]) == (
        "interrupted", None, "case", "backward")
    assert sleeps["message"] == run_budget.CASE_BUDGET.format(matrix.QUICK_CASE_S)
    assert contents.footer["cut_short"] == 1
    assert json.loads((out / "merged.json").read_text())["cells"][0]["status"] == "cut_short"
    assert "torch-cpu current: 1 case of 1 function cut short (torch.add)" in again.stdout
    # Cut at the limit a case, it is not run again by a quick --resume (it would only meet the limit again).
    third = runner(*args, "--resume")
    assert third.returncode == 0 and store.read(str(results)).records[-1]["cut_short"] == 1


def test_a_census_past_its_budget_records_every_planned_pair_as_cut_short(venv_for, tmp_path):
    venv_for("jax-cpu")
    out = tmp_path / "census"
    proc = runner("census", "--framework", "jax", "--backend", "local", "--quick", "--ops", "cumsum", "--ops", "sort",
                  "--quick-budget-s", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = out / "jax-cpu-current-census.jsonl"
    manifest = json.loads((out / "jax-cpu-current-census.census.json").read_text())
    contents = store.read(str(results))
    # The worker planned past the budget: nothing ran, every pair is recorded, with its census fields.
    assert {c["case_id"] for c in contents.cases} == set(manifest)
    assert all(c.get("cut_short") == "run" and c["outcome"] == "interrupted" for c in contents.cases)
    assert all(c["op"] == manifest[c["case_id"]]["op"] and c["module"] == f"census/jax/{c['op']}"
               for c in contents.cases)
    assert contents.footer["cut_short"] == len(manifest)
