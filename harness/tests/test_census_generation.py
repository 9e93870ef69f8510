"""The census's framework-free parts: case ids, selection, the manifest a supervisor reads for a lost case, the
sample loop's counting, and the config and supervisor wiring of task "census". The per-framework modules
(census/torch.py, jax.py, tensorflow.py) run against the real frameworks in tests/test_census.py.
"""
from __future__ import annotations

import json

import pytest

from portability_harness import census, lost_cases, run_order
from portability_harness.census import Case, Options, Rejected, Sample, Unchecked
from portability_harness.protocol import Config, ConfigError
from portability_harness.supervisor import Supervisor


def case(op="add", variant="", dtype="float32", cpu=True, cuda=True, tpu=None, rules=()):
    return Case("torch", op, variant, dtype, {"cpu": cpu, "cuda": cuda, "tpu": tpu}, list(rules), function=op)


def test_ids_are_names_only_and_parse_back():
    assert census.case_id("torch", "div", "floor_rounding", "float32") == "census/torch/div:floor_rounding/float32"
    assert census.case_id("jax", "add", "", "bfloat16") == "census/jax/add/bfloat16"
    assert census.parse_id("census/torch/nn.functional.conv2d/float64") == {
        "framework": "torch", "op": "nn.functional.conv2d", "variant": "", "dtype": "float64"}
    assert census.parse_id("census/torch/div:trunc_rounding/int8")["variant"] == "trunc_rounding"
    assert census.parse_id("torch/test_add.py::test_add[float32]") is None
    # The same name gives the same seed in any process (no hash randomisation).
    assert census.seed_of("census/torch/add/float32") == census.seed_of("census/torch/add/float32") < 2 ** 31


def test_selection_keeps_declared_pairs_and_undeclared_on_request():
    cases = [case("sub", dtype="int8", cpu=False), case("add", dtype="float64"), case("add", dtype="bool"),
             case("mul", dtype="float32", tpu=False)]
    chosen = [c.id for c in census.selected(cases, "cpu", Options())]
    assert sorted(chosen) == ["census/torch/add/bool", "census/torch/add/float64", "census/torch/mul/float32"]
    assert len(census.selected(cases, "cpu", Options(undeclared=True))) == 4
    assert [c.op for c in census.selected(cases, "cpu", Options(ops=["a*"], dtypes=["bool"]))] == ["add"]
    # xla-cpu reads the tpu column; None (the database cannot say) runs
    assert sorted(c.op for c in census.selected(cases, "xla-cpu", Options())) == ["add", "add", "sub"]


def test_one_ops_dtypes_are_spread_over_the_run():
    # An op that aborts the worker in every dtype: its cases must not come one after another, so that the
    # supervisor's spare worker has time to start up between two aborts.
    dtypes = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "bool"]
    cases = [case(op, dtype=d) for op in ("abs", "add", "mul", "neg", "sub", "unbatch") for d in dtypes]
    ops = [c.op for c in run_order.spread(census.selected(cases, "cpu", Options()), lambda c: c.id)]
    runs = sum(1 for a, b in zip(ops, ops[1:]) if a == b)
    assert runs < 20, ops  # op by op gives 7 per op, 42 in all; a random order about 7
    div = case("div", variant="floor_rounding")
    assert Options(ops=["div.floor*"]).wants_op("div", "floor_rounding") and Options(ops=["div"]).wants_op("div", "x")
    assert census.selected([div], "cpu", Options(ops=["mul"])) == []


def test_the_manifest_gives_a_lost_case_its_fields(tmp_path):
    out = str(tmp_path / "torch-cpu-current-census.jsonl")
    c = case(rules=[{"what": "skip", "reason": "flaky", "test": "TestCommon.test_numpy_ref", "stages": ["check"]}])
    census.write_manifest(out, [c])
    assert not list(tmp_path.glob("*.tmp")), "the manifest is written whole, by a rename"
    assert census.manifest_fields(out, c.id) == {"op": "add", "variant": "", "dtype": "float32",
                                                 "declared": {"cpu": True, "cuda": True, "tpu": None},
                                                 "db_rules": c.fields()["db_rules"]}
    # A case the manifest does not hold (or no manifest): what its id says.
    assert census.manifest_fields(out, "census/torch/mul:x/int8") == {"op": "mul", "variant": "x", "dtype": "int8"}
    assert census.manifest_fields(str(tmp_path / "none.jsonl"), "torch/test_x.py::test_y") == {}


class Bench:
    """The shape of the plugin's bench fixture: calls fn once, remembers it timed that call."""

    def __init__(self):
        self.calls = 0

    def __call__(self, fn, *args, **kwargs):
        self.calls += 1
        return fn(*args, **kwargs)


def sample(index, result=None, error=None, check_error=None, skip=None):
    def run(bench):
        if error is not None:
            raise error
        return bench(lambda: result) if bench is not None else result

    def check(out):
        if check_error is not None:
            raise check_error

    return Sample(index=index, run=run, check=check, skip=skip)


def test_the_sample_loop_times_the_first_sample_that_runs_and_counts_the_rest():
    synced = []
    bench = Bench()
    samples = [sample(0, error=Rejected("bad shape")), sample(1, result=1), sample(2, error=RuntimeError("boom\nmore")),
               sample(3, result=3, check_error=AssertionError("Tensor-likes are not close!")),
               sample(4, result=4, check_error=Unchecked("no reference")), sample(5, skip="crashes")]
    tally, first, failed = census.run_samples(samples, bench, synced.append, "numpy")
    assert bench.calls == 1 and tally.timed == 1  # sample 0 was refused, so sample 1 was the timed one
    assert synced == [3, 4]  # the untimed samples that returned were synced (2 raised before)
    assert (tally.samples, tally.run, tally.failed, tally.rejected, tally.unchecked, tally.skipped) == (6, 4, 2, 1, 1, 1)
    assert isinstance(first, RuntimeError) and failed.index == 2
    assert tally.first_failure == {"sample": 2, "stage": "call", "message": "RuntimeError: boom"}
    fields = tally.fields()
    assert fields["samples_failed"] == 2 and fields["reference"] == "numpy" and fields["timed_sample"] == 1


def test_a_check_that_differs_is_a_failure_at_the_check_stage_and_a_ruling_covers_its_stage():
    tally, first, _ = census.run_samples([sample(0, result=0, check_error=AssertionError("differs"))], Bench(),
                                         lambda out: None, "cpu")
    assert tally.failed == 1 and tally.first_failure["stage"] == "check" and isinstance(first, AssertionError)
    rules = [{"what": "skip", "reason": "noncontiguous", "test": "TestCommon.test_noncontiguous_samples",
              "stages": ["call"]},
             {"what": "expected_failure", "reason": "", "test": "TestCommon.test_numpy_ref", "stages": ["check"]}]
    assert census.ruling(rules, "check") is rules[1]
    assert census.ruling(rules[:1], "check") is None
    assert "expected_failure (TestCommon.test_numpy_ref)" in census.rule_text(rules[1])


def test_no_sample_ran_when_every_input_was_refused():
    tally, first, _ = census.run_samples([sample(0, error=Rejected("x")), sample(1, error=Rejected("y"))], Bench(),
                                         lambda out: None, "launch")
    assert first is None and tally.run == 0 and tally.rejected == 2 and tally.first_rejection == "x"
    assert tally.timed is None


def test_config_takes_the_census_task_and_options():
    cfg = Config.from_dict({"framework": "jax", "device": "cpu", "out": "x.jsonl", "curated_root": ".",
                            "task": "census", "census_ops": ["add*"], "census_dtypes": ["float32"],
                            "census_undeclared": True})
    assert cfg.task == "census" and cfg.census_ops == ["add*"] and cfg.census_undeclared
    with pytest.raises(ConfigError, match="unknown task 'censu'"):
        Config.from_dict({"framework": "jax", "device": "cpu", "out": "x", "curated_root": ".", "task": "censu"})


def test_a_census_supervisor_collects_the_census_module_and_fills_lost_records(tmp_path):
    out = tmp_path / "jax-cpu-current-census.jsonl"
    cfg = Config(framework="jax", device="cpu", out=str(out), curated_root=str(tmp_path), task="census")
    config = tmp_path / "c.json"
    cfg.write(str(config))
    sup = Supervisor(cfg, str(config), lambda e: None)
    command = sup.worker_command()
    assert command[-1].endswith("portability_harness/census/cases.py")
    c = Case("jax", "cumsum", "", "int8", {"cpu": True, "cuda": False, "tpu": True}, [], function="cumsum")
    census.write_manifest(str(out), [c])
    module, fields = lost_cases.describer(cfg, {})(c.id)
    assert module == "census/jax/cumsum"
    assert fields["declared"] == {"cpu": True, "cuda": False, "tpu": True}
    # A cases run has no census fields and keeps its module from the node id; a backward case's pass comes from
    # the worker's plan.
    plain = Config(framework="jax", device="cpu", out=str(out), curated_root=str(tmp_path))
    case_id = "jax/test_add.py::test_add_backward[x]"
    describe = lost_cases.describer(plain, {case_id: {"pass": "backward", "layout": "dense"}})
    assert describe(c.id)[1] == {}
    assert describe(case_id) == ("jax/test_add.py", {"pass": "backward", "layout": "dense"})
    assert json.loads((tmp_path / "jax-cpu-current-census.census.json").read_text())[c.id]["function"] == "cumsum"


def test_the_time_after_the_timed_sample_is_split_between_the_other_calls_and_the_checks():
    import time

    def slow(index, call_s=0.0, check_s=0.0):
        def run(bench):
            if bench is not None:
                return bench(lambda: index)
            time.sleep(call_s)
            return index
        return Sample(index=index, run=run, check=lambda out: time.sleep(check_s))

    tally, _, _ = census.run_samples([slow(0, check_s=0.05), slow(1, call_s=0.1, check_s=0.05)], Bench(),
                                     lambda out: None, "cpu")
    fields = tally.fields()
    assert fields["samples_calls_s"] >= 0.1 and fields["samples_checks_s"] >= 0.1  # both checks, one untimed call
    alone, _, _ = census.run_samples([slow(0)], Bench(), lambda out: None, "cpu")
    assert alone.fields()["samples_calls_s"] == 0.0  # the timed sample's call is the measurement's, not counted here
