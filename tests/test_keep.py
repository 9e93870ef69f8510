"""`runner keep`: a run packed as a reference. The estimator must read the same from the archive as from the run
(only the raw samples go), what is left out is named, and an archive already kept is never replaced."""
from __future__ import annotations

import json
import shutil
import tarfile

import pytest
from conftest import one_line_error, runner_cli

from runner import estimate
from runner.archive import ARCHIVE

pytestmark = pytest.mark.slow


def members(archive) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def cases(data: bytes) -> list[dict]:
    return [r for r in map(json.loads, data.splitlines()) if r.get("record") == "case"]


def test_a_kept_run_reads_as_the_run_less_its_raw_samples(tmp_path, runs):
    run = tmp_path / "run"
    shutil.copytree(runs / "torch-current", run)
    (run / "notes.txt").write_text("not a record")
    dest = tmp_path / "results" / "reference" / "kept"
    proc = runner_cli("keep", str(run), str(dest))
    assert proc.returncode == 0, proc.stderr
    kept = members(dest / ARCHIVE)
    records = sorted(p.name for p in run.glob("*.jsonl"))
    assert sorted(n for n in kept if n.endswith(".jsonl")) == records and len(records) == 2
    assert sorted(n for n in kept if n.endswith(".log")) == sorted(p.name for p in run.glob("*.log"))
    assert "notes.txt (not a record or log)" in proc.stderr
    for name in records:
        raw = cases((run / name).read_bytes())
        packed = cases(kept[name])
        assert any(c.get("warm_samples_s") for c in raw)
        assert all("warm_samples_s" not in c for c in packed)
        assert packed == [{k: v for k, v in c.items() if k != "warm_samples_s"} for c in raw]
    # What the dry run reads of a reference: the same from the archive as from the run's own files.
    from_run = [estimate.summarize((run / n).read_bytes().splitlines()) for n in records]
    from_archive = estimate.History(tmp_path / "results").reference
    assert from_run and sorted(map(json.dumps, from_archive)) == sorted(map(json.dumps, from_run))


def test_keep_names_what_it_leaves_out_and_never_replaces_an_archive(tmp_path, runs):
    dest = tmp_path / "kept"
    proc = runner_cli("keep", str(runs / "jax-steady"), str(dest), "--log-max-kb", "0")
    assert proc.returncode == 0, proc.stderr
    logs = sorted(p.name for p in (runs / "jax-steady").glob("*.log"))
    assert logs and all(f"{name} (a log of" in proc.stderr for name in logs)
    assert not any(n.endswith(".log") for n in members(dest / ARCHIVE))
    before = (dest / ARCHIVE).read_bytes()
    again = runner_cli("keep", str(runs / "torch-current"), str(dest))
    one_line_error(again, str(dest / ARCHIVE), "exists already")
    assert (dest / ARCHIVE).read_bytes() == before
    one_line_error(runner_cli("keep", str(tmp_path / "nowhere"), str(tmp_path / "k2")), "not a results folder")
    assert not (tmp_path / "k2").exists()


def test_a_damaged_record_stops_the_keep_and_a_torn_last_line_is_named(tmp_path, runs):
    run = tmp_path / "run"
    shutil.copytree(runs / "jax-steady", run)
    path = next(run.glob("*.jsonl"))
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"record": "case", "functi')  # a worker killed while writing its last record
    proc = runner_cli("keep", str(run), str(tmp_path / "torn"))
    assert proc.returncode == 0 and f"{path.name}: its torn last line" in proc.stderr, proc.stderr
    assert members(tmp_path / "torn" / ARCHIVE)[path.name].splitlines() == [
        json.dumps({k: v for k, v in json.loads(line).items() if k != "warm_samples_s"},
                   separators=(",", ":")).encode() for line in whole.splitlines()]
    lines = whole.splitlines()
    path.write_bytes(b"\n".join(lines[:1] + [b"{damaged"] + lines[1:]) + b"\n")
    one_line_error(runner_cli("keep", str(run), str(tmp_path / "kept")), path.name, "line 2 is not JSON")
    assert not list((tmp_path / "kept").glob("*"))


def test_compare_and_report_read_a_kept_run_as_the_run(tmp_path, runs):
    """A kept folder (results/reference/ keeps its records in records.tar.xz) compares and reports as the run it was
    kept from; its own report is never written over, and a damaged archive is one line naming it."""
    run, other, kept = runs / "torch-current", runs / "torch-paper2023", tmp_path / "kept"
    assert runner_cli("keep", str(run), str(kept)).returncode == 0
    (kept / "report.md").write_text("the report published with the run")

    def setups_and_verdicts(a, b):
        proc = runner_cli("compare", str(a), str(b))
        assert proc.returncode == 0, proc.stderr
        # The latency tables differ: a kept case has no raw samples to test, only its statistics
        text = proc.stdout.split("Latency")[0].replace(str(kept), "RUN").replace(str(run), "RUN")
        # Words and cells only: a title's centring and the tables' rules follow the folders' names' lengths
        return [w for w in text.split() if not set(w) <= set("┏━┳┓┃┡╇┩│└─┴┘┼├┤┌┬┐╭╮╰╯")]

    assert setups_and_verdicts(run, kept) == setups_and_verdicts(run, run)
    kept_first = setups_and_verdicts(kept, other)
    assert kept_first == setups_and_verdicts(run, other) and kept_first[:5] == ["Setups:", "a", "=", "RUN,", "b"]
    one_line_error(runner_cli("report", str(kept)), str(kept), "--out")
    assert (kept / "report.md").read_text() == "the report published with the run"
    proc = runner_cli("report", str(kept), "--out", str(tmp_path / "new"))
    assert proc.returncode == 0, proc.stderr
    assert f"Read from: {kept}." in (tmp_path / "new" / "report.md").read_text()  # not the unpacked folder
    (kept / ARCHIVE).write_bytes((kept / ARCHIVE).read_bytes()[:2000])  # cut short
    one_line_error(runner_cli("compare", str(kept), str(run)), str(kept / ARCHIVE), "cannot be unpacked")
