"""jax.numpy.save: jnp.save is numpy.save re-exported, and JAX has no test of its own for it; the cases follow how tests/array_interoperability_test.py and tests/lax_numpy_test.py check NumPy interoperation of jax.Array (the array converts through __array__ with its dtype, shape and values intact), across dtypes and shapes, so UPSTREAM_TESTS below is empty. Not differentiable (the marker's backward= says why): no backward cases.

The brief forbids files, so each case saves into an in-memory sink. bench calls jnp.save many times into
the same sink; the sink keeps only the first save's bytes (np.save starts every record with the .npy
magic) and counts the rest, so memory stays flat. The first record is then loaded with np.load."""
import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import rand_default

pytestmark = pytest.mark.function("jax.numpy.save", decile=100, top20=True,
                                  backward="writes the array to a file object and returns None: nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {}  # JAX has no test of jnp.save (the docstring says where the cases come from)

_MAGIC = b"\x93NUMPY"


class _Sink:
    """A write-only file object: first .npy record kept, later ones only counted."""

    def __init__(self):
        self.first = bytearray()
        self.saves = 0
        self.nbytes = 0

    def write(self, data):
        data = bytes(data)
        if data.startswith(_MAGIC):
            self.saves += 1
        if self.saves == 1:
            self.first += data
        self.nbytes += len(data)
        return len(data)

    def load(self, **kwargs):
        assert self.saves >= 1
        assert self.nbytes == self.saves * len(self.first)  # every save wrote the same record
        return np.load(io.BytesIO(bytes(self.first)), **kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8, np.uint8, np.bool_, np.complex64])
def test_save_dtypes(bench, device, dtype):
    x = rand_default(np.random.default_rng(0), (3, 4), dtype)
    sink = _Sink()
    bench(jnp.save, sink, jax.device_put(x, device))
    loaded = sink.load()
    assert loaded.dtype == np.dtype(dtype) and loaded.shape == (3, 4)
    np.testing.assert_array_equal(loaded, x)


@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4), (1, 1, 5, 1)])
def test_save_shapes(bench, device, shape):
    x = rand_default(np.random.default_rng(1), shape, np.float32)
    sink = _Sink()
    bench(jnp.save, sink, jax.device_put(x, device))
    loaded = sink.load()
    assert loaded.shape == shape and loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded, x)


def test_save_transposed_view(bench, device):
    # A transposed jax.Array is saved in its logical (row-major) order.
    x = rand_default(np.random.default_rng(2), (4, 6), np.float32)
    xt = jax.device_put(x, device).T
    sink = _Sink()
    bench(jnp.save, sink, xt)
    np.testing.assert_array_equal(sink.load(), x.T)


def test_save_host_numpy_array(bench, device):
    # A host NumPy array (not a jax.Array) is saved as it is, Fortran order included.
    x = np.asfortranarray(np.arange(12, dtype=np.int64).reshape(3, 4))
    sink = _Sink()
    bench(jnp.save, sink, x)
    loaded = sink.load()
    assert loaded.dtype == np.int64 and loaded.shape == (3, 4)
    np.testing.assert_array_equal(loaded, x)


def test_save_computed_result(bench, device):
    # The result of a jitted computation (still on the device) is fetched and saved.
    x = jax.device_put(np.linspace(0, 1, 50, dtype=np.float32), device)
    y = jax.jit(lambda a: jnp.cumsum(a) * 2)(x)
    sink = _Sink()
    bench(jnp.save, sink, y)
    np.testing.assert_allclose(sink.load(), np.cumsum(np.linspace(0, 1, 50, dtype=np.float32)) * 2, rtol=1e-6)


def test_save_large(bench, device):
    # Largest case: 64K elements (the sink keeps one copy whatever the sample count).
    x = rand_default(np.random.default_rng(3), (256, 256), np.float32)
    sink = _Sink()
    bench(jnp.save, sink, jax.device_put(x, device))
    np.testing.assert_array_equal(sink.load(), x)
