"""Timing accuracy: `bench`'s protocol against each framework's reference timer, measured in the same process,
rounds of the two alternating. Goal: within 5%, and a no-op under 10 microseconds.

The goal is judged on the minimum, what runs are compared by (docs/method.md, "Comparing runs"): our fastest sample
against the reference's fastest block (its per-call mean over a block). The medians are printed beside it: a
reference block's mean takes in the host's slow calls where a median of single calls does not, so on a host
whose speed moves the two medians differ by that host's noise (the reference's own spread between rounds).

    python benchmarks/timing_accuracy.py        # runs itself inside each CPU cell's venv

References: torch.utils.benchmark.Timer.blocked_autorange for PyTorch; for JAX and TensorFlow, timeit
in blocks with the same sync the harness uses (block_until_ready, .numpy()).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROUNDS = 5


def reference_timeit(call, sync, min_run_time: float = 1.0) -> list[float]:
    """Per-call times of blocks of calls, each block long enough to hide the clock's cost."""
    timer = timeit.Timer(lambda: sync(call()))
    number, block_s = timer.autorange()  # autorange already timed one block of `number` calls
    blocks = max(5, int(min_run_time / max(1e-9, block_s)))
    return [t / number for t in timer.repeat(repeat=min(blocks, 50), number=number)]


def ops(framework: str):
    """(label, fn, args) for a handful of CPU ops, inputs already placed."""
    if framework == "torch":
        import torch

        a, b = torch.randn(512, 512), torch.randn(512, 512)
        v = torch.randn(1_000_000)
        return [("torch.mm 512x512", torch.mm, (a, b)), ("torch.exp 1e6", torch.exp, (v,)),
                ("no-op", lambda: None, ())]
    if framework == "jax":
        import jax
        import jax.numpy as jnp
        import numpy as np

        a = jax.device_put(np.random.rand(512, 512).astype(np.float32))
        v = jax.device_put(np.random.rand(1_000_000).astype(np.float32))
        return [("jax.numpy.dot 512x512", jnp.dot, (a, a)), ("jax.numpy.exp 1e6", jnp.exp, (v,)),
                ("no-op", lambda: None, ())]
    import tensorflow as tf

    a = tf.random.normal((512, 512))
    v = tf.random.normal((1_000_000,))
    return [("tf.linalg.matmul 512x512", tf.linalg.matmul, (a, a)), ("tf.math.exp 1e6", tf.math.exp, (v,)),
            ("no-op", lambda: None, ())]


def inner(framework: str) -> None:
    from portability_harness.frameworks import adapter_for
    from portability_harness.timing import Policy, measure

    # On the CPUs a cell's worker gets (matrix.toml's default, all but one), before the framework sizes its
    # thread pools: what a run measures.
    available = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, available[1:] or available)
    adapter = adapter_for(framework)
    os.environ.update(adapter.environment("cpu", "steady"))
    adapter.setup("cpu", "steady")
    for label, fn, args in ops(framework):
        with adapter.scope():
            call = adapter.prepare(fn, args, {})  # eager: the call as written
            reference = reference_timer(framework, call, adapter.sync)
            ours, refs = [], []
            # Alternate the two timers so that drift of a shared machine (clock, neighbours) hits both.
            for _ in range(ROUNDS):
                ours.append(measure(call, adapter.sync, Policy())[1].warm_samples_s)
                refs.append(reference())
        goal = "< 10 us" if label == "no-op" else "within 5%"
        mine, ref = min(min(s) for s in ours), min(min(b) for b in refs)
        med, ref_med = statistics.median(statistics.median(s) for s in ours), statistics.median(
            statistics.median(b) for b in refs)
        spread = max(statistics.median(b) for b in refs) / min(statistics.median(b) for b in refs)
        ok = med < 10e-6 if label == "no-op" else abs(mine / ref - 1) <= 0.05
        print(f"{label:<26} minimum: bench {mine * 1e6:>9.2f} us  reference {ref * 1e6:>9.2f} us  ratio "
              f"{mine / ref:>5.3f}   median: {med * 1e6:>9.2f} / {ref_med * 1e6:>9.2f} us  ratio {med / ref_med:>5.3f}"
              f"  reference spread {spread:>5.3f}   goal {goal}: {'ok' if ok else 'MISSED'}", flush=True)


def reference_timer(framework: str, call, sync):
    if framework == "torch":
        import torch
        from torch.utils.benchmark import Timer

        # Timer defaults to one thread; the harness runs with torch's own thread count.
        timer = Timer("call()", globals={"call": call}, num_threads=torch.get_num_threads())
        return lambda: timer.blocked_autorange(min_run_time=0.3).times
    return lambda: reference_timeit(call, sync, min_run_time=0.3)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--inner":
        inner(sys.argv[2])
        return
    sys.path.insert(0, str(HERE))
    from _venvs import venv

    for framework in ("torch", "jax", "tensorflow"):
        environment = venv(framework)
        env = dict(environment.variables(), TF_CPP_MIN_LOG_LEVEL="2")  # the harness on PYTHONPATH
        subprocess.run([environment.python, __file__, "--inner", framework], env=env, check=True)


if __name__ == "__main__":
    main()
