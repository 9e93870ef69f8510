"""Every curated module runs on the CPU in quick mode through the real harness, so CI catches a broken
case; and curated/ holds the study's sample with its usage facts, plus any functions of a user's own."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CURATED, ROOT, cases_of, config, harness_command, project_curated
from portability_harness.catalog import curated, usage_by_name

CSV = ROOT / "runner" / "report" / "data" / "paper2023-functions.csv"
IMAGES = {"torch": "torch-cpu", "tensorflow": "tf-cpu", "jax": "jax-cpu"}
MODULE = "import pytest\n\npytestmark = pytest.mark.function({})\n"  # a module's marker, with its arguments


def run_in_halves(env, framework: str, tmp_path: Path) -> list[dict]:
    """Every curated case of `framework`, quick, as two harness runs side by side, each on a CPU of its own where the
    host has two: half the modules each (alternately by name). The cases of both runs, each run's exit status
    asserted. JAX's 1,369 cases took 5 minutes on one CPU of the 2-core machine, and the suite leaves the other idle."""
    modules = sorted(f.module for f in curated(str(CURATED), framework))
    cpus = sorted(os.sched_getaffinity(0))
    runs = []
    for i in range(2):
        cfg = config(tmp_path / f"{framework}-{i}.jsonl", framework, quick=True, timeout_s=300,
                     cases=[str(CURATED / m) for m in modules[i::2]])
        events = (tmp_path / f"{framework}-{i}.events").open("w")  # a file, not a pipe that the other could fill
        runs.append((cfg, events, subprocess.Popen(
            harness_command(env, cfg, tmp_path), cwd=tmp_path, env=env.variables(), stdout=events,
            stderr=subprocess.STDOUT, preexec_fn=lambda cpu=cpus[i % len(cpus)]: os.sched_setaffinity(0, {cpu}))))
    cases = []
    try:
        for cfg, events, proc in runs:
            assert proc.wait(timeout=1800) == 0, Path(events.name).read_text()[-3000:]
            cases += cases_of(Path(cfg.out))
    finally:
        for _, events, proc in runs:
            if proc.poll() is None:  # the other run failed: this one is not left running (its worker dies with it)
                proc.kill()
                proc.wait()
            events.close()
    return cases


@pytest.mark.parametrize("framework", sorted(IMAGES))
def test_curated_cases_run_on_cpu(framework, venv_for, tmp_path):
    cases = run_in_halves(venv_for(IMAGES[framework]), framework, tmp_path)
    modules = {f.module for f in curated(str(CURATED), framework)}
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


def study_sample() -> dict[tuple[str, str], dict]:
    return {(r["framework"], r["function"]): r for r in csv.DictReader(CSV.open()) if r["status"] == "curate"}


def sample_problems(root: Path) -> list[str]:
    """What keeps the curated folder `root` from holding the study's sample with its usage facts. More functions
    are allowed (a user's own): they give no decile, top-20 flag or paper label, so the study's views stay the
    study's."""
    rows = study_sample()
    found = curated(str(root))
    problems = [f"{f.module}: {f.error}" for f in found if f.error]
    names = [(f.framework, f.name) for f in found]
    # One module a function: the header's catalog is keyed by name, so a second module would replace the first's
    # usage facts.
    twice = sorted({n for n in names if names.count(n) > 1})
    problems += [f"{name} is declared by more than one module" for name in twice]
    problems += [f"{fw}: {name} (sampled by the study) has no module" for fw, name in sorted(set(rows) - set(names))]
    for f in found:
        row = rows.get((f.framework, f.name))
        if row is None:
            if f.in_study or f.top20 or f.paper_label is not None:
                problems.append(f"{f.module}: {f.name} is not in the study's sample; its marker gives its name only")
            continue
        facts = (f.decile, f.top20, f.paper_label)
        wanted = (int(row["decile"]), row["top20"] == "yes", row["paper_label"] or None)
        if facts != wanted:
            problems.append(f"{f.module}: {f.name} is in the study's sample; its marker needs decile={wanted[0]}, "
                            f"top20={wanted[1]}, paper_label={wanted[2]!r} (has {facts})")
    return problems


def test_curated_holds_the_study_sample_with_its_usage_facts():
    assert sample_problems(CURATED) == []


def test_a_users_own_function_is_allowed_and_a_sampled_one_must_keep_its_decile(tmp_path):
    root = tmp_path / "curated"
    shutil.copytree(CURATED, root)
    # A function of one's own, named only: allowed.
    (root / "jax" / "test_softmax.py").write_text(MODULE.format('"jax.nn.softmax"'))
    assert sample_problems(root) == []
    # A sampled function whose decile was dropped (decile=None), an own function claiming a decile, a sampled
    # function without its module, and a module without its marker: each is named.
    add = root / "jax" / "test_add.py"
    add.write_text(add.read_text().replace('pytest.mark.function("jax.numpy.add", decile=100, top20=True)',
                                           'pytest.mark.function("jax.numpy.add", decile=None, top20=True)'))
    (root / "jax" / "test_relu.py").write_text(MODULE.format('"jax.nn.relu", 10'))
    (root / "torch" / "test_round.py").unlink()
    (root / "torch" / "test_no_marker.py").write_text("def test_x():\n    pass\n")
    problems = "\n".join(sample_problems(root))
    assert "jax/test_add.py: jax.numpy.add is in the study's sample; its marker needs decile=100" in problems
    assert "jax/test_relu.py: jax.nn.relu is not in the study's sample" in problems
    assert "torch: torch.round (sampled by the study) has no module" in problems
    assert "torch/test_no_marker.py: no function marker" in problems
    assert len(problems.splitlines()) == 4, problems


def test_the_tests_take_the_projects_own_modules_whatever_a_user_added(tmp_path):
    """A user's modules in curated/ (one for jax.nn.relu, the tests' own example; a second module for a sampled
    function; one that fails to import) are left out of the copy the tests check and run."""
    repo = tmp_path / "checkout"
    (repo / "curated" / "jax").mkdir(parents=True)
    (repo / "curated" / "annotations.json").write_text("{}\n")
    (repo / "curated" / "jax" / "test_add.py").write_text(MODULE.format('"jax.numpy.add", decile=100, top20=True'))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "add", "curated"], cwd=repo, check=True)
    users = {"test_relu.py": MODULE.format('"jax.nn.relu"'), "test_my_add.py": MODULE.format('"jax.numpy.add"'),
             "test_broken.py": "import no_such_module\n" + MODULE.format('"jax.nn.gelu"')}
    for name, text in users.items():
        (repo / "curated" / "jax" / name).write_text(text)
    copy = project_curated(repo, tmp_path / "copy")
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()) == \
        ["annotations.json", "jax/test_add.py"]
    assert {f.name for f in curated(str(repo / "curated"))} == {"jax.numpy.add", "jax.nn.relu", "jax.nn.gelu"}


def test_a_users_second_module_for_a_sampled_function_keeps_the_studys_usage_facts(tmp_path):
    for mine in ("test_a_add.py", "test_z_add.py"):  # sorted before and after the study's module
        root = tmp_path / mine / "curated"
        (root / "jax").mkdir(parents=True)
        (root / "jax" / "test_add.py").write_text(MODULE.format('"jax.numpy.add", decile=100, top20=True'))
        (root / "jax" / mine).write_text(MODULE.format('"jax.numpy.add"'))
        assert usage_by_name(curated(str(root), "jax")) == \
            {"jax.numpy.add": {"decile": 100, "top20": True, "paper_label": None}}, mine
