"""jax.lax.infeed: cases adapted from tests/infeed_test.py (InfeedTest.testInfeed: two infeeds chained by a token inside a jitted function, their values added to an operand; testInfeedPytree: a pytree of a float32 scalar and an int16 array, fed flattened as one tuple), over single arrays, tuples of arrays of different dtypes and shapes, and scalars. UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

The host puts an item (a tuple of arrays) on the device's infeed queue with
device.transfer_to_infeed, and each execution of the jitted receiver takes one item off it. bench calls
the receiver many times, so the cases use bench.with_setup: the setup feeds one item before every
call, outside the timed region; the first item is the one checked, and the later ones are
shifted copies of it (item n adds n), so a result from the wrong item shows.
After bench, one more item is fed and received: it must come back unchanged, so bench left the
queue exactly as it found it.

A receiver that finds the queue empty waits inside XLA forever. A watchdog guards every case: when a
call has waited 30 s for an item, it feeds a filler item so that the call returns, and the case fails
saying so instead of hanging.

jax.lax.infeed is gone from current JAX (0.10): there the harness records missing_api."""
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import assert_exact  # an infeed moves bytes: values come back exactly, dtype and shape too
from jax import lax

pytestmark = pytest.mark.function("jax.lax.infeed", decile=50, top20=False,
                                  backward="no differentiation rule: JAX registers none for infeed, whose values come "
                                           "from the host's queue, not from differentiable inputs")

UPSTREAM_TESTS = {
    "tests/infeed_test.py::InfeedTest::testInfeed": [
        "test_infeed_array", "test_infeed_tuple", "test_infeed_scalar", "test_infeed_two_chained_with_operand"],
    "tests/infeed_test.py::InfeedTest::testInfeedPytree": ["test_infeed_pytree"],
}

_WAIT_S = 30.0  # how long a call may wait for an item before the watchdog feeds a filler
_POLL_S = 2.0


class _Feeder:
    """The setup of bench.with_setup: call n feeds items(n), the items (each a tuple of arrays, one per
    infeed the receiver runs) of its n-th execution."""

    def __init__(self, device, items):
        self.device = device
        self.items = items
        self.fed = 0
        self.unblocked = False
        self._since = None  # when the newest item was fed: a call may be waiting from then on
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="infeed-watchdog", daemon=True)

    def __call__(self):
        self.put(self.items(self.fed))
        self.fed += 1

    def put(self, items):
        for values in items:
            self.device.transfer_to_infeed(tuple(values))
        self._since = time.monotonic()

    def idle(self):
        """No call is waiting now (the last one returned): nothing for the watchdog to time."""
        self._since = None

    def _watch(self):
        while not self._stop.wait(_POLL_S):
            since = self._since
            if since is not None and time.monotonic() - since > _WAIT_S:
                self.unblocked = True
                self.put([[np.zeros_like(a) for a in values] for values in self.items(0)])

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _aval(shape, dtype):
    return jax.core.ShapedArray(shape, np.dtype(dtype))


def _receiver(shape):
    """A jitted function that takes one item of `shape` (an aval or a pytree of avals) off the queue."""

    @jax.jit
    def receive():
        values, _ = lax.infeed(lax.create_token(), shape=shape)
        return values

    return receive


def _rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype)


def _variant(a, n):
    """Item n of a stream whose item 0 is `a`: a + n (wrapping for integers; bool flips for odd n)."""
    if n == 0:
        return a
    if a.dtype == np.bool_:
        return a ^ bool(n % 2)
    wide = np.int64 if np.issubdtype(a.dtype, np.integer) else np.float64
    return (a.astype(wide) + n).astype(a.dtype)


def _run(bench, device, shape, values, *args):
    """Time the receiver over a stream whose first item is `values` (a list of arrays, flattened in the
    order of `shape`); return the first result and the result of one more call after bench."""
    receive = _receiver(shape)
    with _Feeder(device, lambda n: [[_variant(v, n) for v in values]]) as feeder:
        result = bench.with_setup(feeder, receive, *args)
        feeder.idle()
        # Balance: bench fed exactly as many items as it received, so the next item is the next fed.
        probe = [_variant(v, -1) for v in values]
        feeder.put([probe])
        after = receive(*args)
        jax.block_until_ready(after)
    assert not feeder.unblocked, f"a call waited {_WAIT_S:.0f} s on an empty infeed queue"
    assert feeder.fed >= 1
    return result, after, probe


@pytest.mark.parametrize("shape,dtype", [
    ((3, 4), np.float32),
    ((3, 1, 1), np.float32),
    ((2, 5), np.int32),
    ((4,), jnp.bfloat16),
    ((2, 3), np.float16),
    ((2, 3), np.bool_),
    ((8,), np.uint8),
    ((64, 64), np.float32),
], ids=["3x4_float32", "3x1x1_float32", "2x5_int32", "4_bfloat16", "2x3_float16", "2x3_bool", "8_uint8",
        "64x64_float32"])
def test_infeed_array(bench, device, shape, dtype):
    # A single aval as the shape: infeed returns one array (the item is a 1-tuple on the host side).
    x = _rand(np.random.default_rng(0), shape, dtype)
    result, after, probe = _run(bench, device, _aval(shape, dtype), [x])
    assert_exact(result, x)
    assert_exact(after, probe[0])


@pytest.mark.parametrize("specs", [
    [((3, 4), np.float32), ((2,), np.int16), ((), np.bool_)],
    [((2, 2), np.float16), ((5,), np.uint32), ((1, 3), np.int8), ((2, 1), jnp.bfloat16)],
    [((4,), np.float32), ((4,), np.float32)],
], ids=["float32_int16_bool", "float16_uint32_int8_bfloat16", "two_float32"])
def test_infeed_tuple(bench, device, specs):
    # A tuple of avals: one item carries all the arrays, returned as a tuple in the same order.
    rng = np.random.default_rng(1)
    values = [_rand(rng, shape, dtype) for shape, dtype in specs]
    shape = tuple(_aval(s, d) for s, d in specs)
    result, after, probe = _run(bench, device, shape, values)
    assert isinstance(result, tuple) and len(result) == len(values)
    for got, want in zip(result, values):
        assert_exact(got, want)
    for got, want in zip(after, probe):
        assert_exact(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.float16, np.uint8])
def test_infeed_scalar(bench, device, dtype):
    x = np.asarray(_rand(np.random.default_rng(2), (), dtype))
    result, after, probe = _run(bench, device, _aval((), dtype), [x])
    assert result.shape == ()
    assert_exact(result, x)
    assert_exact(after, probe[0])


def test_infeed_pytree(bench, device):
    # testInfeedPytree: a dict of avals; the host feeds the leaves flattened, in the pytree's order.
    to_infeed = {"a": np.float32(1.5), "b": np.reshape(np.arange(12, dtype=np.int16), (3, 4))}
    shape = {"a": _aval((), np.float32), "b": _aval((3, 4), np.int16)}
    leaves = jax.tree_util.tree_leaves(to_infeed)
    result, after, probe = _run(bench, device, shape, [np.asarray(v) for v in leaves])
    assert isinstance(result, dict) and sorted(result) == ["a", "b"]
    assert_exact(result["a"], np.asarray(to_infeed["a"]))
    assert_exact(result["b"], to_infeed["b"])
    for got, want in zip(jax.tree_util.tree_leaves(after), probe):
        assert_exact(got, want)


def test_infeed_two_chained_with_operand(bench, device):
    # testInfeed: two infeeds ordered by their token in one computation, added to an operand x.
    rng = np.random.default_rng(3)
    x = np.float32(1.5)
    y = np.reshape(np.arange(12, dtype=np.float32), (3, 4))
    z = rng.standard_normal((3, 1, 1)).astype(np.float32)

    @jax.jit
    def f(x):
        token = lax.create_token()
        (y,), token = lax.infeed(token, shape=(_aval((3, 4), np.float32),))
        (z,), _ = lax.infeed(token, shape=(_aval((3, 1, 1), np.float32),))
        return x + y + z

    xd = jax.device_put(x, device)
    with _Feeder(device, lambda n: [[_variant(y, n)], [_variant(z, n)]]) as feeder:  # one call takes y, then z
        result = bench.with_setup(feeder, f, xd)
        feeder.idle()
        feeder.put([[y + 1], [z - 1]])
        after = f(xd)
        jax.block_until_ready(after)
    assert not feeder.unblocked, f"a call waited {_WAIT_S:.0f} s on an empty infeed queue"
    assert result.shape == (3, 3, 4) and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), x + y + z, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(after), x + (y + 1) + (z - 1), rtol=1e-6)
