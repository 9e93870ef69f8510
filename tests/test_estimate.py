"""The time known in advance (runner/estimate.py): a repeat's expected wall from this host's earlier runs (split into
a fixed part and each function's cases, so that another selection of the same setup is estimated too), else from
the reference runs scaled by this host's calibration against theirs, else a default; `runner matrix --dry-run` and
`scripts/device_check.py --dry-run` print it per cell or step with the total, the latter with the standard library
alone; a run's merged.json and summary.md set it beside the wall each cell took."""
from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import tarfile

import pytest
from conftest import ROOT, runner_cli

from runner import estimate, host_speed
from runner.archive import ARCHIVE

XLA = ROOT / "results" / "reference" / "xla-cpu-2026-11-26" / ARCHIVE
TORCH_XLA = dict(image="torch-xla-cpu", profile="current", framework="torch", device="xla-cpu", compiler="eager",
                 mode="steady", quick=False, task="cases")


def xla_reference(tmp_path):
    """A results folder whose reference runs are the real torch-xla-cpu records of 2026-11-26."""
    (tmp_path / "results" / "reference" / "xla").mkdir(parents=True)
    shutil.copy(XLA, tmp_path / "results" / "reference" / "xla" / ARCHIVE)
    with tarfile.open(XLA) as tar:
        lines = tar.extractfile("torch-xla-cpu-current.jsonl").read().splitlines()
    return tmp_path / "results", [json.loads(l) for l in lines]


def test_a_reference_run_scaled_by_this_hosts_speed_predicts_each_selection(tmp_path, monkeypatch):
    results, records = xla_reference(tmp_path)
    header = next(r for r in records if r["record"] == "header")
    monkeypatch.setattr(host_speed, "this_cpu", lambda: header["device_model"])  # the ratio squared (test_host_speed)
    footer = records[-1]
    cases = [r for r in records if r["record"] == "case"]
    wall = footer["supervisor_ended_at"] - footer["supervisor_started_at"]
    calibration = statistics.median(c["calibration_s"] for c in cases if c.get("calibration_s"))
    history = estimate.History(results, tmp_path / "estimates.json")
    want = estimate.setup(**TORCH_XLA, later=False)
    functions = sorted({c["function"] for c in cases})
    same = history.expect(want, functions, calibration)
    assert same.source == "reference" and same.seconds == pytest.approx(wall)
    # Twice as slow a host of the reference's CPU model: four times the wall (the ratio squared); on another model,
    # the ratio's square root. Two functions: the fixed part and their cases alone.
    slower = history.expect(want, functions, 2 * calibration)
    assert slower.seconds == pytest.approx(4 * wall) and slower.scale == pytest.approx(4)
    monkeypatch.setattr(host_speed, "this_cpu", lambda: "another CPU")
    elsewhere = history.expect(want, functions, 2 * calibration)
    assert elsewhere.seconds == pytest.approx(2 ** 0.5 * wall) and elsewhere.scale == pytest.approx(2 ** 0.5)
    # The dry run's total says which it was
    assert "1 from reference scaled x4.00 by this host's calibration now" in estimate.describe([slower])
    told = estimate.describe([elsewhere, elsewhere])
    assert "2 from reference scaled x1.41 by this host's calibration now" in told and "its square root on" in told
    # Where this host's calibration is unknown, as the reference ran
    unknown = history.expect(want, functions, None)
    assert unknown.seconds == pytest.approx(wall) and unknown.scale == 1.0
    assert "as they ran (made on an accelerator machine" in estimate.describe([unknown])
    monkeypatch.setattr(host_speed, "this_cpu", lambda: header["device_model"])
    two = functions[:2]
    # A case killed at the timeout took the timeout (records of before 2026-11-27 say 0 s).
    timeout_s = header["timeout_s"]
    took = {id(c): c["duration_s"] or (timeout_s if c["category"] == "timeout" else 0.0) for c in cases}
    assert any(c["category"] == "timeout" and not c["duration_s"] for c in cases)
    cases_s = sum(took.values())
    assert history.expect(want, two, calibration).seconds == pytest.approx(
        max(0.0, wall - cases_s) + sum(took[id(c)] for c in cases if c["function"] in two))
    # Read once: a second look comes from the summaries kept beside the venvs, the same.
    assert json.loads((tmp_path / "estimates.json").read_text())["files"]
    again = estimate.History(results, tmp_path / "estimates.json").expect(want, functions, calibration)
    assert again == same
    # A setup no run holds: the default, per function.
    other = estimate.setup(**dict(TORCH_XLA, device="tpu"), later=False)
    guess = history.expect(other, two, calibration)
    assert guess.source == "default" and guess.seconds == estimate.DEFAULT_FIXED_S + 2 * estimate.DEFAULT_FUNCTION_S[
        "eager"]


def test_a_case_an_earlier_run_took_longer_over_is_expected_to_stop_at_the_cells_timeout(tmp_path):
    """matrix.toml stops the TPU model's cases at 300 s; the reference runs of its cells were made with the study's
    900 s, which torch.linalg.matrix_rank's large case ran into. A cell of the shorter timeout is expected with each
    case that took longer stopped at its own timeout: the reference's wall less what those cases took beyond it."""
    from runner import matrix
    timeout_s = matrix.load(ROOT / "matrix.toml").settings("torch-xla-cpu", "torch", "xla-cpu", "current").timeout_s
    assert timeout_s == 300.0
    results, records = xla_reference(tmp_path)
    header = next(r for r in records if r["record"] == "header")
    cases = [r for r in records if r["record"] == "case"]
    took = [c["duration_s"] or (header["timeout_s"] if c["category"] == "timeout" else 0.0) for c in cases]
    beyond = sum(max(0.0, t - timeout_s) for t in took)
    assert beyond >= header["timeout_s"] - timeout_s  # at least the case killed at the study's timeout
    calibration = statistics.median(c["calibration_s"] for c in cases if c.get("calibration_s"))
    history = estimate.History(results)
    functions = sorted({c["function"] for c in cases})

    def wall(**timeout) -> float:
        return history.expect(estimate.setup(**TORCH_XLA, later=False, **timeout), functions, calibration).seconds

    assert wall(timeout_s=timeout_s) == pytest.approx(wall() - beyond)
    assert wall(timeout_s=header["timeout_s"]) == pytest.approx(wall())  # the reference's own timeout: its wall
    # The functions with no case that long are expected as before.
    quick = sorted({c["function"] for c, t in zip(cases, took) if t <= 60.0} -
                   {c["function"] for c, t in zip(cases, took) if t > 60.0})
    assert history.expect(estimate.setup(**TORCH_XLA, later=False, timeout_s=60.0), quick, calibration) == \
        history.expect(estimate.setup(**TORCH_XLA, later=False), quick, calibration)


def test_a_repeat_still_running_or_killed_is_no_history_and_no_error(tmp_path):
    """results/ holds the files of a run in progress (or killed): a header and cases, no footer. The dry run beside
    it reads them as no repeat at all (it raised a TypeError on them)."""
    results, records = xla_reference(tmp_path)
    running = results / "now" / "torch-xla-cpu-current-r1.jsonl"
    running.parent.mkdir()
    running.write_text("".join(json.dumps(r) + "\n" for r in records if r["record"] != "footer"))
    history = estimate.History(results, tmp_path / "estimates.json")
    assert history.host == [] and len(history.reference) == 1
    got = history.expect(estimate.setup(**TORCH_XLA, later=False), None, None)
    assert got.source == "reference"


def test_the_summary_cache_forgets_a_file_that_is_gone_and_keeps_the_others(tmp_path):
    """The cache of repeats' summaries serves every checkout of the host: an entry for a file deleted since (a
    results folder removed, the archive's old .tar.gz name) is dropped when the cache is next written, and an entry
    whose file exists stays, whichever results folder read it."""
    results, _ = xla_reference(tmp_path)
    cache = tmp_path / "estimates.json"
    estimate.History(results, cache)
    elsewhere = tmp_path / "other-checkout.jsonl"
    elsewhere.write_text("")
    files = json.loads(cache.read_text())["files"]
    kept = dict(files)
    files.update({str(tmp_path / "gone" / "records.tar.gz"): {"stamp": [1, 1.0], "summaries": []},
                  str(elsewhere): {"stamp": [0, 0.0], "summaries": []}})
    cache.write_text(json.dumps({"version": estimate.SUMMARY_VERSION, "files": files}))
    history = estimate.History(results, cache)
    assert len(history.reference) == 1
    assert set(json.loads(cache.read_text())["files"]) == set(kept) | {str(elsewhere)}


def test_a_quick_runs_expected_total_ends_at_its_budget():
    """A quick run stops at its budget (--quick-budget-s), so the dry run expects it to end by then: each lane's
    repeats after it expected at nothing, as the harness cuts their cases short."""
    for lanes in ("1", "2"):
        whole = runner_cli("matrix", "--dry-run", "--compiler", "eager", "--quick", "--quick-budget-s", "0",
                           "--lanes", lanes)
        capped = runner_cli("matrix", "--dry-run", "--compiler", "eager", "--quick", "--quick-budget-s", "90",
                            "--lanes", lanes)
        assert whole.returncode == 0 and capped.returncode == 0, whole.stderr + capped.stderr
        assert _wall_s(capped.stdout) <= 90 < _wall_s(whole.stdout), capped.stdout + whole.stdout
        # Side by side, each lane spends the budget: the repeats' total may pass it, the run's wall may not
        assert ("longest lane" in capped.stdout) == (lanes == "2"), capped.stdout


def _wall_s(printed: str) -> int:
    """The dry run's expected wall in seconds: "expected in all: about 1 h 05 min | 12 min | 40 s ...", or with
    lanes side by side the longest lane's, "in 2 lanes side by side, about ..."."""
    printed = " ".join(printed.split())  # the caption is folded to the terminal's width
    found = re.findall(r"(?:expected in all:|lanes side by side,) about (?:(\d+) h )?(?:(\d+) min)?(?:(\d+) s)?",
                       printed)
    hours, minutes, seconds = found[-1]
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds or 0)


@pytest.mark.slow
def test_this_hosts_earlier_repeats_come_first_each_cold_or_cached_as_it_ran(venv_for, tmp_path):
    from portability_harness.records import store

    venv_for("jax-cpu")
    results = tmp_path / "results"
    proc = runner_cli("bench", "--image", "jax-cpu", "--backend", "local", "--quick", "--repeats", "2", "--functions",
                      "jax.numpy.add", "--functions", "jax.lax.erf", "--out", str(results / "run"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    xla_reference(tmp_path)  # beside them, which this host's own runs outrank
    history = estimate.History(results, tmp_path / "estimates.json")
    jax = dict(image="jax-cpu", profile="current", framework="jax", device="cpu", compiler="eager", mode="steady",
               quick=True, task="cases")
    for repeat, later in ((1, False), (2, True)):  # the first repeat cold, the second served by its caches
        contents = store.read(str(results / "run" / f"jax-cpu-current-r{repeat}.jsonl"))
        wall = contents.footer["supervisor_ended_at"] - contents.footer["supervisor_started_at"]
        both = history.expect(estimate.setup(**jax, later=later, standby=later), ["jax.numpy.add", "jax.lax.erf"],
                              None)
        assert both.source == "this host" and both.seconds == pytest.approx(wall)
        add = sum(c["duration_s"] for c in contents.cases if c["function"] == "jax.numpy.add")
        erf = sum(c["duration_s"] for c in contents.cases if c["function"] == "jax.lax.erf")
        one = history.expect(estimate.setup(**jax, later=later, standby=later), ["jax.numpy.add"], None)
        assert one.seconds == pytest.approx(wall - erf) and add > 0
    # The first repeat's worker started up in its wall, the second's on standby while the first ran: the same
    # repeat started on standby is expected without that start-up.
    first = store.read(str(results / "run" / "jax-cpu-current-r1.jsonl")).footer
    second = store.read(str(results / "run" / "jax-cpu-current-r2.jsonl")).footer
    assert not first["workers"][0].get("standby") and second["workers"][0]["standby"]
    startup = first["workers"][0]["running"] - first["workers"][0]["spawned"]
    wall = first["supervisor_ended_at"] - first["supervisor_started_at"]
    on_standby = history.expect(estimate.setup(**jax, later=False, standby=True), ["jax.numpy.add", "jax.lax.erf"], None)
    assert startup > 0 and on_standby.seconds == pytest.approx(wall - startup)


def test_the_dry_run_prints_each_cells_expected_wall_and_the_total():
    proc = runner_cli("matrix", "--dry-run", "--compiler", "eager", "--functions", "jax.numpy.a*")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any("expected" in l for l in lines[:6]), proc.stdout  # the column
    (jax,) = [l for l in lines if l.startswith("│ jax-cpu ")]
    assert jax.split("│")[8].strip().endswith(("s", "min")), jax
    assert "expected in all: about" in proc.stdout and "repeats (" in proc.stdout


@pytest.mark.slow
def test_the_device_checks_dry_run_needs_only_the_standard_library(venv_for, tmp_path):
    # The check runs in an interpreter without the runner's host dependencies (-I: no user site, no PYTHONPATH),
    # and measures another (a JAX venv).
    python = shutil.which("python3")
    if subprocess.run([python, "-I", "-c", "import pandas"], capture_output=True).returncode == 0:
        pytest.skip("this python3 has pandas: it cannot show that the dry run does without")
    measured = venv_for("jax-cpu").python
    # A budget all three steps fit in: a steady JAX repeat on 2 cores, its backward cases included, is expected at
    # 8 min or more (results/reference/matrix-cpu-2026-11-27), which with the others passes the default 840 s.
    proc = subprocess.run([python, "-I", str(ROOT / "scripts" / "device_check.py"), "--python", measured, "--dry-run",
                           "--steps", "quick,steady,declared", "--budget-s", "7200", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    (plan,) = [l for l in proc.stdout.splitlines() if l.startswith("plan: ")]
    # Some step from the reference runs' records through runner.estimate ("reference"), the others from the
    # planner's own step walls where no record matches.
    assert "reference" in plan.split("(expected walls: ")[1].rstrip(")").split(", "), proc.stdout
    (lane,) = [l for l in proc.stdout.splitlines() if l.startswith("  lane 1: ")]
    steps = [re.sub(r" \d+-\d+ s.*", "", s) for s in lane[len("  lane 1: "):].split("; ")]
    assert steps == ["jax-cpu quick", "jax-cpu steady", "jax-cpu declared"], proc.stdout
    assert not (tmp_path / "out").exists(), "a dry run wrote results"


H100 = ROOT / "results" / "reference" / "h100-2026-11-27" / ARCHIVE
H200_CENSUS = ROOT / "results" / "reference" / "h200-2026-11-28" / ARCHIVE


def _h100_records(tmp_path):
    """A results folder whose only reference run is the H100's of 2026-11-27 (cut short by its budget), and its
    records per file."""
    (tmp_path / "results" / "reference" / "h100").mkdir(parents=True)
    shutil.copy(H100, tmp_path / "results" / "reference" / "h100" / ARCHIVE)
    with tarfile.open(H100) as tar:
        files = {m.name.rsplit("/", 1)[-1]: [json.loads(l) for l in tar.extractfile(m).read().splitlines()]
                 for m in tar if m.name.endswith(".jsonl")}
    return tmp_path / "results", files


def _fixed_and_functions(records):
    """A file's wall less its cases (its worker's start-up included), and each function's time with its cut cases
    taken at its run cases' mean."""
    footer = records[-1]
    cases = [r for r in records if r["record"] == "case"]
    ran = [c for c in cases if c["outcome"] != "interrupted"]
    fixed = footer["supervisor_ended_at"] - footer["supervisor_started_at"] - sum(c["duration_s"] for c in ran)
    whole = {}
    for name in {c["function"] for c in ran}:
        took = [c["duration_s"] for c in ran if c["function"] == name]
        whole[name] = statistics.mean(took) * sum(c["function"] == name for c in cases)
    return fixed, whole


def test_a_run_cut_short_by_its_budget_predicts_its_cut_cases_from_those_that_ran(tmp_path):
    """The H100's JAX cell stopped at its budget with 267 cases not run: a function's cases not run are expected to
    take what its cases that ran took each, not nothing."""
    results, files = _h100_records(tmp_path)
    records = files["jax-cuda-existing.jsonl"]
    fixed, whole = _fixed_and_functions(records)
    cases = [r for r in records if r["record"] == "case"]
    part = sorted({c["function"] for c in cases if c["outcome"] == "interrupted"} & set(whole))[:5]
    assert len(part) == 5
    want = estimate.setup("jax-cuda", "existing", "jax", "cuda", "eager", "steady", False, "cases", later=False)
    got = estimate.History(results, tmp_path / "estimates.json").expect(want, part, None)
    assert got.source == "reference"
    assert got.seconds == pytest.approx(fixed + sum(whole[f] for f in part), rel=1e-6)
    ran = sum(c["duration_s"] for c in cases if c["function"] in part and c["outcome"] != "interrupted")
    assert got.seconds > fixed + ran  # what the cut cases add


def test_a_census_cut_short_by_its_budget_is_expected_whole(tmp_path):
    """The H200's torch census of 2026-11-28 ran 478 of its 6059 op x dtype cases before the budget: the whole census
    is expected with the ops it never reached at the run's mean case, not at the 134 s the run lasted."""
    (tmp_path / "results" / "reference" / "h200").mkdir(parents=True)
    shutil.copy(H200_CENSUS, tmp_path / "results" / "reference" / "h200" / ARCHIVE)
    with tarfile.open(H200_CENSUS) as tar:
        (member,) = [m for m in tar if m.name.endswith("torch-cuda-existing-census.jsonl")]
        records = [json.loads(l) for l in tar.extractfile(member).read().splitlines()]
    fixed, whole = _fixed_and_functions(records)
    cases = [r for r in records if r["record"] == "case"]
    ran = [c for c in cases if c["outcome"] != "interrupted"]
    unrun = [c for c in cases if c["function"] not in whole]
    assert len(cases) > 10 * len(ran) and len(unrun) > len(cases) / 3
    want = estimate.setup("torch-cuda", "existing", "torch", "cuda", "eager", "steady", True, "census", later=False)
    got = estimate.History(tmp_path / "results", tmp_path / "estimates.json").expect(want, None, None)
    mean = statistics.mean(c["duration_s"] for c in ran)
    assert got.source == "reference"
    assert got.seconds == pytest.approx(fixed + sum(whole.values()) + len(unrun) * mean, rel=1e-6)
    footer = records[-1]
    assert got.seconds > 5 * (footer["supervisor_ended_at"] - footer["supervisor_started_at"])


def test_the_parts_of_one_step_each_predict_the_others_functions(tmp_path):
    """torch.compile's cases ran as two parts (compiled a and b, each with some functions): a selection holding a
    function of each is expected from both parts' times, not one part's and the other's median."""
    results, files = _h100_records(tmp_path)
    parts = [_fixed_and_functions(files[f"torch-cuda-existing-compiled-{p}.jsonl"]) for p in "ab"]
    only_a = sorted(set(parts[0][1]) - set(parts[1][1]))[0]
    only_b = sorted(set(parts[1][1]) - set(parts[0][1]))[0]
    want = estimate.setup("torch-cuda", "existing", "torch", "cuda", "compiled", "steady", False, "cases",
                          later=False)
    got = estimate.History(results, tmp_path / "estimates.json").expect(want, [only_a, only_b], None)
    both = parts[0][1][only_a] + parts[1][1][only_b]
    assert got.seconds == pytest.approx(statistics.median(fixed + both for fixed, _ in parts))



MATRIX = ROOT / "results" / "reference" / "matrix-cpu-2026-11-27" / ARCHIVE


@pytest.mark.parametrize("framework", ["jax", "torch"])
def test_a_cold_repeat_is_expected_from_a_cold_one_and_a_cached_repeat_from_a_cached_one(framework, tmp_path):
    """A compiled CPU cell's later repeats reuse the compilers' caches its first one filled: the reference run of
    2026-11-27 keeps a cold repeat and a cached one of each, and each predicts its own kind (not the median of the
    two, as when the reference matched without the cache's state)."""
    from portability_harness import compile_caches

    (tmp_path / "results" / "reference" / "cpu").mkdir(parents=True)
    shutil.copy(MATRIX, tmp_path / "results" / "reference" / "cpu" / ARCHIVE)
    with tarfile.open(MATRIX) as tar:
        repeats = [[json.loads(l) for l in tar.extractfile(f"{framework}-cpu-current-compiled-r{r}.jsonl")
                    .read().splitlines()] for r in (1, 2)]
    assert [r[0]["compile_caches"] for r in repeats] == [compile_caches.FILLED, compile_caches.REUSED]
    # Each repeat's own wall (both workers started on standby, while the repeat before them ran)
    assert all(r[-1]["workers"][0].get("standby") for r in repeats)
    walls = [r[-1]["supervisor_ended_at"] - r[-1]["supervisor_started_at"] for r in repeats]
    functions = sorted({c["function"] for c in repeats[0] if c["record"] == "case"})
    history = estimate.History(tmp_path / "results", tmp_path / "estimates.json")
    for later, want in zip((False, True), walls):
        setup = estimate.setup(f"{framework}-cpu", "current", framework, "cpu", "compiled", "steady", False,
                               "cases", later=later, standby=True)
        got = history.expect(setup, functions, None)
        assert got.source == "reference" and got.seconds == pytest.approx(want, rel=1e-6), (later, got, walls)
    assert walls[1] < 0.9 * walls[0], walls  # the cached repeat is the quicker: the kinds are told apart
    # A repeat that starts up in its own time (a lane beside lane 0 starts none ahead) adds its worker's start-up:
    # importing and collecting, not the time a standby worker then waited for the repeat before it to end.
    startups = [r[-1]["workers"][0]["collected"] - r[-1]["workers"][0]["spawned"] for r in repeats]
    waited = [r[-1]["workers"][0]["running"] - r[-1]["workers"][0]["collected"] for r in repeats]
    assert all(w > s for w, s in zip(waited, startups)), (waited, startups)
    for later, want in zip((False, True), walls):
        setup = estimate.setup(f"{framework}-cpu", "current", framework, "cpu", "compiled", "steady", False,
                               "cases", later=later, standby=False)
        got = history.expect(setup, functions, None).seconds
        assert got == pytest.approx(want + startups[later], rel=1e-6), (later, got, want, startups)
