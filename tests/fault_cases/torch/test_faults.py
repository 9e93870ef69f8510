"""Fault injection for the harness's isolation tests: cases that kill or hang the worker, between
normal cases. Not a curated function: it lives under tests/ and is run only by tests/test_isolation.py."""
import ctypes
import os
import signal
import time

import pytest
import torch

pytestmark = pytest.mark.function("torch.add", decile=100, top20=True)


def _normal(bench, device):
    x = torch.arange(6, dtype=torch.float32, device=device)
    out = bench(torch.add, x, x)
    assert torch.equal(out.cpu(), torch.arange(6, dtype=torch.float32) * 2)


def test_normal_first(bench, device):
    _normal(bench, device)


def test_segfault(bench, device):
    print("test_segfault: about to read address 0", flush=True)  # the worker's log keeps what a dying case wrote
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def test_normal_after_segfault(bench, device):
    _normal(bench, device)


def test_abort(bench, device):
    os.abort()


def test_normal_after_abort(bench, device):
    _normal(bench, device)


def test_os_exit(bench, device):
    os._exit(7)


def test_normal_after_exit(bench, device):
    _normal(bench, device)


def test_memory_error(bench, device):
    raise MemoryError("simulated allocation failure")


def test_normal_after_memory_error(bench, device):
    _normal(bench, device)


def test_hang(bench, device):
    # Block the signals a Python-level timeout would use, as a hang inside a C extension would.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGINT, signal.SIGTERM})
    time.sleep(600)


def test_normal_last(bench, device):
    _normal(bench, device)
