"""jax.core.get_aval: cases adapted from tests/core_test.py (CoreTest.test_str_aval's abstract values: shape, dtype and weak type of arrays, NumPy values and Python scalars; test_tracer_reprs: the avals of tracers) and tests/api_test.py (avals of tracers seen inside jit/vmap). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

get_aval returns an abstract value, not an array, so the harness times it eagerly. JAX 0.10 removed
jax.core.get_aval (use jax.typeof); there the harness records missing_api."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.core.get_aval", decile=60, top20=False,
                                  paper_label="jax._src.core.get_aval",
                                  backward="returns an abstract value (shape and dtype), not an array: nothing to "
                                           "differentiate")

UPSTREAM_TESTS = {
    "tests/core_test.py::CoreTest::test_str_aval": [
        "test_get_aval_device_array", "test_get_aval_numpy_array", "test_get_aval_python_scalar",
        "test_get_aval_weak_typed_result"],
    "tests/core_test.py::CoreTest::test_tracer_reprs": ["test_get_aval_of_tracer"],
}


def _check_aval(aval, shape, dtype, weak_type=False):
    # Every aval of an array value is a ShapedArray (ConcreteArray, in older versions, subclasses it).
    assert isinstance(aval, jax.core.ShapedArray)
    assert tuple(aval.shape) == tuple(shape)
    assert np.dtype(aval.dtype) == np.dtype(dtype)
    assert bool(aval.weak_type) == weak_type
    assert aval.ndim == len(shape) and aval.size == int(np.prod(shape, dtype=np.int64))


@pytest.mark.parametrize("shape,dtype", [
    ((), np.float32), ((4,), np.int32), ((2, 3), np.float16), ((2, 3), jnp.bfloat16),
    ((0, 4), np.complex64), ((1, 2, 3), np.bool_), ((5,), np.uint8),
])
def test_get_aval_device_array(bench, device, shape, dtype):
    x = jax.device_put(np.zeros(shape, dtype), device)
    aval = bench(jax.core.get_aval, x)
    _check_aval(aval, shape, dtype)


@pytest.mark.parametrize("value,dtype", [(1, np.int32), (1.5, np.float32), (True, np.bool_), (1 + 2j, np.complex64)])
def test_get_aval_python_scalar(bench, device, value, dtype):
    # Python ints/floats/complex are weakly typed; bool is not. Types are the canonical 32-bit ones
    # (with 64-bit types disabled, JAX's default).
    if jax.config.jax_enable_x64:
        pytest.skip("the canonical scalar types are 64-bit in x64 mode")
    aval = bench(jax.core.get_aval, value)
    _check_aval(aval, (), dtype, weak_type=not isinstance(value, bool))


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float16])
def test_get_aval_numpy_array(bench, device, dtype):
    # NumPy arrays are strongly typed, and 32-bit-or-narrower types are kept as they are.
    x = np.ones((3, 2), dtype)
    aval = bench(jax.core.get_aval, x)
    _check_aval(aval, (3, 2), dtype)


def test_get_aval_weak_typed_result(bench, device):
    # jnp ops on Python scalars produce weakly typed arrays, and the aval says so.
    x = jnp.asarray(2.0) * 3
    aval = bench(jax.core.get_aval, x)
    _check_aval(aval, (), np.float32, weak_type=True)


def test_get_aval_of_tracer(bench, device):
    # Inside a trace the aval of a tracer is its abstract shape/dtype: the one jax.eval_shape reports.
    captured = {}

    def f(x):
        captured["tracer"] = x
        return x * 2

    x = np.zeros((4, 3), np.float32)
    jax.make_jaxpr(f)(x)
    aval = bench(jax.core.get_aval, captured["tracer"])
    _check_aval(aval, (4, 3), np.float32)
    assert not hasattr(aval, "val")  # an abstract (not concrete) value
    spec = jax.eval_shape(f, x)
    assert spec.shape == aval.shape and spec.dtype == aval.dtype
