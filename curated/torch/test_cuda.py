"""torch.cuda: cases adapted from pytorch/pytorch test/test_cuda.py (test_is_available / device_count consistency, test_current_device and torch.cuda.device context, test_cuda_get_device_name / capability, test_synchronize, test_memory_stats-style allocation accounting, test_set_device) and test/test_torch.py (the CPU-only build's torch.cuda answers: not available, zero devices). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

torch.cuda is the CUDA package rather than one function; the sampled calls are its entry points
that user code calls most: is_available, device_count, is_initialized, current_device,
get_device_name, get_device_capability, synchronize, memory_allocated. The first three answer on
every device (on a CUDA cell they must report the cell's GPU; on a build without CUDA they must
report none); the rest need a CUDA device and skip elsewhere.
"""
import pytest
import torch
from _support import need_cuda

pytestmark = pytest.mark.function("torch.cuda", decile=100, top20=True,
                                  backward="a device query (flags, counts, names, allocator figures) and a barrier: "
                                           "no tensor output to differentiate")

UPSTREAM_TESTS = {
    "test/test_cuda.py::TestCuda::test_cuda_is_available": ["test_cuda_is_available", "test_cuda_device_count",
        "test_cuda_is_initialized"],
    "test/test_cuda.py::TestCuda::test_current_device": ["test_cuda_current_device"],
    "test/test_cuda.py::TestCuda::test_cuda_get_device_name": ["test_cuda_get_device_name"],
    "test/test_cuda.py::TestCuda::test_cuda_get_device_capability": ["test_cuda_get_device_capability"],
    "test/test_cuda.py::TestCuda::test_cuda_synchronize": ["test_cuda_synchronize"],
    "test/test_cuda.py::TestCuda::test_memory_stats": ["test_cuda_memory_allocated"],
    "test/test_cuda.py::TestCuda::test_set_device": "changes the process's current device, which every later case of "
                                                    "the cell would inherit",
}


def _cuda_build():
    return torch.version.cuda is not None or getattr(torch.version, "hip", None) is not None


def _check_flag(result, device):
    """is_available / is_initialized: True on a CUDA cell, False on a build without CUDA."""
    assert isinstance(result, bool)
    if device.type == "cuda":
        assert result is True
    elif not _cuda_build():
        assert result is False


def test_cuda_is_available(bench, device):
    result = bench(torch.cuda.is_available)
    _check_flag(result, device)


def test_cuda_device_count(bench, device):
    result = bench(torch.cuda.device_count)
    assert isinstance(result, int) and result >= 0
    if device.type == "cuda":
        assert result >= 1 and result > (device.index or 0)
    elif not _cuda_build():
        assert result == 0
    assert (result > 0) == torch.cuda.is_available()


def test_cuda_is_initialized(bench, device):
    if device.type == "cuda":
        torch.zeros(1, device=device)  # any CUDA work initialises the context
    result = bench(torch.cuda.is_initialized)
    _check_flag(result, device)


# test_current_device: inside torch.cuda.device(d), current_device() is d.
def test_cuda_current_device(bench, device):
    need_cuda(device)
    index = device.index or 0
    with torch.cuda.device(index):
        result = bench(torch.cuda.current_device)
    assert result == index


def test_cuda_get_device_name(bench, device):
    need_cuda(device)
    result = bench(torch.cuda.get_device_name, device)
    assert isinstance(result, str) and result
    assert result == torch.cuda.get_device_properties(device).name


def test_cuda_get_device_capability(bench, device):
    need_cuda(device)
    result = bench(torch.cuda.get_device_capability, device)
    props = torch.cuda.get_device_properties(device)
    assert result == (props.major, props.minor)


# test_synchronize: after synchronize, work queued before it is complete and its result readable.
def test_cuda_synchronize(bench, device):
    need_cuda(device)
    x = torch.ones((1024, 1024), device=device)
    y = x @ x
    result = bench(torch.cuda.synchronize, device)
    assert result is None
    assert float(y[0, 0]) == 1024.0


# memory_allocated grows by at least the size of a live allocation.
def test_cuda_memory_allocated(bench, device):
    need_cuda(device)
    before = torch.cuda.memory_allocated(device)
    block = torch.empty((1024, 1024), dtype=torch.float32, device=device)
    result = bench(torch.cuda.memory_allocated, device)
    assert isinstance(result, int)
    assert result - before >= block.numel() * block.element_size()
