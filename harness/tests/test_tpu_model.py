"""The TPU model's per-case forecast, its numerics error and a function's forecast over its cases (tpu_model.py)."""
from __future__ import annotations

import pytest

from portability_harness import tpu_model
from portability_harness.records.verdicts import verdict

MATMULS, TRANSCENDENTALS = ("MatMul", "dot_general"), ("Exp", "tanh")


def test_a_float32_matmul_carries_the_bfloat16_pass_error_and_names_the_op():
    error, causes = tpu_model.risk_error([("MatMul", "float32"), ("Add", "float32")], MATMULS, TRANSCENDENTALS)
    assert error == tpu_model.MATMUL_ERROR
    assert causes == ["MatMul (float32: one bfloat16 pass)"]


def test_the_larger_error_wins_and_float64_or_integer_ops_carry_none():
    error, causes = tpu_model.risk_error([("Exp", "float32"), ("dot_general", "complex64")], MATMULS, TRANSCENDENTALS)
    assert error == tpu_model.MATMUL_ERROR and len(causes) == 2
    assert tpu_model.risk_error([("MatMul", "float64"), ("Exp", "int32")], MATMULS, TRANSCENDENTALS) == (None, [])
    error, _ = tpu_model.risk_error([("tanh", "float32")], MATMULS, TRANSCENDENTALS)
    assert error == tpu_model.TRANSCENDENTAL_ERROR < tpu_model.MATMUL_ERROR


@pytest.mark.parametrize("outcome, category", [("skipped", None), ("missing_api", None), ("interrupted", None),
                                               ("failed", "case_error")])
def test_no_forecast_where_the_case_says_nothing_of_the_tpu(outcome, category):
    assert tpu_model.forecast(outcome, category, "m", [], None, []) is None


def test_an_op_the_tpu_lacks_fails_the_forecast_even_where_the_cpu_ran_it():
    f = tpu_model.forecast("passed", None, None, ["ComplexAbs (complex128): no complex128 on a TPU"], None,
                           [("ComplexAbs", "complex128"), ("ComplexAbs", "complex128")])
    assert f["verdict"] == "fails"
    assert "ComplexAbs (complex128)" in f["reason"]
    assert f["ops"] == [["ComplexAbs", "complex128"]]  # listed once


def test_a_failure_on_the_xla_device_is_the_forecast_with_its_stage_and_message():
    f = tpu_model.forecast("failed", "not_implemented", "no kernel for AsString on XLA_CPU", [], None, [],
                           stage="lower")
    assert f == {"verdict": "fails", "reason": "not_implemented at lower: no kernel for AsString on XLA_CPU",
                 "ops": []}


def test_numerics_risk_is_apart_from_pass_and_fail_and_fallback_runs_with_its_ops():
    risk = tpu_model.forecast("passed", None, None, [], "its check refuses ...", [("MatMul", "float32")])
    assert risk["verdict"] == "numerics_risk" and risk["reason"] == "its check refuses ..."
    fell = tpu_model.forecast("fallback", None, "ran off", [], None, [], fallback={"ops": ["aten::nonzero"]})
    assert fell["verdict"] == "runs" and "aten::nonzero" in fell["reason"]
    assert tpu_model.forecast("not_applicable", None, "a strided view", [], None, [])["verdict"] == "not_applicable"


def test_the_probe_turns_a_refusing_check_into_a_reason_and_says_nothing_when_the_call_did_not_run():
    def refuses():
        raise AssertionError("Tensor-likes are not close!")

    def void():
        raise tpu_model.ProbeVoid("the call raised")

    settled = []
    reason = tpu_model.probe(refuses, 2 ** -8, ["MatMul (float32: one bfloat16 pass)"], lambda e: str(e),
                             lambda: settled.append("refused"))
    assert "3.9e-03" in reason and "MatMul" in reason and "not close" in reason
    assert tpu_model.probe(lambda: None, 2 ** -8, [], str, lambda: settled.append("accepted")) is None
    assert tpu_model.probe(void, 2 ** -8, [], str, lambda: settled.append("void")) is None
    # What the probe left unrun is run after it whatever its check said, and its failing says nothing of the case.
    assert settled == ["refused", "accepted", "void"]

    def fails_to_sync():
        raise RuntimeError("Check failed: tensor_data")

    assert tpu_model.probe(lambda: None, 2 ** -8, [], str, fails_to_sync) is None


@pytest.mark.parametrize("verdicts, expected", [
    (["runs", "runs"], "runs"), (["runs", "numerics_risk"], "numerics_risk"), (["fails", "fails"], "fails"),
    (["runs", "fails", "not_applicable"], "partial"), (["not_applicable"], "not_applicable"),
    (["fails", "not_applicable"], "fails"), ([], "unknown")])
def test_a_functions_forecast_over_its_cases(verdicts, expected):
    assert tpu_model.function_forecast(verdicts) == expected


def test_not_applicable_cases_are_counted_apart_from_the_functions_verdict():
    assert verdict([{"outcome": "passed"}, {"outcome": "not_applicable"}]) == "pass"
    assert verdict([{"outcome": "failed"}, {"outcome": "not_applicable"}]) == "complete"
    assert verdict([{"outcome": "not_applicable"}, {"outcome": "not_applicable"}]) == "not_applicable"
