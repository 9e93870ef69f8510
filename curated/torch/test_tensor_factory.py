"""torch.tensor: cases adapted from pytorch/pytorch test/test_tensor_creation_ops.py (test_tensor_factory: nested lists, NumPy arrays, dtype= and device=, the result is a copy; test_tensor_factory_type_inference: the dtype inferred from Python ints, floats, bools and complex numbers; test_tensor_factory_copy_var: from a tensor, a detached copy; test_tensor_factories_empty / test_new_tensor-style empty and 0-d inputs; test_tensor_factory_cuda_type: requires_grad= on the target device). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The timed call is `torch.tensor(data, ...)` with `device=` the cell's device: the data starts on the
host (a Python list or a NumPy array), and building the tensor on the device is the function's work.
Each case checks dtype, shape, device, the values against NumPy exactly, and that the result is a
copy that does not alias its source.
"""
import numpy as np
import pytest
import torch
from _support import host, ids

pytestmark = pytest.mark.function("torch.tensor", decile=100, top20=True,
                                  backward="builds a new leaf from data (a tensor argument is copied and detached): "
                                           "no gradient flows to its input")

UPSTREAM_TESTS = {
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_tensor_factory": ["test_tensor_from_nested_list",
        "test_tensor_from_numpy", "test_tensor_from_noncontiguous_numpy", "test_tensor_ragged_rejected"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_tensor_factory_type_inference":
        ["test_tensor_type_inference"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_tensor_factory_copy_var": ["test_tensor_from_tensor"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_tensor_factories_empty": ["test_tensor_empty"],
    "test/test_tensor_creation_ops.py::TestTensorCreation::test_tensor_factory_cuda_type":
        ["test_tensor_requires_grad"],
}


# test_tensor_factory: nested Python lists with an explicit dtype.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64, torch.uint8,
                                   torch.int8, torch.bool, torch.float16], ids=ids)
def test_tensor_from_nested_list(bench, device, dtype):
    data = [[1, 2, 3], [4, 5, 6]]
    t = bench(torch.tensor, data, dtype=dtype, device=device)
    assert t.dtype == dtype and t.device.type == device.type and tuple(t.shape) == (2, 3)
    expected = np.array(data, dtype=np.float64).astype(torch.empty(0, dtype=dtype).numpy().dtype)
    np.testing.assert_array_equal(host(t), expected)


# test_tensor_factory_type_inference: ints -> int64, floats -> the default dtype, bools -> bool,
# complex -> the complex dtype that matches the default, mixed int/float -> the default float dtype.
@pytest.mark.parametrize("data, expected_dtype, np_dtype", [
    ([1, 2, 3], torch.int64, np.int64),
    ([1.5, -2.0, 3.25], torch.float32, np.float32),
    ([True, False, True], torch.bool, np.bool_),
    ([1 + 2j, 3 - 1j], torch.complex64, np.complex64),
    ([1, 2.5, 3], torch.float32, np.float32),
    (7, torch.int64, np.int64),
    (2.5, torch.float32, np.float32),
], ids=["int", "float", "bool", "complex", "mixed", "int-scalar", "float-scalar"])
def test_tensor_type_inference(bench, device, data, expected_dtype, np_dtype):
    assert torch.get_default_dtype() == torch.float32
    t = bench(torch.tensor, data, device=device)
    assert t.dtype == expected_dtype and t.device.type == device.type
    expected = np.array(data, dtype=np_dtype)
    assert tuple(t.shape) == expected.shape  # a Python scalar gives a 0-d tensor
    np.testing.assert_array_equal(host(t), expected)


# test_tensor_factory: from a NumPy array the dtype follows the array; the result is a copy.
@pytest.mark.parametrize("np_dtype", [np.float64, np.float32, np.int64, np.int16, np.uint8, np.bool_,
                                      np.complex128], ids=lambda d: np.dtype(d).name)
def test_tensor_from_numpy(bench, device, np_dtype):
    rng = np.random.default_rng(0)
    array = (rng.standard_normal((16, 32)) * 10).astype(np_dtype)
    source = array.copy()
    t = bench(torch.tensor, array, device=device)
    assert t.dtype == torch.from_numpy(array).dtype and tuple(t.shape) == (16, 32)
    assert t.device.type == device.type
    np.testing.assert_array_equal(host(t), source)
    array[0, 0] = 0  # the tensor does not alias the array
    if device.type == "cpu":
        assert t.data_ptr() != array.__array_interface__["data"][0]
    np.testing.assert_array_equal(host(t), source)


# test_tensor_factory: a non-contiguous (transposed, strided) NumPy array keeps its logical values.
def test_tensor_from_noncontiguous_numpy(bench, device):
    array = np.arange(60, dtype=np.float32).reshape(3, 4, 5).transpose(2, 0, 1)[::2]
    assert not array.flags.c_contiguous
    t = bench(torch.tensor, array, device=device)
    assert tuple(t.shape) == array.shape and t.dtype == torch.float32
    # The copy is dense (its strides may keep the array's dimension order rather than be row-major).
    expected_stride = 1
    for stride, size in sorted(zip(t.stride(), t.shape)):
        assert stride == expected_stride
        expected_stride *= size
    np.testing.assert_array_equal(host(t), array)


# test_tensor_factory_copy_var: from a tensor that requires grad, the result is a detached copy
# (PyTorch warns that clone().detach() is the recommended spelling).
@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_tensor_from_tensor(bench, device):
    source = torch.arange(12, dtype=torch.float32, device=device).reshape(3, 4).requires_grad_()
    t = bench(torch.tensor, source)
    assert t.dtype == torch.float32 and t.device == source.device and tuple(t.shape) == (3, 4)
    assert not t.requires_grad and t.is_leaf and t.grad_fn is None
    assert t.data_ptr() != source.data_ptr()
    np.testing.assert_array_equal(host(t), np.arange(12, dtype=np.float32).reshape(3, 4))


# test_tensor_factories_empty: empty lists give zero-size tensors of the default dtype.
@pytest.mark.parametrize("data, shape", [([], (0,)), ([[]], (1, 0)), ([[], []], (2, 0))],
                         ids=["empty", "one-empty-row", "two-empty-rows"])
def test_tensor_empty(bench, device, data, shape):
    t = bench(torch.tensor, data, device=device)
    assert tuple(t.shape) == shape and t.numel() == 0 and t.dtype == torch.get_default_dtype()
    assert t.device.type == device.type


# requires_grad=True gives a leaf on the device that accumulates a gradient.
def test_tensor_requires_grad(bench, device):
    data = [[0.5, -1.0], [2.0, 3.0]]
    t = bench(torch.tensor, data, dtype=torch.float64, device=device, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.dtype == torch.float64 and t.device.type == device.type
    (t * t).sum().backward()
    np.testing.assert_array_equal(host(t.grad), 2 * np.array(data))


# Ragged nested lists are rejected (checked around one valid call).
def test_tensor_ragged_rejected(bench, device):
    data = [[float(i * 100 + j) for j in range(100)] for i in range(100)]
    t = bench(torch.tensor, data, device=device)
    np.testing.assert_array_equal(host(t), np.array(data, dtype=np.float32))
    with pytest.raises(ValueError):
        torch.tensor([[1, 2], [3]], device=device)
