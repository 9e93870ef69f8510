"""jax.interpreters.partial_eval.PartialVal: cases adapted from tests/core_test.py (its module-level PartialVal.unknown(ShapedArray(...)) values and test_dropvar_avals' PartialVal.unknown; test_jvp_linearized, where jax.linearize partially evaluates with a known primal and an unknown tangent) and tests/api_test.py (PartialVal.known / unknown, is_known, get_known, get_aval as used by partial evaluation). UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

PartialVal is a class (a tuple (aval_or_None, const_or_None)); bench times its construction from that
pair, which returns a Python object, so the harness times it eagerly."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _support import shaped_aval
from jax.interpreters import partial_eval as pe

pytestmark = pytest.mark.function("jax.interpreters.partial_eval.PartialVal", decile=50, top20=False,
                                  paper_label="jax._src.interpreters.partial_eval",
                                  backward="builds a partial-evaluation value (a Python pair), not an array: nothing "
                                           "to differentiate")

UPSTREAM_TESTS = {
    "tests/core_test.py::CoreTest::test_jvp_linearized": ["test_partial_val_in_partial_eval"],
    "tests/core_test.py::CoreTest::test_dropvar_avals": [
        "test_partial_val_unknown", "test_partial_val_known_array", "test_partial_val_known_python_scalar",
        "test_partial_val_unpacks_as_pair"],
}


@pytest.mark.parametrize("shape,dtype", [((), np.float32), ((3,), np.int32), ((2, 4), np.float16), ((0, 3), np.bool_)])
def test_partial_val_unknown(bench, device, shape, dtype):
    aval = shaped_aval(shape, dtype)
    pv = bench(pe.PartialVal, (aval, None))
    assert isinstance(pv, pe.PartialVal) and isinstance(pv, tuple) and len(pv) == 2
    assert not pv.is_known()
    assert pv.get_known() is None
    assert pv.get_aval() == aval
    assert pv == pe.PartialVal.unknown(aval)


@pytest.mark.parametrize("shape,dtype", [((), np.float32), ((4,), np.int32), ((2, 3), jnp.bfloat16)])
def test_partial_val_known_array(bench, device, shape, dtype):
    const = jax.device_put(np.ones(shape, dtype), device)
    pv = bench(pe.PartialVal, (None, const))
    assert pv.is_known()
    assert pv.get_known() is const
    aval = pv.get_aval()
    assert tuple(aval.shape) == shape and np.dtype(aval.dtype) == np.dtype(dtype)
    assert pv == pe.PartialVal.known(const)


def test_partial_val_known_python_scalar(bench, device):
    pv = bench(pe.PartialVal, (None, 3.0))
    assert pv.is_known() and pv.get_known() == 3.0
    aval = pv.get_aval()
    assert aval.shape == () and np.issubdtype(aval.dtype, np.floating)


def test_partial_val_unpacks_as_pair(bench, device):
    aval = shaped_aval((5,), np.float32)
    pv = bench(pe.PartialVal, (aval, None))
    known_aval, const = pv
    assert known_aval is aval and const is None
    assert pv[0] is aval and pv[1] is None


def test_partial_val_in_partial_eval(bench, device):
    # Partial evaluation with one known and one unknown input: known work is done now, the rest is staged.
    x = jax.device_put(np.array([1.0, 2.0, 3.0], np.float32), device)
    known = bench(pe.PartialVal, (None, x))
    unknown = pe.PartialVal.unknown(shaped_aval((3,), np.float32))

    def f(a, b):
        return jnp.sin(a) * b

    # jax.linearize partially evaluates the JVP: primal known, tangent unknown.
    y, f_jvp = jax.linearize(lambda a: f(a, known.get_known()), x)
    np.testing.assert_allclose(np.asarray(y), np.sin(np.asarray(x)) * np.asarray(x), rtol=1e-6)
    t = f_jvp(jnp.ones(3, np.float32))
    np.testing.assert_allclose(np.asarray(t), np.cos(np.asarray(x)) * np.asarray(x), rtol=1e-6)
    assert known.is_known() and not unknown.is_known()
    assert known.get_aval().shape == unknown.get_aval().shape
