"""torch.cuda.Stream.synchronize: cases adapted from pytorch/pytorch test/test_cuda.py (test_streams: the default and a new stream, query() before and after synchronize around torch.cuda._sleep; test_stream_event_device / test_streams_priority: streams made with a priority and on an explicit device; test_record_stream-style work queued on a side stream under torch.cuda.stream(s) and read back after synchronize). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A CUDA stream exists only on a CUDA device: on any other cell every case skips. The timed call is
`stream.synchronize()`; the harness repeats it, and synchronizing an idle stream again is a no-op,
so each check (the call returns None, the stream reports idle, the queued work's result is complete
and correct) holds after any number of calls.
"""
import numpy as np
import pytest
import torch
from _support import need_cuda

pytestmark = pytest.mark.function("torch.cuda.Stream.synchronize", decile=90, top20=False,
                                  backward="a stream barrier: returns None, no tensor output to differentiate")

UPSTREAM_TESTS = {
    "test/test_cuda.py::TestCuda::test_streams": ["test_stream_synchronize_default_stream",
        "test_stream_synchronize_side_stream"],
    "test/test_cuda.py::TestCuda::test_streams_priority": ["test_stream_synchronize_priority"],
    "test/test_cuda.py::TestCuda::test_stream_event_device": ["test_stream_synchronize_completes_events"],
    "test/test_cuda.py::TestCuda::test_record_stream": ["test_stream_synchronize_side_stream"],
}

# About tens of milliseconds of GPU spin at the clock rates of current GPUs: long enough that the
# stream is still busy when query() is asked right after queuing it.
SLEEP_CYCLES = 50_000_000


# test_streams: the default stream is busy while a _sleep runs on it, idle after synchronize.
def test_stream_synchronize_default_stream(bench, device):
    need_cuda(device, "torch.cuda.Stream ")
    stream = torch.cuda.default_stream(device)
    torch.cuda.synchronize(device)
    assert stream.query()  # nothing queued
    torch.cuda._sleep(SLEEP_CYCLES)
    assert not stream.query()
    result = bench(stream.synchronize)
    assert result is None
    assert stream.query()


# test_streams: a new (non-default) stream, work queued on it under torch.cuda.stream(s).
@pytest.mark.parametrize("size", [256, 1024])
def test_stream_synchronize_side_stream(bench, device, size):
    need_cuda(device, "torch.cuda.Stream ")
    rng = np.random.default_rng(size)
    a_np = rng.standard_normal((size, size)).astype(np.float32)
    a = torch.from_numpy(a_np).to(device)
    stream = torch.cuda.Stream(device=device)
    assert stream != torch.cuda.default_stream(device) and stream.device == device
    stream.wait_stream(torch.cuda.current_stream(device))  # a is ready before the side stream reads it
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES)
        out = a @ a
    result = bench(stream.synchronize)
    assert result is None and stream.query()
    expected = a_np.astype(np.float64) @ a_np.astype(np.float64)
    # TF32 may be on for matmul: use a tolerance that admits it.
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=2e-2, atol=2e-2 * np.sqrt(size))


# test_streams_priority: streams with the lowest and highest priority synchronize the same way.
@pytest.mark.parametrize("which", ["low", "high"])
def test_stream_synchronize_priority(bench, device, which):
    need_cuda(device, "torch.cuda.Stream ")
    low, high = torch.cuda.Stream.priority_range()
    priority = low if which == "low" else high
    stream = torch.cuda.Stream(device=device, priority=priority)
    assert stream.priority == priority
    x = torch.arange(1 << 20, dtype=torch.float32, device=device)
    stream.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES)
        total = x.sum(dtype=torch.float64)
        x.record_stream(stream)
    result = bench(stream.synchronize)
    assert result is None and stream.query()
    n = 1 << 20
    assert float(total) == n * (n - 1) / 2


# test_stream_event_device: an event recorded on the stream has completed once the stream is synchronized.
def test_stream_synchronize_completes_events(bench, device):
    need_cuda(device, "torch.cuda.Stream ")
    stream = torch.cuda.Stream(device=device)
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES)
        y = torch.full((1000,), 3.0, device=device).cumsum(0)
        event = stream.record_event()
    assert not event.query()
    result = bench(stream.synchronize)
    assert result is None and event.query() and stream.query()
    np.testing.assert_array_equal(y.cpu().numpy(), 3.0 * np.arange(1, 1001, dtype=np.float32))
