"""The generated declared-support tables (runner/report/data/declared) against facts from the frameworks'
own source and documentation, and their coverage against plausible sizes."""
from __future__ import annotations

from pathlib import Path

import pytest

from portability_harness import declared

TABLES = Path(__file__).resolve().parents[1] / "runner" / "report" / "data" / "declared"
GENERATED = ["tensorflow-2.11.0", "tensorflow-2.21.0", "torch-1.12.0", "torch-2.13.0", "jax-0.4.13", "jax-0.4.23",
             "jax-0.10.2"]


def table(name: str) -> dict:
    return declared.load(str(TABLES / f"{name}.json.gz"))


@pytest.mark.parametrize("name", GENERATED)
def test_each_table_is_complete_and_names_its_framework(name):
    t = table(name)
    framework, version = name.split("-", 1)
    assert t["framework"] == framework and t["framework_version"].split("+")[0] == version
    assert set(t["devices"]) == {"cpu", "cuda", "tpu"}
    assert t["source"] and all(info["note"] for info in t["devices"].values())
    assert t["coverage"] == declared.coverage(t)  # the stored figures are those of the stored ops
    assert declared.table_path(str(TABLES), framework, t["framework_version"]) == str(TABLES / f"{name}.json.gz")


# Lower bounds well under what was read (docs/declared.md lists the figures): a reader that silently lost most of
# its source (a renamed registry, a database that failed to import) fails here.
@pytest.mark.parametrize("name, kind, ops, pairs", [
    ("tensorflow-2.11.0", "cpu", 1200, 10000), ("tensorflow-2.11.0", "cuda", 600, 4000), ("tensorflow-2.11.0", "tpu", 400, 4000),
    ("tensorflow-2.21.0", "cpu", 1200, 10000), ("tensorflow-2.21.0", "cuda", 600, 4000), ("tensorflow-2.21.0", "tpu", 400, 4000),
    ("torch-1.12.0", "cpu", 450, 3500), ("torch-1.12.0", "cuda", 450, 3500),
    ("torch-2.13.0", "cpu", 600, 5000), ("torch-2.13.0", "cuda", 600, 5000),
    ("jax-0.4.13", "cpu", 150, 200), ("jax-0.4.13", "tpu", 150, 200),
    ("jax-0.4.23", "cpu", 150, 800), ("jax-0.4.23", "tpu", 150, 800),
    ("jax-0.10.2", "cpu", 200, 800), ("jax-0.10.2", "cuda", 200, 800), ("jax-0.10.2", "tpu", 200, 800),
])
def test_coverage_is_plausible(name, kind, ops, pairs):
    cov = table(name)["coverage"][kind]
    assert cov["ops"] >= ops and cov["pairs"] >= pairs, cov


def test_torch_declares_nothing_for_tpu():
    for name in ("torch-1.12.0", "torch-2.13.0"):
        t = table(name)
        assert not t["devices"]["tpu"]["known"]
        assert declared.declared(t, "torch.add", "tpu", "float32") == "unknown"


# --- TensorFlow: kernel registrations in tensorflow/core/kernels ---------------------------------------------

def test_tensorflow_gpu_cast_has_no_string_output():
    # cast_op.cc registers GPU Cast kernels per (SrcT, DstT) pair of numeric types; the CPU kernel is one
    # registration without constraints (it rejects unsupported pairs when built), so the CPU admits string.
    t = table("tensorflow-2.21.0")
    assert "string" not in t["attrs"]["Cast"]["cuda"]["DstT"]
    assert "float32" in t["attrs"]["Cast"]["cuda"]["DstT"]
    assert "string" in t["attrs"]["Cast"]["cpu"]["DstT"]
    assert declared.ops_for(t, "tf.cast") == ["Cast"]


@pytest.mark.parametrize("version", ["2.11.0", "2.21.0"])
def test_tensorflow_cpu_only_ops(version):
    # draw_bounding_box_op.cc and the tf.data dataset kernels register CPU kernels only; neither has an
    # XLA lowering.
    t = table(f"tensorflow-{version}")
    for op in ("DrawBoundingBoxes", "TensorSliceDataset", "PyFuncStateless"):
        assert declared.declared(t, op, "cpu") == "declared", op
        assert declared.declared(t, op, "cuda") == "op_not_declared", op
        assert declared.declared(t, op, "tpu") == "op_not_declared", op


def test_tensorflow_conv3d_gained_bfloat16_on_the_gpu_after_2_11():
    # conv_ops_3d.cc in 2.11 registers GPU Conv3D for half, float and double; later releases add bfloat16.
    old, new = table("tensorflow-2.11.0"), table("tensorflow-2.21.0")
    assert declared.declared(old, "Conv3D", "cuda", "bfloat16") == "dtype_not_declared"
    assert declared.declared(old, "Conv3D", "cuda", "float16") == "declared"
    assert declared.declared(old, "Conv3D", "cpu", "bfloat16") == "declared"
    assert declared.declared(new, "Conv3D", "cuda", "bfloat16") == "declared"


def test_tensorflow_tpu_column_is_what_xla_compiles():
    t = table("tensorflow-2.21.0")
    assert declared.declared(t, "MatMul", "tpu", "float32") == "declared"
    assert declared.declared(t, "RFFT", "tpu") == "declared"
    assert declared.declared(t, "StringFormat", "tpu") == "op_not_declared"


# --- PyTorch: OpInfo entries in torch/testing/_internal/common_methods_invocations.py ---------------------

def test_torch_addmm_integers_on_cpu_only():
    # OpInfo('addmm', dtypes=all_types_and_complex_and(float16, bfloat16),
    #        dtypesIfCUDA=floating_and_complex_types_and(float16, bfloat16))
    t = table("torch-2.13.0")
    assert declared.declared(t, "torch.addmm", "cpu", "int64") == "declared"
    assert declared.declared(t, "torch.addmm", "cuda", "int64") == "dtype_not_declared"
    assert declared.declared(t, "torch.addmm", "cuda", "bfloat16") == "declared"


def test_torch_histogram_is_cpu_only():
    # OpInfo('histogram', dtypes=floating_types(), dtypesIfCUDA=_dispatch_dtypes())  # only implemented on CPU
    t = table("torch-2.13.0")
    assert t["ops"]["histogram"] == {"cpu": ["float32", "float64"]}
    assert declared.declared(t, "torch.histogram", "cuda", "float32") == "op_not_declared"


def test_torch_1_12_cuda_lists_that_depend_on_the_gpu_are_unknowable():
    # 1.12: OpInfo('addmm', dtypes=all_types_and_complex_and(torch.bfloat16),
    #   dtypesIfCUDA=floating_and_complex_types_and(torch.float16, *[torch.bfloat16] if CUDA11OrLater else []))
    t = table("torch-1.12.0")
    assert "addmm" in t["unknowable"]["cuda"]
    assert declared.declared(t, "torch.addmm", "cuda", "bfloat16") == "unknown"
    assert declared.declared(t, "torch.addmm", "cpu", "float16") == "dtype_not_declared"


def test_torch_skips_are_kept_as_data():
    skips = table("torch-2.13.0")["skips"]
    assert {s["what"] for s in skips} == {"skip", "expected_failure"}
    assert any(s["op"] == "addmm" and s["kind"] == "mps" and s["what"] == "expected_failure" for s in skips)


# --- JAX: lowering rules in jax/_src/lax/linalg.py ----------------------------------------------------------

def test_jax_eig_has_no_tpu_lowering():
    # 0.10.2 registers eig lowerings for cpu (LAPACK), cuda and rocm, none for tpu
    t = table("jax-0.10.2")
    assert set(t["ops"]["eig"]) == {"cpu", "cuda"}
    assert declared.declared(t, "jax.numpy.linalg.eig", "tpu") == "op_not_declared"
    # 0.4.13: the generic rule only raises "only implemented on the CPU backend"
    old = table("jax-0.4.13")
    assert set(old["ops"]["eig"]) == {"cpu"}


def test_jax_harness_limitations_are_kept_as_data():
    t = table("jax-0.10.2")
    assert any(s["op"] == "eig" and s["kind"] == "tpu" and s["what"] == "limitation" for s in t["skips"])
    assert declared.ops_for(t, "jax.lax.add") == ["add"]
    assert declared.declared(t, "jax.lax.add", "tpu", "float32") == "declared"
