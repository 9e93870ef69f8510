"""RunDir owns a results folder: its layout, the rule that a new run never writes over results, and what
--resume keeps."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT
from portability_harness.records import schema, store

from runner import matrix
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project
from runner.rundir import RunDir


@pytest.fixture
def cells(no_devices):
    p = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    found = {c.key: c for c in plan(p, Options(backend="local", repeats=2))}
    return [found["jax-cpu/current"], found["torch-cpu/current"], found["jax-cuda/current"]]


def finish(path, cases=("a",)):
    with store.Writer(str(path)) as w:
        w.append(schema.header(framework="jax"))
        for c in cases:
            w.append(schema.case(function="f", module="m", case_id=c, params={}, outcome="passed"))
        w.append(schema.footer({"passed": len(cases)}))


def test_layout_names_each_repeat_and_its_log(tmp_path, cells):
    rd = RunDir(tmp_path / "run")
    assert rd.run_id == "run"
    assert rd.results_file(cells[0], 2).name == "jax-cpu-current-r2.jsonl"
    assert rd.log_file(rd.results_file(cells[0], 2)).name == "jax-cpu-current-r2.log"
    (single,) = plan(Project(ROOT, matrix.load(ROOT / "matrix.toml")),
                     Options(images=("tf-cpu",), backend="local", repeats=1, compilers=("eager",)))
    assert rd.results_file(single, 1).name == "tf-cpu-current.jsonl"


def test_a_new_run_refuses_a_folder_that_holds_a_run_or_results(tmp_path, cells):
    rd = RunDir(tmp_path / "run")
    states = rd.begin(cells, resume=False)
    assert [s.status for s in states] == ["pending", "pending", "not_run"]
    rd.save(states)
    with pytest.raises(UserError, match=r"being written by process \d+ \(.*pytest"):  # while the run holds it
        RunDir(tmp_path / "run").begin(cells, resume=True)
    rd.release()
    with pytest.raises(UserError, match="already holds a run; pass --resume"):
        RunDir(tmp_path / "run").begin(cells, resume=False)
    other = RunDir(tmp_path / "other")
    other.path.mkdir()
    finish(other.results_file(cells[1], 1))
    before = other.results_file(cells[1], 1).read_bytes()
    with pytest.raises(UserError, match="torch-cpu-current-r1.jsonl already holds results"):
        other.begin(cells, resume=False)
    assert other.results_file(cells[1], 1).read_bytes() == before


def test_resume_keeps_what_finished_and_continues_the_rest(tmp_path, cells):
    with pytest.raises(UserError, match="does not exist"):
        RunDir(tmp_path / "none").begin(cells, resume=True)
    rd = RunDir(tmp_path / "run")
    states = rd.begin(cells, resume=False)
    states[0].status, states[0].files = "done", ["jax-cpu-current-r1.jsonl", "jax-cpu-current-r2.jsonl"]
    states[1].status, states[1].files = "running", ["torch-cpu-current-r1.jsonl"]
    rd.save(states)
    rd.release()
    finish(rd.results_file(cells[1], 1))
    again = rd.begin(cells, resume=True)
    assert [s.status for s in again] == ["done", "pending", "not_run"]
    assert again[1].files == ["torch-cpu-current-r1.jsonl"]
    assert rd.finished(rd.results_file(cells[1], 1)) and not rd.finished(rd.results_file(cells[1], 2))


def test_a_damaged_state_file_is_one_line_and_left_alone(tmp_path, cells):
    rd = RunDir(tmp_path / "run")
    rd.path.mkdir()
    (rd.path / RunDir.STATE).write_text("{not json")
    with pytest.raises(UserError, match="matrix.json is damaged"):
        rd.begin(cells, resume=True)
    assert (rd.path / RunDir.STATE).read_text() == "{not json"


def test_publish_merges_every_cell_without_raw_samples(tmp_path, cells):
    rd = RunDir(tmp_path / "run")
    states = rd.begin(cells, resume=False)
    finish(rd.results_file(cells[0], 1), cases=("a", "b"))
    states[0].status, states[0].files = "done", [rd.results_file(cells[0], 1).name]
    merged = rd.publish(states)
    assert json.loads((rd.path / RunDir.MERGED).read_text()) == merged
    jax = merged["cells"][0]
    assert jax["status"] == "done" and [c["case_id"] for c in jax["runs"][0]["cases"]] == ["a", "b"]
    assert all("warm_samples_s" not in c for c in jax["runs"][0]["cases"])
    assert merged["cells"][2]["status"] == "not_run" and "no NVIDIA GPU" in merged["cells"][2]["reason"]
    summary = (rd.path / RunDir.SUMMARY).read_text()
    assert summary.startswith("# Run run") and "| jax-cpu current | local | done | 1 |" in summary


def test_latest_is_the_run_written_last(tmp_path):
    import os

    with pytest.raises(UserError, match="no run under"):
        RunDir.latest(tmp_path)
    for name, t in (("a", 100), ("b", 300), ("c", 200)):
        (tmp_path / name).mkdir()
        f = tmp_path / name / "x.jsonl"
        f.write_text("{}\n")
        os.utime(f, (t, t))
    assert RunDir.latest(tmp_path).run_id == "b"
