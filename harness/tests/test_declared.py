"""The declared-support lookups on small tables: no framework is imported (runs on Python 3.8 with pytest)."""
from __future__ import annotations

import gzip
import json

import pytest

from portability_harness import declared
from portability_harness.classify import classify
from portability_harness.declared import messages
from portability_harness.declared.dtypes import canonical, in_name


def small_table(cuda_known: bool = True) -> dict:
    table = declared.new_table("tensorflow", "9.9.0", "a table written for this test")
    table["devices"] = {"cpu": {"known": True, "note": ""}, "cuda": {"known": cuda_known, "note": ""},
                        "tpu": {"known": True, "note": ""}}
    table["ops"] = {
        "Conv3D": {"cpu": ["float16", "bfloat16", "float32", "float64"], "cuda": ["float16", "float32", "float64"],
                   "tpu": ["bfloat16", "float32"]},
        "DrawBoundingBoxes": {"cpu": ["float16", "float32"]},
        "NoOp": {"cpu": [], "cuda": []},  # no type attribute: declared for any dtype
        "Matmul": {"cpu": ["float32"], "cuda": ["float32"]},
        "GpuDependent": {"cpu": ["float32"], "cuda": ["float32"]},
    }
    table["names"] = {"tf.nn.conv3d": ["Conv3D"], "tf.image.draw_bounding_boxes": ["DrawBoundingBoxes"],
                      "tf.both": ["DrawBoundingBoxes", "Conv3D"]}
    table["unknowable"] = {"cuda": ["GpuDependent"]}
    table["coverage"] = declared.coverage(table)
    return table


@pytest.mark.parametrize("op, kind, dtype, verdict", [
    ("Conv3D", "cuda", "float32", "declared"),
    ("Conv3D", "cuda", "bfloat16", "dtype_not_declared"),
    ("Conv3D", "cuda", None, "declared"),  # declared for some dtype
    ("DrawBoundingBoxes", "cuda", "float32", "op_not_declared"),
    ("DrawBoundingBoxes", "tpu", None, "op_not_declared"),
    ("NoOp", "cuda", "string", "declared"),
    ("NoOp", "tpu", "float32", "op_not_declared"),
    ("Unheard", "cuda", "float32", "unknown"),  # an op the table does not know
    ("Conv3D", "xla-cpu", "float32", "unknown"),  # a device kind the table has no column for
    ("Conv3D", "cuda", "not-a-dtype", "unknown"),
    ("GpuDependent", "cuda", "float16", "unknown"),  # this environment could not know its cuda list
    ("GpuDependent", "cpu", "float16", "dtype_not_declared"),
])
def test_declared_answers_per_op_device_and_dtype(op, kind, dtype, verdict):
    assert declared.declared(small_table(), op, kind, dtype) == verdict


def test_dtypes_are_matched_in_any_frameworks_spelling():
    table = small_table()
    for spelling in ("DT_BFLOAT16", "torch.bfloat16", "BFloat16", "bf16", "bfloat16"):
        assert declared.declared(table, "Conv3D", "cuda", spelling) == "dtype_not_declared", spelling
    assert declared.declared(table, "Conv3D", "cuda", "DT_HALF") == "declared"


def test_public_names_stand_for_their_ops():
    table = small_table()
    assert declared.ops_for(table, "tf.nn.conv3d") == ["Conv3D"]
    assert declared.ops_for(table, "tensorflow.nn.conv3d") == ["Conv3D"]  # the alias is expanded
    assert declared.ops_for(table, "tf.nn.unheard") == []
    assert declared.declared(table, "tf.image.draw_bounding_boxes", "cuda") == "op_not_declared"
    # a name for several ops: declared if any is
    assert declared.declared(table, "tf.both", "cuda", "float32") == "declared"
    assert declared.declared(table, "tf.both", "cuda", "bfloat16") == "dtype_not_declared"
    assert declared.declared_dtypes(table, "tf.both", "tpu") == ["bfloat16", "float32"]


def test_a_device_this_environment_cannot_know_answers_unknown():
    table = small_table(cuda_known=False)
    assert declared.declared(table, "Conv3D", "cuda", "float32") == "unknown"
    assert declared.declared(table, "DrawBoundingBoxes", "cuda") == "unknown"
    assert declared.declared(None, "Conv3D", "cpu") == "unknown"


def test_coverage_counts_ops_and_pairs_per_device():
    cov = small_table()["coverage"]
    assert cov["cpu"] == {"ops": 5, "pairs": 4 + 2 + 0 + 1 + 1}
    assert cov["cuda"] == {"ops": 4, "pairs": 3 + 0 + 1 + 1}
    assert cov["tpu"] == {"ops": 1, "pairs": 2}


def test_tables_round_trip_through_gzip_json(tmp_path):
    table = small_table()
    path = declared.save(table, str(tmp_path / "tensorflow-9.9.0.json.gz"))
    with gzip.open(path, "rt") as f:
        assert json.load(f) == table
    assert declared.load(path) == table
    first = open(path, "rb").read()
    declared.save(table, path)
    assert open(path, "rb").read() == first  # same table, same bytes
    assert declared.table_path(str(tmp_path), "tensorflow", "9.9.0+local") == path
    assert declared.table_path(str(tmp_path), "tensorflow", "9.9") is None


def test_a_table_of_another_schema_is_refused(tmp_path):
    path = str(tmp_path / "t.json")
    declared.save(dict(small_table(), schema=99), path)
    with pytest.raises(ValueError, match="schema"):
        declared.load(path)


def test_canonical_dtype_names():
    assert canonical("DT_FLOAT") == "float32"
    assert canonical("Half") == "float16"
    assert canonical("ComplexDouble") == "complex128"
    assert canonical("C128") == "complex128"
    assert canonical("torch.int64") == "int64"
    assert canonical("DT_STRING") == "string"
    assert canonical("DT_INT32_REF") == "int32"
    assert canonical("tensor") is None
    assert in_name("test_mm_xla_complex64") == ["complex64"]
    assert in_name("tests/t.py::test_add[bfloat16-cuda]") == ["bfloat16"]
    assert in_name("test_integral") == []


def test_reading_a_tensorflow_placement_error():
    text = ("InvalidArgumentError: Cannot assign a device for operation EagerPyFunc: Could not satisfy explicit "
            "device specification '/job:localhost/replica:0/task:0/device:GPU:0' because no supported kernel for "
            "GPU devices is available.\nOp: EagerPyFunc\nNode attrs: is_async=false, Tin=[DT_INT64], "
            "Tout=[DT_INT32], token=\"pyfunc_5\"\nRegistered kernels:\n  device='DEFAULT'; Tin in [DT_FLOAT, "
            "DT_DOUBLE]; Tout in [DT_FLOAT, DT_DOUBLE]\n  device='CPU'\n\n\t [[{{node EagerPyFunc}}]] "
            "[Op:__inference_f_45723]")
    reading = messages.read(text)
    assert reading.ops == ["EagerPyFunc"]  # the function __inference_f_45723 is not an op
    assert reading.dtypes == ["int64", "int32"]  # from the node, not from the kernel list
    assert reading.device == "cuda"
    assert reading.kernels == {"DEFAULT": {"Tin": ["float32", "float64"], "Tout": ["float32", "float64"]}, "CPU": {}}
    assert reading.kernel_lookup
    assert messages.kernels_on(reading, "cuda") is True  # DEFAULT kernels serve the GPU
    # the kernel list decides without a table
    assert classify([("InvalidArgumentError", text)], device="cuda") == "type"
    assert classify([("InvalidArgumentError", text)]) == "type"  # the device kind the message asked for
    assert classify([("InvalidArgumentError", text)], device="cpu") == "type"
    cpu_only = text.replace("  device='DEFAULT'; Tin in [DT_FLOAT, DT_DOUBLE]; Tout in [DT_FLOAT, DT_DOUBLE]\n", "")
    assert classify([("InvalidArgumentError", cpu_only)], device="cuda") == "not_implemented"


PLACEMENT = ("Could not satisfy device specification '/job:localhost/replica:0/task:0/device:GPU:0'. "
             "enable_soft_placement=0. Supported device types [CPU]. All available devices "
             "[/job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:CPU:0]. [Op:{op}]")


def test_the_classifier_splits_type_from_not_implemented_with_a_table():
    table = small_table()
    conv = [("InvalidArgumentError", PLACEMENT.format(op="Conv3D"))]
    boxes = [("InvalidArgumentError", PLACEMENT.format(op="DrawBoundingBoxes"))]
    assert classify(conv) == "not_implemented"  # the message alone cannot tell
    assert classify(conv, table=table, device="cuda") == "type"  # Conv3D has GPU kernels, for other dtypes
    assert classify(boxes, table=table, device="cuda") == "not_implemented"  # no GPU kernel at all
    assert classify(conv, table=table, device="cuda", dtypes=["bfloat16"]) == "type"
    # the device kind is read from the message when the caller does not give it
    assert classify(conv, table=table) == "type"
    # an op the table does not know: the rules decide
    assert classify([("InvalidArgumentError", PLACEMENT.format(op="Unheard"))], table=table, device="cuda") == "not_implemented"


def test_the_function_and_the_cases_dtype_stand_in_when_the_message_names_neither():
    table = small_table()
    vague = [("NotImplementedError", "this operation is not supported on this device")]
    assert classify(vague, table=table, device="cuda", function="tf.nn.conv3d", dtypes=["bfloat16"]) == "type"
    assert classify(vague, table=table, device="cuda", function="tf.image.draw_bounding_boxes") == "not_implemented"
    # declared for this very dtype, and not a kernel lookup: nothing to correct
    assert classify(vague, table=table, device="cuda", function="tf.nn.conv3d", dtypes=["float32"]) == "not_implemented"
    assert classify(vague, table=table, device="cuda", function="tf.unheard", dtypes=["bfloat16"]) == "not_implemented"


def test_the_table_never_overrides_other_categories():
    table = small_table()
    assert classify([("AssertionError", "Not equal to tolerance rtol=1e-06 [Op:Conv3D]")], table=table,
                    device="cuda", dtypes=["bfloat16"]) == "precision"
    assert classify([("NameError", "name 'x' is not defined")], table=table, device="cuda",
                    function="tf.nn.conv3d", dtypes=["bfloat16"]) == "case_error"
