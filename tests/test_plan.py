"""The plan resolves each cell once: a command-line option beats a matching [[override]], which beats [matrix],
which beats the defaults; and it says why a cell cannot run."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CURATED, ROOT
from portability_harness.protocol import DEFAULT_TIMEOUT_S

from runner import matrix
from runner.errors import UserError
from runner.matrix import DEFAULT_CELL_TIMEOUT_S
from runner.plan import Options, plan
from runner.project import Project

PROFILE = """
[profiles.p]
python = "3.11"
packages = { jax = "0.10.2", jaxlib = "0.10.2", torch = "2.13.0", pytest = "8.3.5" }
bases = { cpu = "python:{python}-slim" }
"""


def project(tmp_path: Path, text: str) -> Project:
    (tmp_path / "matrix.toml").write_text(text)
    return Project(ROOT, matrix.load(tmp_path / "matrix.toml"))


def cells(p: Project, **options) -> dict:
    return {c.key: c for c in plan(p, Options(backend="local", **options))}


def test_defaults_apply_when_nothing_is_said(tmp_path):
    c = cells(project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\n' + PROFILE))["jax-cpu/p"]
    assert (c.repeats, c.timeout_s, c.cell_timeout_s, c.mode, c.quick) == (1, DEFAULT_TIMEOUT_S,
                                                                           DEFAULT_CELL_TIMEOUT_S, "steady", False)
    assert c.functions == () and c.backend == "local" and c.base is None and c.runnable


def test_matrix_beats_defaults_override_beats_matrix_cli_beats_both(tmp_path):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax", "torch"]\nprofiles = ["p"]\nrepeats = 3\ntimeout = 60\n'
                'mode = "paper"\n' + PROFILE + '[[override]]\nimage = "torch-cpu"\nrepeats = 5\ntimeout = 30\n'
                'packages = { torch = "2.9.0" }\n')
    plain = cells(p)
    jax, torch = plain["jax-cpu/p/paper"], plain["torch-cpu/p/paper"]  # a cell's key names a mode other than steady
    assert (jax.repeats, jax.timeout_s, jax.mode) == (3, 60, "paper")
    assert (torch.repeats, torch.timeout_s) == (5, 30)
    assert torch.profile.packages["torch"] == "2.9.0"
    assert jax.profile.packages["torch"] == "2.13.0"  # the override touched only its cell
    told = cells(p, repeats=2, timeout_s=10.0, mode="steady", quick=True)
    for key in ("jax-cpu/p", "torch-cpu/p"):
        assert (told[key].repeats, told[key].timeout_s, told[key].mode, told[key].quick) == (2, 10.0, "steady", True)
    assert told["torch-cpu/p"].profile.packages["torch"] == "2.9.0"  # pins are matrix.toml's alone


def test_both_modes_make_two_cells_each_with_its_own_file(tmp_path):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\nmode = ["steady", "paper"]\n'
                'precision = 0.02\ncpus = "all"\n' + PROFILE)
    both = cells(p)
    assert set(both) == {"jax-cpu/p", "jax-cpu/p/paper"}
    assert both["jax-cpu/p"].precision == 0.02 and both["jax-cpu/p"].cpus == "all"
    from runner.rundir import RunDir

    rd = RunDir(tmp_path / "run")
    assert rd.results_file(both["jax-cpu/p"], 1).name == "jax-cpu-p.jsonl"
    assert rd.results_file(both["jax-cpu/p/paper"], 1).name == "jax-cpu-p-paper.jsonl"
    assert set(cells(p, mode="paper")) == {"jax-cpu/p/paper"}  # the command line picks one


def test_both_compilers_make_two_cells_and_the_command_line_picks_one(tmp_path):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax", "torch"]\nprofiles = ["p"]\ncompiler = ["eager", "compiled"]\n'
                'mode = ["steady", "paper"]\n' + PROFILE)
    both = cells(p)
    assert set(both) == {"jax-cpu/p", "jax-cpu/p/compiled", "jax-cpu/p/paper", "jax-cpu/p/paper/compiled",
                         "torch-cpu/p", "torch-cpu/p/compiled", "torch-cpu/p/paper", "torch-cpu/p/paper/compiled"}
    compiled = both["jax-cpu/p/compiled"]
    assert compiled.compiler == "compiled" and compiled.label == "jax-cpu (p, compiled)"
    assert compiled.config(tmp_path / "x.jsonl", CURATED, 1, "r", False, "venv", None).compiler == "compiled"
    from runner.rundir import RunDir

    rd = RunDir(tmp_path / "run")
    assert rd.results_file(compiled, 1).name == "jax-cpu-p-compiled.jsonl"
    assert rd.results_file(both["jax-cpu/p/paper/compiled"], 1).name == "jax-cpu-p-paper-compiled.jsonl"
    assert set(cells(p, compilers=("eager",), mode="steady")) == {"jax-cpu/p", "torch-cpu/p"}
    # Nothing said: eager only, the key and file name the cells had before the compiler axis.
    plain = cells(project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\n' + PROFILE))
    assert set(plain) == {"jax-cpu/p"} and plain["jax-cpu/p"].compiler == "eager"


def test_the_docker_base_comes_from_the_option_the_override_or_the_profile(tmp_path):
    text = '[matrix]\nframeworks = ["jax", "torch"]\nprofiles = ["p"]\n' + PROFILE
    p = project(tmp_path, text + '[[override]]\nimage = "torch-cpu"\nbase = "debian:{python}"\n')
    # Planning docker cells of CPU images asks no engine: the base is resolved from the inputs alone.
    docker = {c.key: c for c in plan(p, Options(backend="docker"))}
    assert docker["jax-cpu/p"].base == "python:3.11-slim" and docker["torch-cpu/p"].base == "debian:3.11"
    forced = {c.key: c for c in plan(p, Options(backend="docker", base="mine:1"))}
    assert {c.base for c in forced.values()} == {"mine:1"}
    assert cells(p)["jax-cpu/p"].base is None  # the local backend has no base image


def test_a_cell_says_why_it_cannot_run(tmp_path, no_devices):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax", "torch"]\ndevices = ["cpu", "cuda"]\nprofiles = ["p"]\n'
                + PROFILE + '[[exclude]]\nimage = "torch-cpu"\nreason = "not today"\n')
    c = cells(p, functions=("jax.numpy.add", "jax.nothing"))
    assert c["jax-cpu/p"].runnable and c["jax-cpu/p"].functions == ("jax.numpy.add",)
    assert c["torch-cpu/p"].initial_status == "excluded" and c["torch-cpu/p"].reason == "not today"
    assert c["jax-cuda/p"].initial_status == "not_run" and "no NVIDIA GPU" in c["jax-cuda/p"].reason
    c = cells(p, functions=("torch.add",))
    assert c["jax-cpu/p"].initial_status == "not_run"
    assert c["jax-cpu/p"].reason == "--functions selects no curated jax function"


def test_the_plan_reads_each_input_once_and_changes_nothing(tmp_path):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\n' + PROFILE)
    options = Options(backend="auto")
    first = plan(p, options)
    assert options.backend == "auto"  # the options are not rewritten
    assert plan(p, options) == first
    with pytest.raises(UserError, match="unknown profile 'q'"):
        plan(p, Options(profiles=("q",), backend="local"))


def test_a_cell_gives_the_harness_config_of_each_repeat(tmp_path):
    (c,) = plan(project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\ntimeout = 60\n' + PROFILE),
                Options(backend="local", functions=("jax.numpy.*",), quick=True))
    cfg = c.config(tmp_path / "x.jsonl", CURATED, repeat=2, run_id="r", resume=True,
                   environment="venv x", git_commit="abc")
    assert (cfg.framework, cfg.device, cfg.profile, cfg.image, cfg.repeat, cfg.timeout_s) == (
        "jax", "cpu", "p", "jax-cpu", 2, 60)
    assert cfg.functions == ["jax.numpy.*"] and cfg.quick and cfg.resume and cfg.git_commit == "abc"


def test_a_memory_share_is_of_the_machine_that_runs_the_cell_not_the_one_that_planned_it(tmp_path, monkeypatch):
    c = cells(project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\nmemory = 0.5\n' + PROFILE))["jax-cpu/p"]
    # The plan travels to a Ray node as it is; the node, with its own memory, turns the share into MiB.
    monkeypatch.setattr(matrix, "host_memory_bytes", lambda: 64 * 2 ** 30)
    assert c.memory_limit_mb == 32 * 1024
    monkeypatch.setattr(matrix, "host_memory_bytes", lambda: 8 * 2 ** 30)
    assert c.memory_limit_mb == 4 * 1024
    amount = cells(project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\nmemory = "3GiB"\n' + PROFILE))
    assert amount["jax-cpu/p"].memory_limit_mb == 3 * 1024


def test_an_overrides_compiler_excludes_the_others_with_the_reason_and_tpu_dtypes_resolve_once(tmp_path):
    p = project(tmp_path, '[matrix]\nframeworks = ["jax"]\nprofiles = ["p"]\ninclude = ["jax-xla-cpu"]\n'
                'compiler = ["eager", "compiled"]\ntpu_dtypes = "2023"\n' + PROFILE +
                '[[override]]\nimage = "jax-xla-cpu"\ncompiler = "eager"\ntpu_dtypes = "current"\n')
    both = cells(p)
    assert both["jax-xla-cpu/p"].runnable and both["jax-cpu/p/compiled"].runnable
    assert both["jax-xla-cpu/p/compiled"].excluded == "matrix.toml runs jax-xla-cpu eager only (its override's compiler)"
    assert both["jax-xla-cpu/p"].tpu_dtypes == "current" and both["jax-cpu/p"].tpu_dtypes == "2023"
    assert cells(p, tpu_dtypes="2023")["jax-xla-cpu/p"].tpu_dtypes == "2023"  # the command line beats both
    assert both["jax-xla-cpu/p"].config(tmp_path / "o.jsonl", CURATED, 1, "r", False, "", None).tpu_dtypes == "current"


@pytest.mark.parametrize("text, problem", [
    ('[matrix]\ntpu_dtypes = "2024"\n', "unknown tpu_dtypes '2024' in [matrix]"),
    ('[[override]]\nimage = "jax-cpu"\ncompiler = "jit"\n', "unknown compiler 'jit' in [[override]]")])
def test_a_wrong_tpu_dtypes_or_override_compiler_is_one_line_with_its_line(tmp_path, text, problem):
    with pytest.raises(UserError, match=r"matrix.toml line \d+: " + re.escape(problem)):
        project(tmp_path, text + PROFILE)
