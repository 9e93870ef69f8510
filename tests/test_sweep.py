"""`runner sweep` over two real JAX releases from PyPI (0.10.2, the current profile's, and 0.11.2), a few functions:
killed mid-run, resumed, each case once, how each release was installed recorded, each release's declared
support read, and the report's "Over releases" section names the verdict that changed between them. Plus the
command's one-line errors and the release arithmetic, which need no environment."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import ROOT, cases_of, one_line_error, runner_cli, wait_for

from runner import releases

# trace_to_jaxpr_dynamic's case passes on 0.10.2 and fails on 0.11.2 (its jaxpr no longer holds the closed-over
# constant as its case expects); jax.numpy.add passes on both.
CHANGED, STEADY = "jax.interpreters.partial_eval.trace_to_jaxpr_dynamic", "jax.numpy.add"
SWEEP = ["sweep", "--framework", "jax", "--releases", "0.10.2,0.11.2", "--compiler", "eager", "--quick",
         "--functions", CHANGED, "--functions", STEADY]


def test_a_sweep_of_two_releases_resumes_after_a_kill_and_reports_what_changed(tmp_path):
    out = tmp_path / "sweep"
    first = subprocess.Popen([sys.executable, "-m", "runner.cli", *SWEEP, "--out", str(out)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
    # Two environments to build on a cold cache; then the second release's cases, and its declared support, leave
    # time to kill it between its first record and its end.
    wait_for(lambda: cases_of(out / "jax-cpu-jax-0.11.2.jsonl"), "the second release's first record", 1500, first)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    # The first release's declared support was read as its cells ended, before the second release began.
    assert [p.name for p in (out / "declared").glob("jax-*.json.gz")] == ["jax-0.10.2.json.gz"]

    again = runner_cli(*SWEEP, "--out", str(out), "--resume", timeout=1800)
    assert again.returncode == 0, again.stderr[-3000:]
    files = {f.name: f for f in out.glob("jax-cpu-*.jsonl")}
    assert sorted(files) == ["jax-cpu-jax-0.10.2.jsonl", "jax-cpu-jax-0.11.2.jsonl"]
    outcome = {}
    for name, path in files.items():
        header = json.loads(path.read_text().splitlines()[0])
        version = name[len("jax-cpu-jax-"):-len(".jsonl")]
        assert header["framework_version"] == version and header["profile"] == f"jax-{version}"
        cases = cases_of(path)
        ids = [c["case_id"] for c in cases]
        assert len(ids) == len(set(ids)) and {c["function"] for c in cases} == {CHANGED, STEADY}
        outcome[version] = {c["outcome"] for c in cases if c["function"] == CHANGED}
    assert outcome == {"0.10.2": {"passed"}, "0.11.2": {"passed", "failed"}}

    record = json.loads((out / "sweep.json").read_text())
    by_version = {r["version"]: r for r in record["releases"]}
    assert set(by_version) == {"0.10.2", "0.11.2"}
    assert by_version["0.11.2"]["packages"]["jaxlib"] == "0.11.2" and by_version["0.11.2"]["date"]
    assert sorted(p.name for p in (out / "declared").glob("jax-*.json.gz")) == ["jax-0.10.2.json.gz",
                                                                              "jax-0.11.2.json.gz"]

    # Resuming with one of the releases keeps the other's cells in the folder's merged record.
    subset = runner_cli(*[a if a != "0.10.2,0.11.2" else "0.11.2" for a in SWEEP], "--out", str(out), "--resume",
                        timeout=600)
    assert subset.returncode == 0, subset.stderr[-3000:]
    merged = json.loads((out / "merged.json").read_text())
    assert sorted(c["profile"] for c in merged["cells"]) == ["jax-0.10.2", "jax-0.11.2"]
    assert all(c["runs"] and c["status"] == "done" for c in merged["cells"])

    report = runner_cli("report", str(out), timeout=600)
    assert report.returncode == 0, report.stderr[-2000:]
    text = (out / "report.md").read_text()
    section = text.split("## Over releases", 1)[1].split("\n## ", 1)[0]
    assert "jax (0.10.2, 0.11.2): 1 function changed verdict, 1 regression" in section
    row = next(line for line in section.splitlines() if line.startswith("| cpu eager | " + CHANGED))
    assert [c.strip() for c in row.split("|")[3:7]] == ["pass", "partial", "0.10.2", "since 0.11.2"]
    assert "figures/pass-rate-over-releases-jax.png" in section


def test_sweep_errors_are_one_line(tmp_path):
    bare = tmp_path / "matrix.toml"  # no [sweep.jax] table: the releases must come from the command line
    bare.write_text((ROOT / "matrix.toml").read_text().split("[sweep.jax]")[0])
    one_line_error(runner_cli("sweep", "--framework", "mxnet", "--releases", "1.0"), "mxnet")
    one_line_error(runner_cli("sweep", "--framework", "jax", "--matrix", str(bare)), "--releases", "[sweep.jax]")
    one_line_error(runner_cli("sweep", "--framework", "jax", "--releases", "0.10.2", "--device", "fpga",
                              "--dry-run"), "fpga")
    one_line_error(runner_cli("sweep", "--framework", "jax", "--releases", "9.9.9", "--dry-run"), "9.9.9", "PyPI")


@pytest.mark.parametrize("n, expected", [(None, list("abcdefg")), (1, ["g"]), (2, ["a", "g"]),
                                         (3, ["a", "d", "g"]), (9, list("abcdefg"))])
def test_pick_spreads_releases_over_the_range_keeping_both_ends(n, expected):
    assert releases.pick(list("abcdefg"), n) == expected


def test_a_release_profile_is_named_for_its_version_and_read_back():
    assert releases.release_of_profile("jax-0.4.13", "jax") == "0.4.13"
    assert releases.release_of_profile("current", "jax") is None
    assert releases.release_of_profile("torch-xla-cpu", "torch") is None


def test_matrix_toml_sweep_table_gives_the_releases_and_a_bad_one_is_one_line(tmp_path):
    text = (ROOT / "matrix.toml").read_text().split("[sweep.jax]")[0]
    good = tmp_path / "good.toml"
    good.write_text(text + '[sweep.jax]\nreleases = "0.10.2,0.11.2"\n')
    proc = runner_cli("sweep", "--framework", "jax", "--matrix", str(good), "--compiler", "eager", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "jax: 2 releases, 2 cells" in proc.stdout and "0.10.2" in proc.stdout and "0.11.2" in proc.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(text + '[sweep.jax]\npick = 3\n')
    one_line_error(runner_cli("sweep", "--framework", "jax", "--matrix", str(bad), "--dry-run"), "releases")


def test_prune_deletes_swept_release_environments_only_and_not_one_in_use(tmp_path):
    cache = tmp_path / "venvs"
    names = ["jax-cpu-jax-0.4.13-0123456789ab", "jax-cpu-jax-0.4.1-0123456789ab", "jax-cpu-current-0123456789ab",
             "jax-cpu-paper2023-0123456789ab", "torch-cpu-torch-2.1.0-0123456789ab", "jax-cpu-jax-0.11.2-ba9876543210"]
    for name in names:
        (cache / name / "bin").mkdir(parents=True)
        (cache / name / ".runner-complete").write_text("")
        (cache / name / "bin" / "python").write_bytes(b"x" * 1000)
    import fcntl
    held = open(cache / "jax-cpu-jax-0.11.2-ba9876543210" / ".runner-in-use", "w")
    fcntl.flock(held, fcntl.LOCK_SH)  # a run still uses it
    env = dict(os.environ, PYTHONPATH=str(ROOT), RUNNER_VENV_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "sweep", "--framework", "jax", "--prune"], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=120)
    held.close()
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in cache.iterdir()) == ["jax-cpu-current-0123456789ab",
                                                       "jax-cpu-jax-0.11.2-ba9876543210",
                                                       "jax-cpu-paper2023-0123456789ab",
                                                       "torch-cpu-torch-2.1.0-0123456789ab"]
    assert "pruned 2 jax release environments" in proc.stdout and "in use, kept: jax-cpu-jax-0.11.2" in proc.stdout


def test_building_one_release_never_removes_another_whose_version_it_prefixes(tmp_path, monkeypatch, project):
    from runner.backends import local

    monkeypatch.setenv("RUNNER_VENV_DIR", str(tmp_path))
    profile = releases.resolve("jax", "0.4.1", project.matrix.profile("current"), [], resolve_pins=False).profile
    current = local.venv_path(project.image("jax-cpu"), profile)
    for name in (current.name, "jax-cpu-jax-0.4.1-0123456789ab", "jax-cpu-jax-0.4.13-0123456789ab"):
        (tmp_path / name).mkdir()
        (tmp_path / name / ".runner-complete").write_text("")
    local._remove_superseded(project.image("jax-cpu"), profile, current)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([current.name, "jax-cpu-jax-0.4.13-0123456789ab"])



def test_an_old_torch_release_gets_the_setuptools_of_its_day_for_its_test_internals():
    # torch 1.12's torch.utils.cpp_extension (imported by torch.testing's internals, which declared support reads)
    # does `from pkg_resources import packaging`, which setuptools 70 removed; torch 2.9's imports setuptools, which
    # a venv lacks unless the image installs it. The ceilings come from PyPI's release dates.
    from runner.project import Project
    project = Project.find(None, None)
    images = [project.image("torch-cpu")]
    assert "setuptools" in images[0].packages
    base = project.matrix.profile("current")
    old, new = (releases.resolve("torch", v, base, images) for v in ("1.12.0", "2.9.0"))
    assert old.profile.packages["setuptools"] == "setuptools<=62.6.0", old.notes
    assert new.profile.packages["setuptools"] == "setuptools<=80.9.0", new.notes
    assert any(line.startswith("setuptools<=62.6.0") for line in images[0].requirements(old.profile))


def test_torch_xla_follows_each_torch_release_line_only_where_a_swept_image_installs_it():
    # torch_xla is built against one torch line: torch 2.2.2 gets the 2.2 line's 2.2.0, torch 2.13 (no torch_xla of
    # its line on PyPI on 2026-11-27, the answers tests/conftest.py reads) cannot be installed in torch-xla-cpu, which
    # is then a cell listed with that reason. A sweep of torch-cpu alone pins no torch_xla, so its environments
    # (keyed by every pin) are those of before.
    from runner.project import Project
    project = Project.find(None, None)
    cpu, xla = project.image("torch-cpu"), project.image("torch-xla-cpu")
    base = project.matrix.profile("current")
    line, newer = (releases.resolve("torch", v, base, [cpu, xla]) for v in ("2.2.2", "2.13.0"))
    assert line.profile.packages["torch_xla"] == "2.2.0" and line.unavailable == (), line.notes
    assert "torch_xla==2.2.0" in xla.requirements(line.profile)
    assert "torch_xla" not in newer.profile.packages
    assert newer.unavailable == (("torch-xla-cpu", "no torch_xla release of the 2.13 line with a wheel for Python "
                                  "3.11 on PyPI"),)
    assert newer.record()["unavailable"] == {"torch-xla-cpu": newer.unavailable[0][1]}
    alone = releases.resolve("torch", "2.2.2", base, [cpu])
    assert "torch_xla" not in alone.profile.packages and alone.unavailable == ()
    assert cpu.input_hash(alone.profile) != cpu.input_hash(line.profile)  # why the follower is pinned only on demand
