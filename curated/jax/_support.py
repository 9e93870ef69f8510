"""Helpers that several curated JAX modules share: input makers, host copies, tolerance tables and checks.

Not a curated module (no test_ prefix). Modules import it as `from _support import ...`; conftest.py puts
this folder on sys.path. Each module keeps its own cases, tolerances and notes on its upstream source;
what is here is only the logic they had written alike. Nothing here calls `bench`: the timed call stays in
the test functions."""
import jax
import jax.numpy as jnp
import numpy as np

# ---- inputs -------------------------------------------------------------------------------------


def rand_default(rng, shape, dtype=np.float32):
    """Like upstream's jtu.rand_default: normal values scaled by 3 (complex: both parts), small integers
    (-5..5; 0..10 for unsigned types) and a fair coin for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 11, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)).astype(dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


def rand_some_zero(rng, shape, dtype):
    """Like upstream's rand_some_zero: nonzero values with about half of the entries zeroed."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        base = rng.integers(1, 6, size=shape)
    elif np.issubdtype(dtype, np.complexfloating):
        base = 3 * rng.standard_normal(shape) + 3j * rng.standard_normal(shape)
    else:
        base = 3 * rng.standard_normal(shape)
    return np.where(rng.random(shape) < 0.5, 0, base).astype(dtype)


def rand_uniform(rng, shape, dtype, low, high, ints=None, imag=None):
    """Values uniform in [low, high), as upstream's rand_positive / rand_small_positive draw them; each
    module passes its own range. Integer types draw from range(*ints); complex types add an imaginary
    part uniform in [imag[0], imag[1])."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(*ints, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(*imag, shape)).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def shaped_aval(shape, dtype=np.float32):
    """The abstract value (ShapedArray) of an array of this shape and dtype."""
    return jax.core.ShapedArray(shape, np.dtype(dtype))


# Parametrisations shared by the elementwise unary ops (upstream's testOp records for exp, log, cos).
# (input dtype, result dtype): the ops are inexact, so integers promote to the default float.
UNARY_DTYPES = [
    (np.float32, np.float32),
    (np.float16, np.float16),
    (jnp.bfloat16, jnp.bfloat16),
    (np.complex64, np.complex64),
    (np.int32, np.float32),
]
UNARY_SHAPES = [(), (4,), (2, 1, 4), (2, 3, 4), (0, 4), (3, 0)]

# testReduceGrad's (lax_autodiff_test.py) shapes and reduced dims: every dim, one, two, and a dim of size 1; with
# REDUCE_GRAD_IDS, the parametrization of the reductions' backward cases.
REDUCE_GRAD_SHAPES = [((3, 4, 5), None), ((3, 4, 5), 0), ((3, 4, 5), (1, 2)), ((3, 1), 1)]
REDUCE_GRAD_IDS = ["all", "axis0", "axes12", "3x1_axis1"]

# Parametrisations shared by the array creators (upstream's testZerosOnes): shapes as tuples, an int or
# a list, and every dtype.
FILL_SHAPES = [(), (0,), (4,), (3, 4), (2, 0, 3), 5, [2, 3]]
FILL_DTYPES = [np.float32, np.float16, jnp.bfloat16, np.int32, np.int8, np.uint8, np.bool_, np.complex64]

# ---- dtypes and host copies ---------------------------------------------------------------------

_CANON = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.float32),
          np.dtype(np.uint64): np.dtype(np.uint32), np.dtype(np.complex128): np.dtype(np.complex64)}


def canonical_dtype(dtype):
    """The dtype JAX gives a value of this NumPy dtype: 64-bit types become 32-bit ones unless x64 mode
    is on (JAX's default is off)."""
    dtype = np.dtype(dtype)
    return dtype if jax.config.jax_enable_x64 else _CANON.get(dtype, dtype)


def default_float():
    """JAX's default float type: float64 in x64 mode, else float32."""
    return np.dtype(np.float64) if jax.config.jax_enable_x64 else np.dtype(np.float32)


def as_numpy(a):
    """A NumPy copy of a (a jax.Array or NumPy value); bfloat16 is widened, exactly, to float32, since
    NumPy can neither compute with nor compare it."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def wide(a):
    """An exact double-width NumPy copy of a, for references: complex128 for complex types, float64 for
    the other floats (bfloat16 included), int64 for integers and bool."""
    a = as_numpy(a)
    if np.iscomplexobj(a):
        return a.astype(np.complex128)
    return a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a.astype(np.int64)


def tpu_precision(device):
    """lax.Precision.HIGHEST on TPU, where float32 dots default to bfloat16 passes (upstream asks for it
    there), else None (the default precision)."""
    return jax.lax.Precision.HIGHEST if device.platform == "tpu" else None


# ---- tolerances ---------------------------------------------------------------------------------

_BY_NAME = {"float32": np.float32, "float16": np.float16, "bfloat16": jnp.bfloat16, "complex64": np.complex64}


def tolerances(**by_dtype_name):
    """A tolerance table keyed by dtype, e.g. tolerances(float32=1e-6, bfloat16=1e-2)."""
    return {np.dtype(_BY_NAME[name]): tol for name, tol in by_dtype_name.items()}


# Upstream's default tolerance per dtype (jtu.default_tolerance); integers and bool are exact.
DEFAULT_TOL = tolerances(float32=1e-6, float16=1e-3, bfloat16=1e-2, complex64=1e-6)

# ---- checks -------------------------------------------------------------------------------------


def assert_exact(result, expected):
    """result has expected's shape and dtype and exactly its values (bfloat16 compared through float32):
    for functions that only move, select or build values."""
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    np.testing.assert_array_equal(as_numpy(result), as_numpy(expected))


def assert_close(result, expected, tol):
    """result has expected's shape and dtype, and its values within rtol = atol = tol of expected, a
    reference already rounded to that dtype (16-bit floats compared through float32)."""
    expected = np.asarray(expected)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype) == expected.dtype
    np.testing.assert_allclose(as_numpy(result), as_numpy(expected), rtol=tol, atol=tol)


def assert_near_reference(result, reference, dtype, tols):
    """result has the reference's shape and the given dtype, and matches the double-precision reference:
    exactly for integer dtypes, else within rtol = atol = tols[dtype]."""
    dtype, reference = np.dtype(dtype), np.asarray(reference)
    assert result.shape == reference.shape
    assert np.dtype(result.dtype) == dtype
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(np.asarray(result), reference.astype(dtype))
        return
    tol = tols[dtype]
    np.testing.assert_allclose(wide(result), reference, rtol=tol, atol=tol)


def unary_reference(np_fn, x, out_dtype):
    """NumPy's np_fn of x computed in double precision and rounded to the jnp result dtype (upstream's
    promote_like_jnp), so the reference carries no error of its own; inf and nan are expected values."""
    with np.errstate(all="ignore"):
        return np_fn(wide(x)).astype(np.dtype(out_dtype))


def check_unary(result, np_fn, x, out_dtype, device):
    """testOp's check of an elementwise op: the result against unary_reference at the default tolerance
    of its dtype, loosened to 1e-4 on TPU as upstream does for transcendental ops."""
    expected = unary_reference(np_fn, x, out_dtype)
    tol = DEFAULT_TOL[expected.dtype]
    if device.platform == "tpu":
        tol = max(tol, 1e-4)
    assert_close(result, expected, tol)


def assert_filled(result, shape, dtype, value):
    """An array creator's result: the shape (a tuple, an int or a list), the dtype, every entry value."""
    shape = np.empty(shape).shape
    assert result.shape == shape and np.dtype(result.dtype) == np.dtype(dtype)
    host = as_numpy(result)
    np.testing.assert_array_equal(host, np.full(shape, value, np.float32).astype(host.dtype))


def assert_index_pair(result, expected):
    """A (rows, cols) pair of integer index arrays, equal to NumPy's."""
    assert isinstance(result, tuple) and len(result) == 2
    for r, e in zip(result, expected):
        assert r.shape == e.shape and np.issubdtype(r.dtype, np.integer)
        np.testing.assert_array_equal(np.asarray(r), e)
