"""Backward cases with the real frameworks on this CPU: a gradient that is wrong while the forward is right fails
backward, at its check, with its distance from the CPU's float64 gradient recorded (eager, and compiled for JAX); a
gradient wrong in float64 too fails the CPU's finite-difference check; a function that is not differentiable has no
backward cases and the catalogue in the results says why; sparse cases of a sampled PyTorch function run, forward and
backward, and are marked sparse."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CURATED, ROOT, cases_of, config, harness, runner_cli
from portability_harness.records import store

pytestmark = pytest.mark.slow

CASES = ROOT / "tests" / "backward_cases"
IMAGES = {"torch": "torch-cpu", "jax": "jax-cpu", "tensorflow": "tf-cpu"}


def wrong_gradient_module(tmp_path: Path, framework: str) -> Path:
    """A curated folder with the test module beside the project's own helpers of its framework (_support.py and
    _gradients.py), which its check uses."""
    folder = tmp_path / "curated" / framework
    folder.mkdir(parents=True)
    for name in ("_support.py", "_gradients.py"):
        shutil.copy(CURATED / framework / name, folder)
    shutil.copy(CASES / framework / "test_wrong_gradient.py", folder)
    return folder.parent


def run(venv_for, out: Path, framework: str, curated: Path, compiler: str = "eager", functions: tuple = ()) -> list:
    code, events = harness(venv_for(IMAGES[framework]), config(out, framework, curated=curated, compiler=compiler,
                                                               quick=True, functions=list(functions)))
    assert code == 0, events
    return cases_of(out)


@pytest.mark.parametrize("framework, compiler", [("torch", "eager"), ("jax", "eager"), ("jax", "compiled"),
                                                 ("tensorflow", "eager")])
def test_a_wrong_gradient_fails_backward_with_its_divergence_while_the_forward_passes(venv_for, tmp_path, framework,
                                                                                       compiler):
    cases = {c["case_id"].split("::")[-1]: c
             for c in run(venv_for, tmp_path / "out.jsonl", framework, wrong_gradient_module(tmp_path, framework),
                          compiler)}
    forward, wrong = cases["test_forward"], cases["test_backward_off_in_float32"]
    assert (forward["pass"], forward["outcome"]) == ("forward", "passed")
    assert (wrong["pass"], wrong["outcome"], wrong["stage"], wrong["category"]) == \
        ("backward", "failed", "check", "precision"), wrong["message"]
    d = wrong["gradient_divergence"]  # a thousandth off: about 8000 units in the last place of float32
    assert 0.9e-3 < d["max_rel"] < 1.1e-3 and d["max_ulp"] > 1000, d
    assert wrong["cold_s"] > 0 and wrong["warm_samples_s"], "the backward call was timed before its check"
    assert wrong["output"] and wrong["output"][0]["shape"] == [32]  # a digest of the gradient
    if compiler == "compiled":  # the compiled backward is as wrong as the eager one: no divergence between them
        assert wrong["compile_s"] > 0 and wrong["divergence"]["max_rel"] < 1e-5, wrong["divergence"]
    else:
        assert wrong["divergence"] is None


def test_a_gradient_wrong_in_float64_too_fails_the_cpus_finite_differences(venv_for, tmp_path):
    cases = {c["case_id"].split("::")[-1]: c
             for c in run(venv_for, tmp_path / "out.jsonl", "torch", wrong_gradient_module(tmp_path, "torch"))}
    wrong = cases["test_backward_off_everywhere"]
    # The float64 reference is as wrong as the float32 gradient; gradcheck's finite differences are not.
    assert wrong["gradient_divergence"]["max_rel"] < 1e-6, wrong["gradient_divergence"]
    assert (wrong["outcome"], wrong["category"]) == ("failed", "precision")
    assert wrong["message"].startswith("GradcheckError: Jacobian mismatch"), wrong["message"]


def test_sparse_cases_are_marked_and_a_non_differentiable_function_has_no_backward_cases_and_says_why(venv_for,
                                                                                                     tmp_path):
    out = tmp_path / "torch.jsonl"
    cases = run(venv_for, out, "torch", CURATED, functions=("torch.sum", "torch.argsort"))
    catalog = store.read(str(out)).header["catalog"]
    argsort = [c for c in cases if c["function"] == "torch.argsort"]
    assert argsort and {c["pass"] for c in argsort} == {"forward"}
    assert catalog["torch.argsort"]["backward"] == "integer output (indices): not differentiable"
    assert "backward" not in catalog["torch.sum"]
    sparse = [c for c in cases if c["function"] == "torch.sum" and c["layout"] != "dense" and c["layout"] != "complex"]
    assert {(c["layout"], c["pass"], c["outcome"]) for c in sparse} == {
        (layout, kind, "passed") for layout in ("sparse_coo", "sparse_csr") for kind in ("forward", "backward")}
    for c in sparse:
        assert (c["layout"] in c["case_id"]) and c["warm_samples_s"], c["case_id"]
    backward = [c for c in cases if c["function"] == "torch.sum" and c["pass"] == "backward"]
    assert all(set(c["gradient_divergence"]) == {"max_abs", "max_rel", "max_ulp"} for c in backward)
    rows = {r["method"].split("::")[-1]: r for r in catalog["torch.sum"]["upstream"]}
    assert rows["test_as_sparse_gradcheck"]["layouts"] == ["sparse_coo", "sparse_csr"]
    assert rows["test_sum_meta"]["left_out"].startswith("the meta device")


def test_the_summary_and_the_report_set_backward_beside_forward(venv_for, tmp_path):
    """A function that runs forward and fails backward is a verdict of its own: in the run's summary, the report's grid
    and findings; its failing cases say their pass in the failure tables."""
    venv_for("torch-cpu")
    out, report = tmp_path / "run", tmp_path / "report"
    proc = runner_cli("bench", "--image", "torch-cpu", "--backend", "local", "--quick", "--curated",
                      str(wrong_gradient_module(tmp_path, "torch")), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1 pass; backward: 0 of 1 pass, 1 runs forward, fails backward" in (out / "summary.md").read_text()
    proc = runner_cli("report", str(out), "--out", str(report))
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (report / "report.md").read_text()
    grid = text.split("| framework | cpu |", 1)[1].split("\n\n", 1)[0]
    assert "pass: 1 of 1 functions pass<br>backward: 0 of 1 pass, 1 runs forward, fails backward" in grid
    assert "| runs forward, fails backward | 1 | torch.sin (torch cpu) |" in text
    failing = text.split("*torch on cpu: precision (2 cases)*", 1)[1].split("\n\n", 2)[1]
    assert failing.startswith("| function | case_id | pass |") and failing.count("| backward |") == 2
    coverage = text.split("## Upstream coverage", 1)[1].split("\n## ", 1)[0]
    assert "torch: 0 of 1 functions declare their upstream tests" in coverage
