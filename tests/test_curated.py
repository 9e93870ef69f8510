"""Every curated module runs on the CPU in quick mode through the real harness, so CI catches a broken
case; and the curated markers agree with the study's function list."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import ROOT, cases_of, config, harness
from portability_harness.catalog import curated

CSV = ROOT / "runner" / "report" / "data" / "paper2023-functions.csv"
IMAGES = {"torch": "torch-cpu", "tensorflow": "tf-cpu", "jax": "jax-cpu"}


@pytest.mark.parametrize("framework", sorted(IMAGES))
def test_curated_cases_run_on_cpu(framework, venv_for, tmp_path):
    out = tmp_path / f"{framework}.jsonl"
    rc, events = harness(venv_for(IMAGES[framework]), config(out, framework, quick=True, timeout_s=300))
    assert rc == 0, events
    cases = cases_of(out)
    modules = {f.module for f in curated(str(ROOT / "curated"), framework)}
    assert {c["module"] for c in cases} == modules  # every module ran
    broken = [(c["case_id"], c["message"]) for c in cases if c["category"] == "case_error"]
    assert not broken, broken
    unexplained = [(c["case_id"], c["message"]) for c in cases
                   if c["outcome"] == "failed" and c.get("category_source") != "annotation"]
    assert not unexplained, "a failing case needs an entry in curated/annotations.json saying why"
    for fn in {c["function"] for c in cases}:
        assert sum(c["function"] == fn for c in cases) >= 3, f"{fn} has fewer than 3 cases"
    timed = [c for c in cases if c["outcome"] == "passed"]
    assert all(c["cold_s"] is not None and c["warm_samples_s"] for c in timed), "every passing case calls bench"


def test_markers_match_the_study_list():
    rows = {r["function"]: r for r in csv.DictReader(CSV.open()) if r["status"] == "curate"}
    found = curated(str(ROOT / "curated"))
    assert sorted(f.name for f in found) == sorted(rows), "every sampled function has one module, and no other"
    for f in found:
        row = rows[f.name]
        assert row["framework"] == f.framework
        assert int(row["decile"]) == f.decile, f.name
        assert (row["top20"] == "yes") == f.top20, f.name
        assert (row["paper_label"] or None) == f.paper_label, f.name
