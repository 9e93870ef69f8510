"""The checks of TensorFlow's backward cases (docs/curated-cases.md): a case's gradients against the CPU's float64
gradient of the same inputs, and on the CPU TensorFlow's own finite-difference checker, as upstream checks gradients.

Not a curated module (no test_ prefix): modules import it as `from _gradients import check_gradients`. The harness
(portability_harness.backward) computes the gradients and their float64 reference; this is the case's side.
"""
import numpy as np
import tensorflow as tf
from portability_harness.frameworks.tensorflow_gradients import float64_inputs, positions

# assertAllClose's tolerances per dtype (1e-6, half precision 1e-3, bfloat16 1e-2), for a gradient against the float64
# reference; float64 itself differs from the CPU's only by the order of its sums.
GRAD_TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "complex64": 1e-6, "float64": 1e-12,
            "complex128": 1e-12}


def check_gradients(grads, fn, args, kwargs=None, tol=None, jacobian_tol=1e-5, finite_differences=None):
    """The check of a backward case, after grads = backward(fn, *args, **kwargs): each gradient against the CPU's
    float64 gradient of the same inputs (grads.reference) within rtol = atol = tol (GRAD_TOL for the gradient's dtype
    when not given); on the CPU, also tf.test.compute_gradient of fn in float64, its theoretical Jacobian against the
    numerical one within jacobian_tol, as upstream's gradient tests compare them (compute_gradient_error). That check
    builds the whole numerical Jacobian (two calls of fn per input element), so by default it runs in the cases whose
    gradients are float64 or complex128 only (the same check at every dtype of a parametrization would repeat it);
    finite_differences=True or False decides instead."""
    kwargs = kwargs or {}
    assert len(grads) == len(grads.reference), f"{len(grads)} gradients, {len(grads.reference)} in the reference"
    for g, want in zip(grads, grads.reference):
        t = GRAD_TOL[g.dtype.name] if tol is None else tol
        host = tf.convert_to_tensor(g)
        got = tf.cast(host, tf.float32).numpy() if host.dtype == tf.bfloat16 else host.numpy()
        np.testing.assert_allclose(got, want, rtol=t, atol=t)
    if finite_differences is None:
        finite_differences = all(g.dtype in (tf.float64, tf.complex128) for g in grads)
    if not finite_differences or tf.DeviceSpec.from_string(grads[0].device).device_type != "CPU":
        return
    with tf.device("/CPU:0"):
        args64, kwargs64 = float64_inputs(args, kwargs)
        wrt = positions(args64)

        def of_inputs(*xs):
            filled = list(args64)
            for i, x in zip(wrt, xs):
                filled[i] = x
            return fn(*filled, **kwargs64)

        theoretical, numerical = tf.test.compute_gradient(of_inputs, [args64[i] for i in wrt])
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=jacobian_tol, atol=jacobian_tol)
