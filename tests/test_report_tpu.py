"""The report's "The TPU column, forecast" (runner/report/tpu_section.py) and `runner compare`'s forecast against
measured (runner/report/compare.py).

A real model cell (JAX op by op on XLA's CPU device, `runner bench --image jax-xla-cpu`) gives the section real
records; the cells this machine cannot run (a TPU) and each verdict the TPU model can give are written with the
harness's own record builders (records/schema.py), as a TPU cell and the model cells of other frameworks would
write them: the report is what is under test here, not a framework. Older records (the reference runs' whole-function
XLA cells and torch_xla's eager cell of schema 4) get the section's fallback.
"""
from __future__ import annotations

import json
import tarfile
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from conftest import ROOT, records, runner_cli
from portability_harness.records import schema, store
from rich.console import Console

from runner import view
from runner.archive import ARCHIVE
from runner.commands import run as run_command
from runner.report import load, overview, render, tables, tpu_section
from runner.report.blocks import Section, Table

pytestmark = pytest.mark.slow

REFERENCE = ROOT / "results" / "reference"


def section_of(md: Path, title: str = tpu_section.TITLE) -> str:
    text = md.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def table_rows(section: str, function: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|") and f" {function} " in line]


def row_of(section: str, function: str, header: list[str]) -> dict[str, str]:
    (row,) = table_rows(section, function)
    return dict(zip(header, row))


def header_of(section: str) -> list[str]:
    line = next(l for l in section.splitlines() if l.startswith("| framework | setup | function"))
    return [c.strip() for c in line.strip("|").split("|")]


# --- the real model cell ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jax_model(tmp_path_factory, venv_for) -> Path:
    venv_for("jax-cpu")  # jax-xla-cpu runs in jax-cpu's environment
    out = tmp_path_factory.mktemp("jax-model")
    proc = runner_cli("bench", "--image", "jax-xla-cpu", "--backend", "local", "--quick",
                      "--functions", "jax.numpy.linalg.eig", "--functions", "jax.numpy.exp", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def expected_forecasts(folder: Path, which: str = "forward") -> dict[str, tuple[str, Counter, int, int]]:
    """Per function, read with nothing but json: (forecast, the reasons of the cases that decide it, cases flagged
    with numerics risk, cases that apply), over its `which` cases (forward or backward, judged apart)."""
    by_function: dict[str, list[dict]] = defaultdict(list)
    for _, c in records(folder):
        if c.get("tpu") and c.get("pass", "forward") == which:
            by_function[c["function"]].append(c)
    out = {}
    for function, cases in by_function.items():
        verdicts = [c["tpu"]["verdict"] for c in cases]
        applicable = [v for v in verdicts if v != "not_applicable"]
        fails = applicable.count("fails")
        forecast = ("not_applicable" if not applicable else "fails" if fails == len(applicable) else "partial"
                    if fails else "numerics_risk" if "numerics_risk" in applicable else "runs")
        deciding = {"partial": "fails"}.get(forecast, forecast)
        reasons = Counter(c["tpu"]["reason"] for c in cases if c["tpu"]["verdict"] == deciding and c["tpu"]["reason"])
        flagged = {c["case_id"] for c in cases if c["tpu"]["verdict"] == "numerics_risk"}
        out[function] = (forecast, reasons, len(flagged),
                         len({c["case_id"] for c in cases if c["tpu"]["verdict"] != "not_applicable"}))
    return out


def test_the_section_lists_a_real_model_cells_functions_with_their_forecasts(jax_model, tmp_path):
    proc = runner_cli("report", str(jax_model), "--out", str(tmp_path / "rep"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    section = section_of(tmp_path / "rep" / "report.md")
    assert tpu_section.MODEL in section
    expected, backward = expected_forecasts(jax_model), expected_forecasts(jax_model, "backward")
    assert set(expected) == {"jax.numpy.linalg.eig", "jax.numpy.exp"}, "every case of a model cell carries `tpu`"
    assert backward, "jax.numpy.exp has backward cases"
    header = header_of(section)
    for function, (forecast, reasons, flagged, applicable) in expected.items():
        row = row_of(section, function, header)
        assert (row["forecast"], row["numerics risk"]) == (forecast, f"{flagged} of {applicable}"), row
        assert row["backward forecast"] == backward.get(function, ("-",))[0], row
        back_reasons = backward.get(function, (None, Counter()))[1]
        if back_reasons:  # the backward verdict carries its reason as the forward one does
            reason, n = back_reasons.most_common(1)[0]
            assert row["backward reason"].startswith(reason.replace("|", "\\|")) and f"({n} of " in row[
                "backward reason"], row
        else:
            assert row["backward reason"] == "", row
        assert (row["setup"], row["CPU eager"], row["TPU measured"]) == ("xla-cpu", "-", "-"), row
        if reasons:  # the most common reason of the deciding cases, with how many cases give it
            reason, n = reasons.most_common(1)[0]
            assert row["reason"].startswith(reason.replace("|", "\\|")) and f"({n} of " in row["reason"], row
    counts = Counter(forecast for forecast, *_ in expected.values())
    assert (f"of 2 functions, {counts['runs']} run, {counts['fails']} fail, {counts['partial']} partly fail, "
            f"{counts['numerics_risk']} run with numerics risk, {counts['not_applicable']} not applicable") in section


# --- records of the cells this machine cannot run, written with the harness's schema -------------------------

TF, TORCH = "2.11.0", "1.12.0"  # the 2023 study's
NO_COMPLEX = "no TPU kernel: ComplexAbs (complex128): no complex128 on a TPU"
NO_PLACEMENT = "placement: no XLA_CPU kernel for AsString (float32)"
RISK = "its check refuses an output 3.9e-03 (relative) from the exact one: AssertionError: Not equal to tolerance"
STRIDED = "the input is a strided view: no such tensor on an XLA device"


def case(function: str, n: int, outcome: str, tpu: tuple[str, str | None] | None = None, **extra) -> dict:
    failed = outcome == "failed"
    return schema.case(function=function, module=f"curated/test_{function}.py", case_id=f"{function}::case_{n}",
                       params={}, outcome=outcome, category=extra.pop("category", "other" if failed else None),
                       message=extra.pop("message", "Error: no" if failed else None),
                       tpu=({"verdict": tpu[0], "reason": tpu[1], "ops": []} if tpu else None), **extra)


def write(folder: Path, name: str, cases: list[dict], **header) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    facts = dict(run_id=folder.name, device_model="Some model", mode="steady", compiler="eager", repeat=1,
                 quick=False, **header)
    with store.Writer(str(folder / f"{name}.jsonl")) as w:
        w.append(schema.header(**facts))
        for c in cases:
            w.append(c)
        w.append(schema.footer(schema.count_outcomes(cases)))


def tf_model(folder: Path) -> None:
    """TensorFlow 2.11 op by op on XLA's CPU device: a function that runs, one that fails (its most common reason in
    two of three cases), one that partly fails, one with numerics risk, and one whose cases were skipped."""
    write(folder, "tf-xla-cpu-paper2023", [
        case("tf.linalg.svd", 0, "passed", ("runs", None)), case("tf.linalg.svd", 1, "passed", ("runs", None)),
        case("tf.math.abs", 0, "passed", ("fails", NO_COMPLEX)), case("tf.math.abs", 1, "passed", ("fails", NO_COMPLEX)),
        case("tf.math.abs", 2, "failed", ("fails", "other: Error: no")),
        case("tf.strings.as_string", 0, "passed", ("runs", None)),
        case("tf.strings.as_string", 1, "failed", ("fails", NO_PLACEMENT)),
        case("tf.nn.conv3d", 0, "passed", ("numerics_risk", RISK)), case("tf.nn.conv3d", 1, "passed", ("runs", None)),
        case("tf.compat.v1.Session.run", 0, "skipped")],
        framework="tensorflow", framework_version=TF, device="xla-cpu", image="tf-xla-cpu", profile="paper2023",
        tpu_dtypes="2023")


def tf_measured(folder: Path, device: str = "tpu") -> None:
    """The same functions measured (a TPU cell, or with device cpu, the CPU's eager cell): svd and abs as
    forecast, as_string passes where a case was forecast to fail, conv3d fails its check on the TPU only."""
    write(folder, f"tf-{device}-paper2023", [
        case("tf.linalg.svd", 0, "passed"), case("tf.math.abs", 0, "failed"),
        case("tf.strings.as_string", 0, "passed"), case("tf.strings.as_string", 1, "passed"),
        case("tf.nn.conv3d", 0, "failed" if device == "tpu" else "passed", category="precision" if device == "tpu"
             else None)],
        framework="tensorflow", framework_version=TF, device=device, image=f"tf-{device}", profile="paper2023")


def torch_model(folder: Path) -> None:
    """torch_xla (the 2023 dtype rules): a function with one case whose input cannot exist on XLA, one with no case
    that can, and one that runs partly on the host."""
    write(folder, "torch-xla-cpu-paper2023", [
        case("torch.moveaxis", 0, "not_applicable", ("not_applicable", STRIDED), message=STRIDED),
        case("torch.moveaxis", 1, "passed", ("runs", None)),
        case("torch.Tensor.data_ptr", 0, "not_applicable", ("not_applicable", STRIDED), message=STRIDED),
        case("torch.Tensor.data_ptr", 1, "not_applicable", ("not_applicable", STRIDED), message=STRIDED),
        case("torch.nonzero", 0, "fallback", ("runs", "runs, partly on the host: aten::nonzero"),
             fallback={"ops": ["aten::nonzero"]})],
        framework="torch", framework_version=TORCH, device="xla-cpu", image="torch-xla-cpu", profile="paper2023",
        tpu_dtypes="2023")


@pytest.fixture
def forecast_run(tmp_path) -> Path:
    folder = tmp_path / "run"
    tf_model(folder)
    tf_measured(folder, "cpu")
    torch_model(folder)
    return folder


def test_each_forecast_gets_its_reason_and_the_facts_beside_it(forecast_run, tmp_path):
    md, page, _ = render.write(load.load([forecast_run]), tmp_path / "out")
    section = section_of(md)
    header = header_of(section)
    html = page.read_text()
    start = html.index(f'<h2 id="{Section(tpu_section.TITLE).anchor}">')
    assert f"{NO_COMPLEX} (2 of 3 cases)" in html[start:html.index("<h2", start + 1)]  # the page shows it too
    svd = row_of(section, "tf.linalg.svd", header)
    assert (svd["forecast"], svd["reason"], svd["CPU eager"], svd["numerics risk"]) == ("runs", "", "pass", "0 of 2")
    assert svd["study v3-8"] == "ran (112.843 ms)"  # paper2023-latency-t4-v3.csv
    abs_ = row_of(section, "tf.math.abs", header)
    assert (abs_["forecast"], abs_["reason"], abs_["CPU eager"]) == ("fails", f"{NO_COMPLEX} (2 of 3 cases)",
                                                                      "complete")
    assert abs_["declared on TPU"] in ("declared", "dtype_not_declared", "op_not_declared")  # 2.11's shipped table
    as_string = row_of(section, "tf.strings.as_string", header)
    assert (as_string["forecast"], as_string["reason"]) == ("partial", f"{NO_PLACEMENT} (1 of 1 case)")
    conv = row_of(section, "tf.nn.conv3d", header)
    assert (conv["forecast"], conv["numerics risk"], conv["reason"], conv["CPU eager"]) == (
        "numerics_risk", "1 of 2", f"{RISK} (1 of 1 case)", "pass")
    assert not table_rows(section, "tf.compat.v1.Session.run"), "a function whose cases say nothing is left out"
    assert "tensorflow 2.11.0 (xla-cpu, 2023 dtype rules): of 4 functions, 1 run, 1 fail, 1 partly fail, " \
           "1 run with numerics risk, 0 not applicable; the study's v3-8 TPU: 71 % pass" in section
    # the reasons counted once per failing function, the ops a TPU lacks by op and dtype
    assert ("most common reasons of failing functions: no TPU kernel: ComplexAbs (complex128) (1 function); "
            "other: Error (1 function); placement: no XLA_CPU kernel for AsString (float32) (1 function).") in section
    moveaxis, data_ptr = (row_of(section, f, header) for f in ("torch.moveaxis", "torch.Tensor.data_ptr"))
    assert (moveaxis["forecast"], moveaxis["numerics risk"]) == ("runs", "0 of 1")
    assert (data_ptr["forecast"], data_ptr["numerics risk"], data_ptr["reason"]) == (
        "not_applicable", "-", f"{STRIDED} (2 of 2 cases)")
    nonzero = row_of(section, "torch.nonzero", header)
    assert (nonzero["forecast"], nonzero["reason"]) == ("runs", "runs, partly on the host: aten::nonzero (1 of 1 case)")
    assert "torch 1.12.0 (xla-cpu, 2023 dtype rules): of 3 functions, 2 run, 0 fail, 0 partly fail, 0 run with " \
           "numerics risk, 1 not applicable" in section
    assert "jax" not in section  # no JAX records: nothing said of it


def test_a_tpu_cell_in_the_same_records_is_set_beside_the_forecast(forecast_run, tmp_path):
    tf_measured(forecast_run, "tpu")
    md, _, _ = render.write(load.load([forecast_run]), tmp_path / "out")
    section = section_of(md)
    header = header_of(section)
    measured = {f: row_of(section, f, header)["TPU measured"] for f in ("tf.linalg.svd", "tf.math.abs",
                                                                        "tf.strings.as_string", "tf.nn.conv3d")}
    assert measured == {"tf.linalg.svd": "pass", "tf.math.abs": "complete", "tf.strings.as_string": "pass",
                        "tf.nn.conv3d": "complete"}
    # svd and abs agree, as_string (partial) does not; conv3d's numerics risk is neither, said apart
    assert ("against the TPU measured here (tpu): agree on 2 of 3 functions (67 %); of 1 function with numerics "
            "risk, the TPU failed 1") in section
    assert row_of(section, "torch.moveaxis", header)["TPU measured"] == "-"


def test_not_applicable_is_counted_apart_in_the_grid_the_portability_table_and_the_summary(forecast_run):
    r = load.load([forecast_run])
    port = tables.portability(r).set_index(["framework", "target"]).loc[("torch", "xla-cpu")]
    assert (port["functions"], port["pass"], port["fallback"], port["not_applicable"]) == (2, 1, 1, 1)
    assert port["partial"] + port["complete"] + port["skipped"] + port["missing"] == 0
    cell = overview.grid_frame(r).set_index("framework").loc["torch", "xla-cpu"]
    assert cell == "fallback: 1 of 2 functions pass, 1 fall back; 1 not applicable"
    # summary.md (view.summary_markdown, over merged.json's cells)
    contents = store.read(str(forecast_run / "torch-xla-cpu-paper2023.jsonl"))
    merged = {"run_id": "run", "merged_at": "now", "cells": [
        {"image": "torch-xla-cpu", "profile": "paper2023", "status": "done",
         "runs": [{"file": "torch-xla-cpu-paper2023.jsonl", "header": contents.header, "cases": contents.cases}]}]}
    (line,) = [l for l in view.summary_markdown(merged).splitlines() if l.startswith("| torch-xla-cpu")]
    assert "| 1 fallback, 1 not_applicable, 1 pass | 1 fallback, 3 not_applicable, 1 passed |" in line
    # and the table `runner bench` prints of a results file
    console = Console(width=200, record=True)
    console.print(run_command._cell_table(forecast_run / "torch-xla-cpu-paper2023.jsonl"))
    (row,) = [l for l in console.export_text().splitlines() if "torch.Tensor.data_ptr" in l]
    assert row.split("│")[2].strip() == "not_applicable"


def test_compare_sets_a_forecast_against_a_measured_tpu_both_ways_round(tmp_path):
    tf_model(tmp_path / "model")
    torch_model(tmp_path / "model")
    tf_measured(tmp_path / "tpu", "tpu")
    for a, b, setup in (("model", "tpu", "a xla-cpu -> b tpu"), ("tpu", "model", "b xla-cpu -> a tpu")):
        proc = runner_cli("compare", str(tmp_path / a), str(tmp_path / b))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Forecast against measured" in proc.stdout
        rows = {line.split("│")[3].strip(): [c.strip() for c in line.split("│")[1:-1]]
                for line in proc.stdout.splitlines() if line.count("│") == 8}
        assert rows["tf.math.abs"] == ["tensorflow", setup, "tf.math.abs", "fails", "complete", "yes",
                                       f"{NO_COMPLEX} (2 of 3 cases)"]
        assert rows["tf.strings.as_string"][3:6] == ["partial", "pass", "no"]
        assert rows["tf.nn.conv3d"][3:6] == ["numerics_risk", "complete", "-"]
        assert not any(r[0] == "torch" for r in rows.values()), "no torch TPU was measured"
        assert (f"tensorflow ({setup}; 2.11.0 against 2.11.0): forecast and measured agree on 2 of 3 functions (67 %); of 1 function with "
                "numerics risk, the TPU failed 1") in " ".join(proc.stdout.split())


# --- older records ---------------------------------------------------------------------------------------------

def test_older_records_say_which_cells_make_the_forecast(tmp_path):
    """The reference runs: TensorFlow 2.11 eager and compiled on the CPU (whole-function XLA only), and torch_xla's
    eager and compiled cells of schema 4 (no TPU model yet). Neither is passed off as the model's forecast."""
    for name, folder in (("tf211", "tf211-xla-cpu-2026-11-26"), ("torch-xla", "matrix-cpu-2026-11-26")):
        with tarfile.open(REFERENCE / folder / ARCHIVE) as tar:
            tar.extractall(tmp_path / name, filter="data")
    whole = tpu_section.section(load.load([tmp_path / "tf211"]))
    assert whole.summary.startswith("No model cell in these records: `make matrix` runs the three")
    assert ("tensorflow: its compiled cells compile each function whole, which answers \"does my function "
            "compile?\" (Eager against compiled), not how a TPU runs it op by op: the forecast is not available "
            "from them; `runner bench --image tf-xla-cpu` runs its model cell.") in whole.blocks
    assert not any(isinstance(b, Table) for b in whole.blocks), "no per-function forecast from compiled cells"
    r = load.load([tmp_path / "torch-xla"])
    older = tpu_section.section(r)
    assert ("torch: its eager cell on XLA's CPU device is older than the TPU model (records of schema 5 carry it), "
            "so its cases carry no forecast; `runner bench --image torch-xla-cpu` runs its model cell.") in older.blocks
    assert not any(isinstance(b, Table) for b in older.blocks)
    assert r.cases["tpu"].isna().all() and set(r.cases["tpu_dtypes"]) == {""}


def test_a_records_file_of_schema_5_beside_older_ones_keeps_its_labels(forecast_run, tmp_path):
    """Model cells of two dtype rules are two setups, named by their rules; a cell without rules (not a model cell)
    is named as before."""
    other = tmp_path / "other"
    torch_model(other)
    path = other / "torch-xla-cpu-paper2023.jsonl"
    lines = [json.loads(l) for l in path.read_text().splitlines()]
    lines[0]["tpu_dtypes"] = "current"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    r = load.load([forecast_run, other])
    assert set(r.cases.loc[r.cases["framework"] == "torch", "target"]) == {"xla-cpu 2023 dtypes",
                                                                           "xla-cpu current dtypes"}
    assert set(r.cases.loc[r.cases["framework"] == "tensorflow", "target"]) == {"xla-cpu 2023 dtypes", "cpu"}
