"""TensorFlow's TPU rules (frameworks/tensorflow_tpu.py) on their inputs: which executed ops a TPU lacks and why, and
what TensorFlow's own errors on the XLA device say (messages as TensorFlow 2.21 and 2.11 print them). The real
TensorFlow runs them in tests/test_tpu_model_tf.py."""
from __future__ import annotations

from portability_harness.frameworks import tensorflow_tpu as tpu

# A declared-support table's shape (declared/__init__.py) with the TPU column of three ops.
TABLE = {"framework_version": "2.21.0", "devices": {"tpu": {"known": True}},
         "ops": {"MatMul": {"tpu": ["float32", "float64", "complex64", "complex128"]},
                 "Unique": {"cpu": ["int32"]},
                 "VarHandleOp": {"tpu": ["float32"]}},
         "names": {}}


def test_the_tpu_type_set_then_float64_random_ops_then_the_declarations():
    found = tpu.gaps([("MatMul", "complex128"), ("MatMul", "float32"), ("MatMul", "float64"),
                      ("RandomStandardNormal", "float64"), ("StatelessRandomUniformV2", "float32"),
                      ("Identity", "string"), ("Unique", "int32"), ("ReadVariableOp", "resource")], TABLE)
    assert found == [
        "Identity (string): a TPU has no string type",
        "MatMul (complex128): a TPU has no complex128 type",
        "RandomStandardNormal (float64): a TPU's random-number kernels have no float64",
        "Unique (int32): TensorFlow 2.21.0 declares no TPU kernel for it",
    ]  # float64 MatMul is emulated and runs; an op the table does not know is no gap


def test_the_xla_devices_own_kernels_are_not_asked_of_the_table():
    assert tpu.gaps([("VarHandleOp", "int32")], TABLE) == [
        "VarHandleOp (int32): TensorFlow 2.21.0 declares its TPU kernel for other dtypes only"]
    assert tpu.gaps([("VarHandleOp", "int32")], TABLE, own={"VarHandleOp"}) == []
    assert tpu.gaps([("Unique", "int32")], None) == []  # no table: the type set alone


EAGER_PLACEMENT = ("Could not satisfy device specification '/job:localhost/replica:0/task:0/device:XLA_CPU:0'. "
                   "enable_soft_placement=0. Supported device types [CPU]. All available devices "
                   "[/job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:XLA_CPU:0]. "
                   "[Op:AsString]")
GRAPH_PLACEMENT = ("Cannot assign a device for operation var_x: Could not satisfy explicit device specification "
                   "'/device:XLA_CPU:0' because no supported kernel for XLA_CPU devices is available.\n"
                   "Colocation Debug Info:\n\nOp: VariableV2\nNode attrs: container=\"\", shared_name=\"\", "
                   "shape=[], dtype=DT_FLOAT\nRegistered kernels:\n  device='CPU'\n\n\t [[{{node var_x}}]]")
STRING_ARGUMENT = ("Detected unsupported operations when trying to compile graph __inference_<lambda>_16[_XlaMustCompile"
                   "=true,config_proto=3175580994766145631,executor_type=11160318154034397263] on XLA_CPU_JIT: _Arg "
                   "(No registered '_Arg' OpKernel for XLA_CPU_JIT devices compatible with node {{node x_0}}\n\t "
                   "(OpKernel was found, but attributes didn't match) Requested Attributes: T=DT_STRING, "
                   "_output_shapes=[[1]], _user_specified_name=\"x_0\", index=0){{node x_0}}")


def test_a_placement_error_names_its_op_and_the_dtype_the_same_call_ran_it_with_elsewhere():
    ran_elsewhere = [("Const", "int32", "/job:localhost/replica:0/task:0/device:XLA_CPU:0"),
                     ("AsString", "int32", "/job:localhost/replica:0/task:0/device:CPU:0"),
                     ("AsString", "string", "/job:localhost/replica:0/task:0/device:CPU:0")]
    assert tpu.placement_failed(EAGER_PLACEMENT)
    assert tpu.failure_reason(EAGER_PLACEMENT, ran_elsewhere) == "placement: no XLA_CPU kernel for AsString (int32)"
    assert tpu.failure_reason(EAGER_PLACEMENT, []) == "placement: no XLA_CPU kernel for AsString"
    # A graph's placement names the op and its attributes itself.
    assert tpu.failure_reason(GRAPH_PLACEMENT, []) == "placement: no XLA_CPU kernel for VariableV2 (float32)"
    assert tpu.failure_reason("AssertionError: not close", ran_elsewhere) is None


def test_a_string_crossing_into_a_compiled_function_is_its_boundary_not_a_kernel():
    reason = "a string value crosses into the compiled function (_Arg): XLA holds no such value"
    assert tpu.boundary_failure(STRING_ARGUMENT) == reason
    assert tpu.failure_reason(STRING_ARGUMENT, []) == reason
    assert tpu.boundary_failure(EAGER_PLACEMENT) is None
