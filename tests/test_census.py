"""`runner census` for real: small censuses (a few ops, --quick) of PyTorch, JAX and TensorFlow on this machine's
CPU, through the real venvs, supervisor, worker and plugin; a kill -9 of the runner mid-census then --resume; and
the report's census section, kept apart from the study's tables, rendered in headless Chromium.

What the frameworks' databases hold decides the case lists, so the assertions are about what must hold for any
version (ids, one outcome per declared pair, samples counted, the database's declarations as data) plus a few
facts of the ops chosen on purpose: a plain op with a NumPy reference, a variant, an op that mutates its input,
a random op, a CUDA-only op on the CPU, a stateful TensorFlow op the generator cannot feed.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import matplotlib.image
import pytest
from conftest import cases_of, finished, headless, one_line_error, start_runner, wait_for, working_in
from portability_harness import census as harness_census
from portability_harness.records import store

from runner import census
from runner.report import load

pytestmark = pytest.mark.slow

OPS = {  # framework: the --ops of its small census
    "torch": ("add", "div", "resize_", "bernoulli", "jiterator_unary", "nn.functional.relu", "nn.functional.prelu",
              "nn.functional.mish"),
    "jax": ("add", "cumsum", "random_gamma", "sort"),
    "tensorflow": ("AddV2", "MatMul", "Conv2D", "Cholesky", "Assert", "QueueDequeueV2", "Cast", "Angle", "ReadFile"),
}
IMAGES = {"torch": "torch-cpu", "jax": "jax-cpu", "tensorflow": "tf-cpu"}


def census_args(framework: str, out: Path, *more: str) -> list[str]:
    ops = [a for op in OPS[framework] for a in ("--ops", op)]
    return ["census", "--framework", framework, "--backend", "local", "--quick", "--timeout", "120", *ops,
            "--out", str(out), *more]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, venv_for) -> dict[str, Path]:
    """One small census per framework, each in its own folder."""
    base = tmp_path_factory.mktemp("census")
    folders = {}
    for framework in OPS:
        venv_for(IMAGES[framework])
        out = base / framework
        proc = finished(start_runner(*census_args(framework, out)))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Traceback" not in proc.stderr
        assert f"census of {framework}" in proc.stdout  # the census table, not the per-function one
        folders[framework] = out
    return folders


def contents(runs: dict[str, Path], framework: str) -> store.Contents:
    (path,) = runs[framework].glob("*.jsonl")
    assert path.name == f"{IMAGES[framework]}-current-census.jsonl"
    return store.read(str(path))


def by_id(c: store.Contents) -> dict[str, dict]:
    return {r["case_id"]: r for r in c.cases}


@pytest.mark.parametrize("framework", list(OPS))
def test_a_census_gives_every_declared_pair_one_outcome_with_its_samples(runs, framework):
    c = contents(runs, framework)
    header = c.header
    assert header["task"] == "census" and header["catalog"] == {}
    assert header["database"]["name"] == harness_census.DATABASES[framework]["name"]
    assert header["database"]["version"] == header["framework_version"]
    assert header["database"]["census"]["ops"] == list(OPS[framework])
    ids = [r["case_id"] for r in c.cases]
    assert len(ids) == len(set(ids)) and not c.problems() and c.footer is not None
    # The manifest lists what was selected: each of those exactly once, nothing else.
    manifest = json.loads((runs[framework] / f"{IMAGES[framework]}-current-census.census.json").read_text())
    assert set(manifest) == set(ids)
    for r in c.cases:
        parsed = harness_census.parse_id(r["case_id"])
        assert parsed and (parsed["op"], parsed["variant"], parsed["dtype"]) == (r["op"], r["variant"], r["dtype"])
        assert r["outcome"] in ("passed", "failed", "skipped"), r
        assert r["declared"]["cpu"] is True  # without --undeclared only declared pairs run
        assert r["samples_run"] + r["samples_rejected"] + r["samples_skipped"] <= r["samples"]
        if r["outcome"] == "passed":
            assert r["samples_run"] > 0 and r["samples_failed"] == 0 and r["timed_sample"] is not None
            assert r["warm_count"] >= 1 and r["warm_median_s"] > 0  # the timed sample went through bench
        if r["outcome"] == "failed":
            assert r["samples_failed"] >= 1 and r["first_failure"]["message"] and r["category"]
            assert r["category"] != "case_error", r  # never our harness's fault
        if r["outcome"] == "skipped":
            assert r["category_source"] in harness_census.SOURCES, r
    assert {r["op"] for r in c.cases} <= set(OPS[framework])


def test_torch_checks_against_the_opinfo_reference_and_keeps_its_declarations_as_data(runs):
    cases = by_id(contents(runs, "torch"))
    add = cases["census/torch/add/float64"]
    assert add["outcome"] == "passed" and add["reference"] == "numpy" and add["samples_run"] >= 5
    assert cases["census/torch/add/float32"]["reference"] == "numpy"  # a BinaryUfuncInfo: every dtype
    # Variants are cases of their own; the case id carries the variant.
    assert {"census/torch/div:floor_rounding/float32", "census/torch/div:trunc_rounding/float32",
            "census/torch/div:no_rounding_mode/float32"} <= set(cases)
    # A random op has no reference: it runs unchecked.
    assert cases["census/torch/bernoulli/float32"]["reference"] == "none"
    assert cases["census/torch/bernoulli/float32"]["outcome"] == "passed"
    # An op that mutates its input runs (its timed call gets fresh inputs each time).
    assert cases["census/torch/resize_/float32"]["outcome"] == "passed"
    # jiterator ops list CPU dtypes but the database runs them on CUDA only: a failure it expects, with why.
    jit = cases["census/torch/jiterator_unary/float32"]
    assert jit["outcome"] == "failed" and jit["category_source"] == "db" and "onlyCUDA" in jit["db_ruling"]
    assert any(rule["what"] == "only cuda" for rule in jit["db_rules"])
    # Samples whose keywords are their own (add's alpha, prelu's weight tensor) keep them against the reference;
    # a tolerance the database widens for its ufunc (mish in float16) widens the check.
    assert cases["census/torch/add/int64"]["outcome"] == "passed"
    for case in ("nn.functional.prelu/float32", "nn.functional.mish/float16"):
        assert cases[f"census/torch/{case}"]["outcome"] == "passed", cases[f"census/torch/{case}"]["first_failure"]


def test_jax_runs_the_primitive_harnesses_with_x64_and_lax_references(runs):
    c = contents(runs, "jax")
    assert c.header["database"]["jax_enable_x64"] is True
    cases = by_id(c)
    add = cases["census/jax/add/float64"]
    assert add["outcome"] == "passed" and add["reference"] == "numpy" and add["compiled"] is False  # eager: jit off
    assert cases["census/jax/cumsum/float32"]["reference"] == "none"  # lax's tests pair no reference with it
    assert cases["census/jax/random_gamma/float32"]["samples_run"] >= 1


def test_tensorflow_launches_kernels_and_never_counts_the_generators_limits(runs):
    cases = by_id(contents(runs, "tensorflow"))
    add = cases["census/tensorflow/AddV2/float32"]
    assert add["outcome"] == "passed" and add["reference"] == "launch" and add["samples_run"] >= 1
    assert cases["census/tensorflow/MatMul/float32"]["outcome"] == "passed"
    # A stateful op: the generator builds no queue, so no input; recorded as such, not as a failure.
    stateful = [r for i, r in cases.items() if r["op"] == "QueueDequeueV2"]
    assert stateful and all(r["outcome"] == "skipped" and r["category_source"] == "generator"
                            and "stateful" in r["message"] for r in stateful)
    # Cholesky refuses most generated matrices, but the identity recipe launches it.
    assert cases["census/tensorflow/Cholesky/float32"]["outcome"] == "passed"
    assert cases["census/tensorflow/Cholesky/float32"]["samples_rejected"] >= 1
    # Angle's complex128 kernel returns float64 while Tout defaults to float32: the other choice launches it.
    assert cases["census/tensorflow/Angle/complex128"]["outcome"] == "passed"
    # ReadFile needs a file the generator never writes: the generator's limit, not a failure.
    read = cases["census/tensorflow/ReadFile/untyped"]
    assert read["outcome"] == "skipped" and read["category_source"] == "generator", read


def test_cases_that_abort_the_worker_are_each_recorded_once_and_a_spare_worker_takes_over(venv_for, tmp_path):
    # TensorFlow's Unbatch aborts the process (a CHECK failure) on the generator's inputs, in every dtype: the
    # first abort costs a fresh worker; after it a spare, already started, takes over at each abort.
    venv_for("tf-cpu")
    out = tmp_path / "run"
    dtypes = ("float32", "float64", "int32")
    proc = finished(start_runner("census", "--framework", "tensorflow", "--backend", "local", "--quick", "--ops",
                                 "Unbatch", "--ops", "ZerosLike", *[a for d in dtypes for a in ("--dtypes", d)],
                                 "--out", str(out)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    c = store.read(str(out / "tf-cpu-current-census.jsonl"))
    ids = [r["case_id"] for r in c.cases]
    assert len(ids) == len(set(ids)) and not c.problems()
    crashed = [r for r in c.cases if r["op"] == "Unbatch"]
    assert sorted(r["dtype"] for r in crashed) == sorted(dtypes)
    assert all(r["category"] == "crash" and "SIGABRT" in r["message"] and r["category_source"] == "supervisor"
               and r["declared"]["cpu"] is True for r in crashed), crashed
    # The cases after the aborts ran in a spare worker and passed.
    assert [r["outcome"] for r in c.cases if r["op"] == "ZerosLike"] == ["passed"] * len(dtypes)
    assert c.footer["worker_restarts"] == len(dtypes) and c.footer["spares_taken"] == len(dtypes) - 1
    # No worker is left behind: neither the last one nor an unused spare.
    assert subprocess.run(["pgrep", "-f", str(out)], capture_output=True).returncode == 1


def test_undeclared_dtypes_run_on_request_and_say_so(venv_for, tmp_path):
    venv_for("tf-cpu")
    out = tmp_path / "run"
    proc = finished(start_runner("census", "--framework", "tensorflow", "--backend", "local", "--quick", "--ops",
                                 "Cholesky", "--undeclared", "--out", str(out)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = cases_of(out / "tf-cpu-current-census.jsonl")
    undeclared = [r for r in records if r["declared"]["cpu"] is False]
    declared = [r for r in records if r["declared"]["cpu"] is True]
    assert declared and undeclared  # e.g. Cholesky's op definition allows half, its CPU kernels do not
    assert all(census.status(r, "cpu").startswith(("undeclared", "no input")) for r in undeclared)


def test_bad_census_options_are_one_line(tmp_path):
    one_line_error(finished(start_runner("census", "--framework", "torch", "--dtypes", "float33", "--out",
                                         str(tmp_path / "a"))), "--dtypes float33", "float32")
    one_line_error(finished(start_runner("census", "--framework", "torch", "--image", "jax-cpu", "--out",
                                         str(tmp_path / "b"))), "jax-cpu is of jax")
    one_line_error(finished(start_runner("census", "--framework", "caffe", "--out", str(tmp_path / "c"))), "caffe")


def test_a_census_with_no_matching_op_says_so(venv_for, tmp_path):
    venv_for("jax-cpu")
    proc = finished(start_runner("census", "--framework", "jax", "--backend", "local", "--ops", "no_such_op*",
                                 "--out", str(tmp_path / "run")))
    one_line_error(proc, "selects no case")


def test_a_kill_9_mid_census_then_resume_records_each_case_once(venv_for, tmp_path):
    venv_for("torch-cpu")
    out = tmp_path / "run"
    results = out / "torch-cpu-current-census.jsonl"
    args = census_args("torch", out)
    first = start_runner(*args)
    wait_for(lambda: len(cases_of(results)) >= 20, "20 census records", 600, first)
    os.killpg(first.pid, signal.SIGKILL)  # the whole runner, mid-census
    first.wait()
    # The orphaned harness hears that the runner died, records the case in flight and exits. Its processes are
    # those working in the results folder (the backend starts the harness there): any other harness on this
    # machine, a parallel run's, is not this one.
    wait_for(lambda: not working_in(out), "the orphaned harness to end", 120)
    before = cases_of(results)
    again = finished(start_runner(*args, "--resume"))
    assert again.returncode == 0, again.stderr[-3000:]
    c = store.read(str(results))
    ids = [r["case_id"] for r in c.cases]
    manifest = json.loads((out / "torch-cpu-current-census.census.json").read_text())
    assert len(ids) == len(set(ids)) and set(ids) == set(manifest) and not c.problems()
    assert c.footer is not None and c.footer["counts"]["interrupted"] == 0
    kept = [r["case_id"] for r in before if r["outcome"] != "interrupted"]
    assert [i for i in ids if i in kept] == kept  # what was recorded before the kill stays, in place
    assert sum(r["record"] == "header" for r in c.records) == 1


# --- the report ------------------------------------------------------------------------------------------------

def test_the_report_keeps_census_records_apart_and_renders_its_section(runs, venv_for, tmp_path):
    venv_for("jax-cpu")
    bench = tmp_path / "bench"
    proc = finished(start_runner("bench", "--image", "jax-cpu", "--backend", "local", "--functions", "jax.numpy.add",
                                 "--quick", "--out", str(bench)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    folders = [bench, *runs.values()]
    r = load.load(folders)
    # The study's frame holds the bench's cases only; the census's are apart, every one of them.
    assert set(r.cases["file"].map(lambda f: Path(f).name)) == {"jax-cpu-current.jsonl"}
    assert len(r.census) == sum(len(contents(runs, fw).cases) for fw in runs)
    report_dir = tmp_path / "report"
    proc = finished(start_runner("report", *map(str, folders), "--out", str(report_dir)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    md = (report_dir / "report.md").read_text()
    assert "## Census: the frameworks' own test databases" in md
    # The Setups table counts the bench's records only (census records are not study records).
    setups = md.split("## Setups", 1)[1].split("##", 1)[0]
    assert "census" not in setups and "tensorflow" not in setups
    census_md = md.split("## Census", 1)[1]
    for fw in ("torch", "jax", "tensorflow"):
        assert f"{fw} on cpu: the support map" in census_md
    assert "jiterator_unary" in census_md and "xfail" in census_md  # the expected failure, in the map's table
    maps = sorted((report_dir / "figures").glob("census-map-*.png"))
    assert len(maps) == 3
    page = (report_dir / "report.html").as_uri()
    flags = headless(tmp_path / "profile")
    dom = subprocess.run([*flags, "--virtual-time-budget=10000", "--dump-dom", page], capture_output=True, text=True,
                         timeout=300).stdout
    figures = len(list((report_dir / "figures").glob("*.png")))
    assert f'data-figures="{figures}/{figures}"' in dom and 'id="census-the-frameworks-own-test-databases"' in dom
    # The section on screen: the census folders alone report Sources and the census, so it is near the top.
    alone = tmp_path / "alone"
    assert finished(start_runner("report", *map(str, runs.values()), "--out", str(alone))).returncode == 0
    shot = tmp_path / "census.png"
    subprocess.run([*flags, "--window-size=1300,3000", f"--screenshot={shot}", (alone / "report.html").as_uri()],
                   capture_output=True, timeout=300, check=True)
    shutil.copy(shot, os.environ.get("CENSUS_SCREENSHOT", tmp_path / "kept.png"))  # to look at by eye
    pixels = matplotlib.image.imread(shot)[..., :3]
    assert (pixels.max(axis=2) - pixels.min(axis=2) > 0.2).mean() > 0.002  # the map's colours are on screen


def test_a_census_only_folder_reports(runs, tmp_path):
    proc = finished(start_runner("report", str(runs["jax"]), "--out", str(tmp_path)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    md = (tmp_path / "report.md").read_text()
    assert re.findall(r"^## (.*)$", md, re.M) == ["Sources", "Census: the frameworks' own test databases"]


def _record(op: str, dtype: str, outcome: str, declared_cuda: bool = True, warm: float = 1e-3, timed: int = 0,
            **more) -> dict:
    return {"record": "case", "function": op, "module": f"census/torch/{op}", "case_id": f"census/torch/{op}/{dtype}",
            "params": {}, "outcome": outcome, "category": more.pop("category", None), "message": None,
            "op": op, "variant": "", "dtype": dtype, "declared": {"cpu": True, "cuda": declared_cuda, "tpu": None},
            "db_rules": [], "samples": 4, "samples_run": 4, "samples_failed": more.pop("failed", 0),
            "samples_rejected": 0, "samples_unchecked": 0, "samples_skipped": 0, "timed_sample": timed,
            "first_failure": None, "reference": "cpu", "warm_median_s": warm if outcome == "passed" else None,
            "warm_count": 3, **more}


def test_the_census_section_sets_two_devices_side_by_side(tmp_path):
    """Records as a CPU and a CUDA census write them (written here: this machine has no GPU) give the section's
    counts, the pairs whose status changed and the latency ratios of the same timed sample only."""
    def write(name: str, device: str, cases: list[dict]) -> None:
        header = {"record": "header", "schema": 3, "run_id": "r", "framework": "torch", "framework_version": "2.13.0",
                  "device": device, "device_model": device.upper(), "profile": "current", "mode": "steady",
                  "quick": False, "task": "census", "catalog": {},
                  "database": {"name": "OpInfo op_db", "module": "m", "version": "2.13.0", "census": {}}}
        lines = [header, *cases, {"record": "footer", "counts": {}}]
        (tmp_path / name).write_text("".join(json.dumps(x) + "\n" for x in lines))

    write("torch-cpu-current-census.jsonl", "cpu", [
        _record("add", "float32", "passed", warm=1e-3), _record("add", "float16", "passed", warm=2e-3),
        _record("mul", "float32", "passed", warm=1e-3, timed=0), _record("sub", "int8", "passed")])
    write("torch-cuda-current-census.jsonl", "cuda", [
        _record("add", "float32", "passed", warm=4e-3),  # 4x slower on cuda, same sample: counted
        _record("add", "float16", "failed", category="precision", failed=1),  # partial: 1 of 4 samples
        _record("mul", "float32", "passed", warm=1e-3, timed=1),  # another sample timed: not a ratio
        _record("sub", "int8", "passed", declared_cuda=False),  # passed though cuda does not declare it
        # killed its worker: the supervisor's record has the manifest's fields but no sample counts
        _record("div", "int8", "failed", category="crash", category_source="supervisor", samples_run=None,
                samples_failed=None, timed_sample=None, message="the worker died with SIGABRT")])
    from runner.report import census as section_module

    r = load.load([tmp_path])
    assert r.cases.empty and len(r.census) == 9
    section = section_module.section(r, tmp_path / "figures")
    tables = {b.caption.split(":")[0] if b.caption else "": b.frame for b in section.blocks if hasattr(b, "frame")}
    summary = next(b.frame for b in section.blocks if hasattr(b, "frame") and "declared, partial" in b.frame)
    cuda = summary[summary["target"] == "cuda"].iloc[0]
    assert (cuda["declared, passed"], cuda["declared, partial"], cuda["undeclared, passed"]) == (2, 1, 1)
    changed = next(b.frame for b in section.blocks if hasattr(b, "caption") and "what changed" in b.caption)
    # add float16 (passed -> partial), sub int8 (declared -> undeclared, passed), div int8 (cuda only: crashed)
    assert changed["pairs"].sum() == 3
    latency = next(b.frame for b in section.blocks if hasattr(b, "caption") and "Cross-device latency" in b.caption)
    row = latency.iloc[0]
    # add float32 (4x) and sub int8 (1x); mul was timed on different samples, add float16 failed on cuda
    assert row["pairs timed on both"] == 2 and row["median ratio b/a"] == pytest.approx(2.5)
    assert (row["slower on b %"], row["faster on b %"]) == (50.0, 0.0)
    assert tables  # every block built
    failing = next(b.frame for b in section.blocks if hasattr(b, "frame") and "first failure" in b.frame)
    crashed = failing[failing["op"] == "div"].iloc[0]
    assert crashed["samples failed"] == "-" and "SIGABRT" in crashed["first failure"] and crashed["why"] == ""
