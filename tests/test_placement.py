"""TensorFlow's placement check, run in the real TensorFlow of the tf-cpu venv: an op that TensorFlow's soft
placement ran on the CPU inside a scope for an accelerator is a `fallback` naming where it ran, never a pass; an op
that stayed on the cell's device is none."""
from __future__ import annotations

import json
import subprocess

import pytest

pytestmark = pytest.mark.slow

SCRIPT = """
import json
import tensorflow as tf
from portability_harness.frameworks import adapter_for

a = adapter_for("tensorflow")
a.setup("cpu", "steady")
with a.scope():
    on_cpu = tf.math.add(tf.ones(3), tf.ones(3))
stayed = a.fallback(on_cpu, None)
# The same output judged for a cuda cell: soft placement put it on the CPU although the scope asked for the GPU.
a.device_kind, a.handle = "cuda", "/device:GPU:0"
with tf.device(a.handle):
    moved = tf.math.add(tf.ones(3), tf.ones(3))
print(json.dumps({"stayed": stayed, "moved": a.fallback(moved, None), "soft": tf.config.get_soft_device_placement()}))
"""


def test_an_op_soft_placement_ran_on_the_cpu_inside_a_gpu_scope_is_a_fallback(venv_for):
    env = venv_for("tf-cpu")
    proc = subprocess.run([env.python, "-c", SCRIPT], capture_output=True, text=True, timeout=600,
                          env=env.variables())
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["soft"] is True  # the setting under which TensorFlow moves an op silently
    assert found["stayed"] is None
    assert found["moved"] == {"devices": ["/job:localhost/replica:0/task:0/device:CPU:0"]}


FACTORY = """
import json
import torch
from torch.testing._internal.opinfo.core import SampleInput
from portability_harness.census.torch import _moved

drawn = SampleInput(torch.ones(2), kwargs={"device": "cpu", "dtype": torch.float32})
moved = _moved(torch, drawn, torch.device("meta"))  # a device other than the CPU the samples are drawn for
print(json.dumps({"input": str(moved.input.device), "kwarg": str(moved.kwargs["device"]),
                  "drawn": str(drawn.kwargs["device"])}))
"""


def test_a_census_factory_op_creates_on_the_cells_device(venv_for):
    env = venv_for("torch-cpu")
    proc = subprocess.run([env.python, "-c", FACTORY], capture_output=True, text=True, timeout=600,
                          env=env.variables())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"input": "meta", "kwarg": "meta", "drawn": "cpu"}


HOST_OUTPUT = """
import json
import torch
from portability_harness import case_kinds
from portability_harness.frameworks import adapter_for

a = adapter_for("torch")
a.setup("cpu", "steady")
a.device_kind, a.handle = "cuda", torch.device("cuda", 0)  # judged as a GPU cell's outputs are (none is made here)
on_host, elsewhere = a.fallback(torch.ones(3), None), a.fallback(torch.ones(3, device="meta"), None)
print(json.dumps({"on_host": on_host, "meant": case_kinds.expected_on_host(on_host, True),
                  "unmarked": case_kinds.expected_on_host(on_host, False),
                  "elsewhere": case_kinds.expected_on_host(elsewhere, True)}))
"""


def test_a_host_output_the_case_means_is_no_fallback_and_any_other_device_still_is(venv_for):
    """On the H100, Tensor.to("cpu") and the gradient of a host input were filed as fallbacks ("ran off the device:
    cpu"): the case's `host_output` marker says the host is where its output belongs."""
    env = venv_for("torch-cpu")
    proc = subprocess.run([env.python, "-c", HOST_OUTPUT], capture_output=True, text=True, timeout=600,
                          env=env.variables())
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["on_host"] == found["unmarked"] == {"devices": ["cpu"]}
    assert found["meant"] is None
    assert found["elsewhere"] == {"devices": ["meta"]}
