"""The failure classifier on real failure messages: the study's 583 failures on its GPUs and TPUs, labelled by
hand (tests/data/), and exceptions raised for real here."""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

from portability_harness import declared, host_cpu
from portability_harness.classify import (Annotation, annotated, classify, describe, exception_chain,
                                          load_annotations)
from portability_harness.records.schema import first_line

MESSAGES = Path(__file__).resolve().parent / "data" / "study-failure-messages.jsonl"
CPUINFO = Path(__file__).resolve().parent / "data" / "cpuinfo"  # real /proc/cpuinfo captures
TABLES = Path(__file__).resolve().parents[1] / "runner" / "report" / "data" / "declared"
# The study's pins (2023): the tables of the versions its messages came from (JAX: the nearest 0.4.x with a
# jaxlib on PyPI).
STUDY_TABLES = {"tensorflow": "tensorflow-2.11.0", "torch": "torch-1.12.0", "jax": "jax-0.4.13"}
STUDY_DEVICE = {"gpu": "cuda", "gpu-soft-placement": "cuda", "tpu": "tpu"}

# What the report needs of the classifier, stated as rates on failures like the study's: its findings group failed
# functions by cause, so at least nine in ten failures must land in their cause (AGREEMENT), and each cause must
# be found in at least four of five of its failures (RECALL), or a cause's row would miss a fifth of its
# functions. The 583 messages are a sample of such failures, so a test passes when the sample shows the rate with
# 95 % confidence: the rate's one-sided lower bound (Clopper-Pearson) must reach the target. A cause with too few
# messages to show its floor even with every one found (n/n gives a bound of 0.05**(1/n): 14 messages reach 0.8;
# memory and other have 7 each) is counted in the agreement only.
AGREEMENT, RECALL, CONFIDENCE = 0.90, 0.80, 0.95
# Blaming a framework's failure on the case hides a portability failure from the report: at most one in a hundred.
WRONGLY_OURS = 0.01


def _lower_bound(found: int, total: int) -> float:
    return binomtest(found, total).proportion_ci(confidence_level=2 * CONFIDENCE - 1, method="exact").low


def _chain_from_study(row: dict) -> tuple[list, bool]:
    """The exception chain and where it was raised, as far as the study's message and excerpt tell."""
    match = re.match(r"^([\w.]+?)(?:: |$)(.*)", row["message"], re.S)
    chain = [(match.group(1).split(".")[-1], match.group(2))] if match else [("Exception", row["message"])]
    context = " ".join(l[1:].strip() for l in row["excerpt"].splitlines() if l.startswith("E "))
    if context:
        chain.insert(0, ("Context", context))
    raised_at = re.findall(r"^(\S+\.py):\d+: \w+", row["excerpt"], re.M)
    in_case = bool(raised_at) and "test" in raised_at[-1].rsplit("/", 1)[-1]
    return chain, in_case


def _expected(row: dict) -> str:
    return "case_error" if row["label"] == "harness" else row["label"]


def _check_against_the_labels(rows: list[dict], got: list[str]) -> None:
    """Agreement and each checkable label's recall against their floors; a failure lists every label's count and
    its misclassified messages."""
    misfiled, totals = defaultdict(list), Counter(_expected(r) for r in rows)
    for row, answer in zip(rows, got):
        if answer != _expected(row):
            misfiled[_expected(row)].append(f"    as {answer}: {row['framework']} {row['device']} "
                                            f"{row['nodeid']}: {row['message'][:160]!r}")
    agree = len(rows) - sum(map(len, misfiled.values()))
    found = {label: total - len(misfiled[label]) for label, total in totals.items()}
    detail = "\n".join([f"{agree} of {len(rows)} agree"] + [
        line for label in sorted(totals)
        for line in [f"  {label}: {found[label]} of {totals[label]} found", *misfiled[label]]])
    assert _lower_bound(agree, len(rows)) >= AGREEMENT, detail
    checkable = [label for label, total in totals.items() if _lower_bound(total, total) >= RECALL]
    assert {"not_implemented", "case_error", "precision"} <= set(checkable), detail  # the data holds what it did
    for label in checkable:
        assert _lower_bound(found[label], totals[label]) >= RECALL, f"{label}'s recall is below the floor\n{detail}"
    framework_failures = [(r, g) for r, g in zip(rows, got) if _expected(r) != "case_error"]
    ours = sum(g == "case_error" for _, g in framework_failures)
    assert ours <= WRONGLY_OURS * len(framework_failures), f"{ours} framework failures blamed on the case\n{detail}"


@pytest.fixture(scope="module")
def study() -> list[dict]:
    rows = [json.loads(l) for l in MESSAGES.read_text().splitlines() if l.strip()]
    assert len(rows) == 583, f"{MESSAGES} holds {len(rows)} messages, the study's 583 expected"
    return rows


def test_the_messages_alone_find_every_label_but_type(study):
    """Without the declared-support tables, only `type` cannot be told (the next tests): every other label is
    found from the message and where it was raised."""
    rows = [r for r in study if r["label"] != "type"]
    _check_against_the_labels(rows, [classify(*_chain_from_study(r)) for r in rows])


def test_with_declared_tables_the_study_labels_are_found(study):
    """The study's failures on its GPUs and TPUs, classified with the tables of the framework versions it
    ran: the device kind comes from the study's device, the op and dtype from the messages (the study
    records no function or case dtypes)."""
    tables = {fw: declared.load(str(TABLES / f"{name}.json.gz")) for fw, name in STUDY_TABLES.items()}
    got = []
    for row in study:
        chain, in_case = _chain_from_study(row)
        got.append(classify(chain, in_case, table=tables[row["framework"]], device=STUDY_DEVICE[row["device"]]))
    _check_against_the_labels(study, got)


def test_the_study_labels_need_the_tables(study):
    """Without the tables the messages alone cannot find `type`: TensorFlow's placement error reads the
    same whether the op lacks the device or only the dtype."""
    found = sum(1 for row in study if row["label"] == "type"
                and classify(*_chain_from_study(row), device=STUDY_DEVICE[row["device"]]) == "type")
    assert found / sum(1 for row in study if row["label"] == "type") < 0.5


@pytest.mark.parametrize("message, category", [
    ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'", "type"),
    ("TypeError: Value passed to parameter 'x' has DataType bfloat16 not in list of allowed values: float32", "type"),
    ("NotImplementedError: Could not run 'aten::_pin_memory' with arguments from the 'XLA' backend.", "not_implemented"),
    ("tensorflow.python.framework.errors_impl.NotFoundError: No registered 'Sort' OpKernel for 'GPU' devices", "not_implemented"),
    ("jaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: Eigendecomposition is only implemented on the CPU backend", "not_implemented"),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB", "memory"),
    ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate", "memory"),
    ("AssertionError: Tensor-likes are not close! Mismatched elements: 3 / 2500 (0.1%)", "precision"),
])
def test_categories_of_known_framework_messages(message, category):
    type_name, _, text = message.partition(": ")
    assert classify([(type_name.rsplit(".", 1)[-1], text)]) == category


def test_a_plain_assert_on_layout_or_shape_is_not_precision():
    """Only a check on values is precision. A case's plain assert on a layout (torch_xla's tensors have no strides:
    a view is not contiguous where the CPU's is) or a shape, and a compiler's own stride guard (torch.compile's
    inductor on an H100, results/reference/h100-2026-11-26), are wrong results of another kind."""
    x = np.arange(6).reshape(2, 3)
    with pytest.raises(AssertionError) as info:
        assert x.T.flags["C_CONTIGUOUS"]
    assert classify(exception_chain(info.value)) == "other"
    with pytest.raises(AssertionError) as info:
        assert x.shape == (3, 2)
    assert classify(exception_chain(info.value)) == "other"
    assert classify([("AssertionError", "expected size 50==50, stride 30==60 at dim=1")]) == "other"
    assert classify([("AssertionError", "")]) == "other"  # a library's bare internal assert


def test_real_numpy_tolerance_failure_is_precision():
    with pytest.raises(AssertionError) as info:
        np.testing.assert_allclose(np.float32([1.0, 2.0]), np.float32([1.0, 2.1]), rtol=1e-6)
    assert classify(exception_chain(info.value)) == "precision"


def test_a_numpy_tolerance_failure_keeps_its_figures_in_the_record():
    """numpy.testing's message opens with a blank line and ends with both arrays: the record's one line (first_line)
    had kept "AssertionError:" alone, the reason for a verdict lost; it keeps the tolerance and the mismatch."""
    with pytest.raises(AssertionError) as info:
        np.testing.assert_allclose(np.float32([1.0, 2.0, 3.0]), np.float32([1.0, 2.1, 3.0]), rtol=1e-3, atol=1e-3)
    line = first_line(describe(exception_chain(info.value)))
    assert line.startswith("AssertionError: Not equal to tolerance rtol=0.001, atol=0.001; Mismatched elements: 1 / 3")
    assert "Max absolute difference" in line and "ACTUAL" not in line and "array(" not in line
    with pytest.raises(AssertionError) as info:
        np.testing.assert_array_equal(np.zeros(2), np.zeros(3))
    assert first_line(describe(exception_chain(info.value))) == \
        "AssertionError: Arrays are not equal; (shapes (2,), (3,) mismatch)"
    assert describe([("ValueError", "first\nsecond")]) == "ValueError: first\nsecond"  # others as raised


def test_the_whole_chain_is_read():
    try:
        try:
            raise NotImplementedError("no kernel for this device")
        except NotImplementedError as inner:
            raise RuntimeError("while running the op") from inner
    except RuntimeError as outer:
        chain = exception_chain(outer)
    assert [t for t, _ in chain] == ["RuntimeError", "NotImplementedError"]
    assert classify(chain) == "not_implemented"


def test_our_own_mistakes_are_case_errors():
    try:
        undefined_name  # noqa: F821
    except NameError as e:
        assert classify(exception_chain(e)) == "case_error"
    assert classify([("TypeError", "f() takes 1 positional argument but 2 were given")], raised_in_case=True) == "case_error"
    # the same TypeError raised inside the framework is the framework's
    assert classify([("TypeError", "f() takes 1 positional argument but 2 were given")]) == "other"
    assert classify([("ModuleNotFoundError", "No module named 'hypothesis'")], framework_modules=("torch",)) == "case_error"
    assert classify([("ModuleNotFoundError", "No module named 'torch._C._foo'")], framework_modules=("torch",)) == "not_implemented"


def test_annotations_override_per_case_and_device():
    notes = [Annotation(case="torch/test_x.py::test_y[*]", category="type", reason="why", devices=["tpu"])]
    assert annotated(notes, "torch/test_x.py::test_y[bfloat16]", "tpu").reason == "why"
    assert annotated(notes, "torch/test_x.py::test_y[bfloat16]", "cpu") is None
    assert annotated(notes, "torch/test_x.py::test_z", "tpu") is None


def test_annotations_can_hold_for_some_framework_versions_only():
    notes = [Annotation(case="torch/test_x.py::test_y", category="type", reason="old", versions=["1.12"])]
    assert annotated(notes, "torch/test_x.py::test_y", "cpu", "1.12.0+cu102").reason == "old"
    assert annotated(notes, "torch/test_x.py::test_y", "cpu", "1.12") is not None
    assert annotated(notes, "torch/test_x.py::test_y", "cpu", "1.120.0") is None
    assert annotated(notes, "torch/test_x.py::test_y", "cpu", "2.13.0+cpu") is None


def test_annotations_can_hold_only_on_cpus_without_an_extension():
    # The CPUs' extensions as their real /proc/cpuinfo give them: an AMD EPYC (no AVX-512), and an Intel Xeon with
    # AVX-512 and AMX, on which TensorFlow's bfloat16 convolutions run on oneDNN instead of Eigen.
    amd = host_cpu.parse((CPUINFO / "amd-epyc-2-core-2026-12-02.txt").read_text())["features"]
    intel = host_cpu.parse((CPUINFO / "intel-xeon-2-core-2026-12-02.txt").read_text())["features"]
    assert "avx512f" not in amd and "avx2" in amd and {"avx512f", "avx512_bf16", "amx_bf16"} <= set(intel)
    notes = [Annotation(case="tensorflow/test_x.py::test_y[bfloat16]", category="precision", reason="Eigen's",
                        devices=["cpu"], cpu_without=["avx512f", "avx_ne_convert"])]
    case = "tensorflow/test_x.py::test_y[bfloat16]"
    assert annotated(notes, case, "cpu", "2.21.0", amd).reason == "Eigen's"
    assert annotated(notes, case, "cpu", "2.21.0", intel) is None  # the same failure there is not explained
    assert annotated(notes, case, "cpu", "2.21.0", ["avx2", "avx_ne_convert"]) is None
    assert annotated(notes, case, "cpu", "2.21.0") is not None  # extensions unknown: the entry holds
    assert annotated(notes, case, "gpu", "2.21.0", amd) is None


def test_an_annotation_naming_an_extension_the_identity_does_not_record_is_refused(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([{"case": "tensorflow/test_x.py::*", "category": "precision", "reason": "r",
                                 "cpu_without": ["avx512"]}]))  # AVX-512's flag is avx512f
    with pytest.raises(ValueError, match=r"cpu_without names avx512,.*avx512f"):
        load_annotations(str(path))
