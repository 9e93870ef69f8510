"""XLA's CPU compiler set for quick compiles in the TPU model's cells (device kind xla-cpu), where it changes no verdict.

A model cell compiles every op it meets, once per shape and dtype, as a TPU does, and compiling is most of its wall.
Its question is which ops run the way a TPU runs them and whether each case's checks pass, not how fast XLA's CPU
code is. Two kinds of flag make an op compile sooner:
- LLVM's optimisations off (LLVM): the same code, less optimised, so the arithmetic is what the program says either
  way (XLA's fast-math setting stays off);
- XLA's legacy emitters instead of its MLIR fusion emitters (EMITTERS): other code for a fusion, which can round
  otherwise.
Each framework gets them where a whole model cell's every case kept its outcome, category and TPU verdict with
them, and no case ran much slower (2-core machine, 2026-12-01; docs/benchmarks.md):
- jax-xla-cpu (jaxlib 0.10.2): 240 s at XLA's defaults, 246 with LLVM's alone, 174 with both; no case changed;
- tf-xla-cpu (TensorFlow 2.21): both, since TensorFlow's model cell began (six SVDs 13-16 s, 2-3.5 with them);
  146 s with LLVM's alone, 92 with both;
- torch-xla-cpu (torch_xla 2.9) none: LLVM's alone let an unoptimised loop run 20 times slower
  (torch/test_distributions_multinomial.py::test_multinomial_large 9 s, then 179), and with the legacy emitters too,
  their fused erf gave GELU(-40) = 0 where XLA's default gives -3.6e-6, which changed a verdict
  (torch/test_gelu.py::test_gelu_special_values fails its check at XLA's default and passed).

An XLA that does not know a flag aborts the process, and an old one may run the unoptimised code far slower
(TensorFlow 2.11: XLA's reduce-window loops 50 times slower, a 1000 x 1000 cumprod 16 s instead of 0.3), so the
flags are given only from the releases they were verified on. The header's framework facts name the XLA_FLAGS a
model cell ran with; PORTABILITY_HARNESS_XLA_QUICK_COMPILE=0 in the harness's environment (a local venv's or an
existing environment's: the host's variables reach it) leaves them out, to see a verdict under XLA's default
compilation (benchmarks/model_compile.py compares the two).
"""
from __future__ import annotations

import os
import re
from importlib import metadata
from typing import Dict, NamedTuple, Optional, Tuple

OFF = "PORTABILITY_HARNESS_XLA_QUICK_COMPILE"  # "0": no quick-compile flags
LLVM = ("--xla_backend_optimization_level=0", "--xla_llvm_disable_expensive_passes=true")
EMITTERS = ("--xla_cpu_use_fusion_emitters=false",)


class Verified(NamedTuple):
    distributions: Tuple[Tuple[str, Tuple[int, int]], ...]  # what carries the framework's XLA, from which release
    flags: Tuple[str, ...]


VERIFIED: Dict[str, Verified] = {
    "tensorflow": Verified((("tensorflow", (2, 21)), ("tensorflow-cpu", (2, 21))), EMITTERS + LLVM),
    "jax": Verified((("jaxlib", (0, 10)),), EMITTERS + LLVM),
}


def _release(distribution: str) -> Optional[Tuple[int, int]]:
    try:
        numbers = re.findall(r"\d+", metadata.version(distribution))[:2]
    except metadata.PackageNotFoundError:
        return None
    return (int(numbers[0]), int(numbers[1])) if len(numbers) == 2 else None


def flags(framework: str) -> Tuple[str, ...]:
    """The quick-compile flags of `framework` where this environment's XLA of it is of a release they were verified
    on; none where it is not."""
    verified = VERIFIED.get(framework)
    for distribution, first in verified.distributions if verified else ():
        release = _release(distribution)
        if release is not None:
            return verified.flags if release >= first else ()
    return ()


def environment(framework: str) -> Dict[str, str]:
    """XLA_FLAGS for a model cell of `framework`: what the environment already sets, then its quick-compile flags;
    nothing where it has none here, or where they are turned off."""
    found = () if os.environ.get(OFF) == "0" else flags(framework)
    return {"XLA_FLAGS": " ".join([os.environ.get("XLA_FLAGS", ""), *found]).strip()} if found else {}
