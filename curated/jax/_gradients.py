"""The checks of JAX's backward cases (docs/curated-cases.md): a case's gradients against the CPU's float64 gradient of
the same inputs, and on the CPU JAX's own finite-difference checker, as upstream checks gradients.

Not a curated module (no test_ prefix): modules import it as `from _gradients import check_gradients`. The harness
(portability_harness.backward) computes the gradients and their float64 reference; this is the case's side.
"""
import jax
import jax.numpy as jnp
import numpy as np
from _support import wide
from jax.test_util import check_grads
from portability_harness.backward import cotangent
from portability_harness.frameworks.jax_gradients import closed, cotangents, float64_inputs, x64

# Upstream's default tolerance per dtype (jtu.default_tolerance), for a gradient against the float64 reference.
GRAD_TOL = {np.dtype(np.float16): 1e-3, np.dtype(jnp.bfloat16): 1e-2, np.dtype(np.float32): 1e-6,
            np.dtype(np.complex64): 1e-6, np.dtype(np.float64): 1e-15, np.dtype(np.complex128): 1e-15}


def check_gradients(grads, fn, args, kwargs=None, tol=None, order=1, eps=None, finite_differences=None):
    """The check of a backward case, after grads = backward(fn, *args, **kwargs): each gradient against the CPU's
    float64 gradient of the same inputs (grads.reference) within rtol = atol = tol (upstream's default tolerance for
    the gradient's dtype when not given); on the CPU, also jax.test_util.check_grads of fn in float64, reverse mode,
    to `order` (upstream's testOpGrad: check_grads(op, args, order, ["rev"], ...), its eps where it sets one); on
    another device with order 2, the device's second derivative against the CPU's float64 one. The finite-difference
    check widens the inputs to float64 whatever the case's dtype, so by default it runs in the float32 and complex64
    cases (and 64-bit ones) only, not again in their 16-bit twins; finite_differences=True or False decides instead."""
    kwargs = kwargs or {}
    assert len(grads) == len(grads.reference), f"{len(grads)} gradients, {len(grads.reference)} in the reference"
    for g, want in zip(grads, grads.reference):
        t = GRAD_TOL[np.dtype(g.dtype)] if tol is None else tol
        np.testing.assert_allclose(wide(g), want, rtol=t, atol=t)
    platform = next(iter(grads[0].devices())).platform
    if finite_differences is None:
        finite_differences = all(np.dtype(g.dtype).itemsize >= 4 for g in grads)
    if platform == "cpu" and finite_differences:
        with x64(), jax.default_device(jax.devices("cpu")[0]):
            args64, kwargs64 = float64_inputs(args, kwargs)
            f, primals = closed(fn, args64, kwargs64)
            check_grads(f, tuple(primals), order, modes=["rev"], eps=eps)
    elif order >= 2:
        with x64(), jax.default_device(jax.devices("cpu")[0]):
            want = [np.asarray(w) for w in _second_derivative(fn, *float64_inputs(args, kwargs))]
        for g, w in zip(_second_derivative(fn, args, kwargs), want):
            t = GRAD_TOL[np.dtype(g.dtype)] if tol is None else tol
            np.testing.assert_allclose(wide(g), w, rtol=t, atol=t)


def _second_derivative(fn, args, kwargs):
    """The derivative of <gradient, v> with respect to the inputs, v fixed: a Hessian-vector product at the harness's
    cotangents (the reverse-over-reverse derivative upstream's check_grads of order 2 checks)."""
    f, primals = closed(fn, args, kwargs)

    def gradient(*p):
        out, vjp = jax.vjp(f, *p)
        return vjp(cotangents(out, cotangent))

    first, vjp2 = jax.vjp(gradient, *primals)
    vs = tuple(jnp.asarray(cotangent(1000 + i, np.shape(g), jnp.iscomplexobj(g)), dtype=g.dtype)
               for i, g in enumerate(first))
    return vjp2(vs)
