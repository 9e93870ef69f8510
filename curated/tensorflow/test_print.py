"""tf.print: cases adapted from tensorflow/python/kernel_tests/logging_ops_test.py (PrintV2Test.testPrintOneTensor, testPrintOneStringTensor, testPrintOneTensorVarySummarize, testPrintFloatScalar, testPrintStringScalar, testPrintComplexTensorStruct, testPrintSparseTensor, testPrintOneTensorStdout, testPrintTwoTensorsDifferentSep, testPrintStringScalarDifferentEnd); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

Eagerly tf.print writes at once and returns None; upstream captures the stream with
captureWritesToStream, here pytest's capfd captures the process's file descriptors (the kernel writes
with C++ streams, below Python's sys.stderr). The timed call prints; the case checks what it wrote."""
import string
import sys

import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.print", decile=100, top20=True,
                                  backward=("returns no tensor (eagerly None): PrintV2 writes to a stream, and "
                                            "TensorFlow registers no gradient for it"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintOneTensor": [
        "test_print_range", "test_print_large_tensor"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintOneStringTensor": [
        "test_print_string_tensor"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintOneTensorVarySummarize": [
        "test_print_range"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintFloatScalar": ["test_print_scalars"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintStringScalar": ["test_print_scalars"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintComplexTensorStruct": [
        "test_print_structure_and_strings"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintSparseTensor": [
        "test_print_sparse_tensor"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintOneTensorStdout": ["test_print_stdout"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintTwoTensorsDifferentSep": [
        "test_print_structure_and_strings"],
    "tensorflow/python/kernel_tests/logging_ops_test.py::PrintV2Test::testPrintStringScalarDifferentEnd": [
        "test_print_structure_and_strings"],
}


def _printed(capfd, stream="err"):
    out, err = capfd.readouterr()
    return err if stream == "err" else out


@pytest.mark.parametrize("summarize,expected", [
    (None, "[0 1 2 ... 7 8 9]"),
    (1, "[0 ... 9]"),
    (2, "[0 1 ... 8 9]"),
    (3, "[0 1 2 ... 7 8 9]"),
    (-1, "[0 1 2 3 4 5 6 7 8 9]"),
], ids=["default", "summarize1", "summarize2", "summarize3", "summarize_all"])
def test_print_range(bench, device, capfd, summarize, expected):
    # testPrintOneTensor / testPrintOneTensorVarySummarize.
    with tf.device(device):
        tensor = tf.range(10)
        kwargs = {} if summarize is None else {"summarize": summarize}
        capfd.readouterr()
        result = bench(tf.print, tensor, **kwargs)
    assert result is None
    assert (expected + "\n") in _printed(capfd)


def test_print_string_tensor(bench, device, capfd):
    # testPrintOneStringTensor: string elements are quoted.
    tensor = tf.constant(list(string.ascii_lowercase))
    capfd.readouterr()
    bench(tf.print, tensor)
    assert '["a" "b" "c" ... "x" "y" "z"]\n' in _printed(capfd)


@pytest.mark.parametrize("value,expected", [(12.5, "12.5"), ("hello", "hello"), (True, "1")],
                         ids=["float_scalar", "string_scalar", "bool_scalar"])
def test_print_scalars(bench, device, capfd, value, expected):
    # testPrintFloatScalar / testPrintStringScalar: scalar tensors print bare.
    with tf.device(device):
        tensor = tf.constant(value)
        capfd.readouterr()
        bench(tf.print, tensor)
    assert (expected + "\n") in _printed(capfd)


def test_print_structure_and_strings(bench, device, capfd):
    # testPrintComplexTensorStruct / testPrintTwoTensorsDifferentSep / testPrintStringScalarDifferentEnd.
    with tf.device(device):
        t = tf.range(3)
        capfd.readouterr()
        bench(tf.print, "loss:", {"a": t, "b": [t, 4]}, sep="|", end="!\n")
    assert "loss:|{'a': [0 1 2], 'b': [[0 1 2], 4]}!\n" in _printed(capfd)


@pytest.mark.layout("sparse_coo")
def test_print_sparse_tensor(bench, device, capfd):
    # testPrintSparseTensor: indices, values and shape.
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[3, 4], dense_shape=[2, 3])
    capfd.readouterr()
    bench(tf.print, sp)
    assert "'SparseTensor(indices=[[0 0]\n [1 2]], values=[3 4], shape=[2 3])'\n" in _printed(capfd)


def test_print_stdout(bench, device, capfd):
    # testPrintOneTensorStdout: output_stream=sys.stdout.
    with tf.device(device):
        tensor = tf.range(10)
        capfd.readouterr()
        bench(tf.print, tensor, output_stream=sys.stdout)
    assert "[0 1 2 ... 7 8 9]\n" in _printed(capfd, "out")


def test_print_large_tensor(bench, device, capfd):
    # A [1000, 1000] tensor prints in its summarised form (3 items per end of each dimension).
    with tf.device(device):
        tensor = tf.reshape(tf.range(1_000_000), [1000, 1000])
        capfd.readouterr()
        bench(tf.print, tensor)
    printed = _printed(capfd)
    assert "[[0 1 2 ... 997 998 999]\n" in printed
    assert "[999000 999001 999002 ... 999997 999998 999999]]\n" in printed
