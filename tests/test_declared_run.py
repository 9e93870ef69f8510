"""`runner declared` reads each framework's declarations inside its cell's environment (the local backend's
venv, with the harness), and the report sets them beside what a run measured."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, cases_of
from portability_harness import declared
from portability_harness.declared.dtypes import canonical, in_name

pytestmark = pytest.mark.slow
GENERATED = ROOT / "runner" / "report" / "data" / "declared"


def cli(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250"))


@pytest.mark.parametrize("framework, version", [("jax", "0.10.2"), ("torch", "2.13.0"), ("tensorflow", "2.21.0")])
def test_declared_is_read_in_the_cells_environment_and_matches_the_shipped_table(framework, version, tmp_path):
    proc = cli("declared", "--framework", framework, "--backend", "local", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = tmp_path.glob(f"{framework}-*.json.gz")
    assert path.name == f"{framework}-{version}.json.gz"
    table = declared.load(str(path))
    if framework == "torch":  # no torch_xla in the CPU image: PyTorch's TPU support is not known there
        assert not table["devices"]["tpu"]["known"]
    for kind in ("cpu", "cuda", "tpu"):  # the coverage printed is the table's own
        cov = table["coverage"][kind]
        assert f"│ {kind}" in proc.stdout and str(cov["ops"]) in proc.stdout
    # Read from the framework again, here: what the generated table (runner/report/data/declared) holds.
    with gzip.open(GENERATED / path.name, "rt") as f:
        shipped = json.load(f)
    assert table["ops"] == shipped["ops"] and table["names"] == shipped["names"]


def test_the_report_sets_declarations_beside_the_cases(venv_for, tmp_path):
    venv_for("torch-cpu")
    out = tmp_path / "run"
    proc = cli("bench", "--image", "torch-cpu", "--backend", "local", "--quick", "--functions", "torch.argsort",
               "--functions", "torch.lt", "--functions", "torch.round", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = cli("report", str(out))
    assert report.returncode == 0, report.stderr
    md = (out / "report.md").read_text()
    section = md[md.index("## Declared against measured"):]
    section = section[:section.index("\n## ", 3)]
    # An independent count over the records with the shipped table of this version.
    table = declared.load(declared.table_path(str(GENERATED), "torch", "2.13.0"))
    counts: dict[str, int] = {}
    for c in cases_of(next(out.glob("*.jsonl"))):
        if c["outcome"] not in ("passed", "failed"):
            continue
        dtypes = [d for d in (canonical(v) for v in c["params"].values()) if d] or in_name(c["case_id"])
        answers = {declared.declared(table, c["function"], "cpu", d) for d in dtypes} if dtypes else \
            {declared.declared(table, c["function"], "cpu")}
        says = ("declared" if "declared" in answers else "not declared"
                if answers <= {"op_not_declared", "dtype_not_declared"} else "unknown")
        cell = "unknown" if says == "unknown" else f"{says}, {c['outcome']}"
        counts[cell] = counts.get(cell, 0) + 1
    row = next(l for l in section.splitlines() if l.startswith("| torch | cpu | torch 2.13.0"))
    values = [v.strip() for v in row.strip("|").split("|")][3:]
    assert values == [str(counts.get(k, 0)) for k in ("declared, passed", "declared, failed", "not declared, passed",
                                                      "not declared, failed", "unknown")]
    assert counts.get("declared, passed", 0) > 0
    assert "no cuda and no tpu cells" in section
