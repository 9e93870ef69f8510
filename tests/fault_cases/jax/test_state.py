"""Two cases in file order: the first fails as not_implemented, which makes the worker read JAX's declared support
(its test modules, imported with jax_enable_x64 on) to classify it; the second checks that the read left JAX as the
cell set it up. Run only by tests/test_isolation.py."""
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytestmark = pytest.mark.function("jax.numpy.add", decile=100, top20=True)


def test_a_support_failure(bench, device):
    raise NotImplementedError("this operation is not implemented on this device")


def test_x64_is_still_off_after_the_read(bench, device):
    assert "portability_harness.declared.jax" in sys.modules, "declared support was not read in this worker"
    assert not jax.config.jax_enable_x64
    x = jax.device_put(np.ones(3, np.float32), device)
    result = bench(jnp.add, x, 1.0)
    assert result.dtype == jnp.float32 and jnp.asarray(1.0).dtype == jnp.float32
