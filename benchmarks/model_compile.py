"""What XLA's quick-compile flags buy a TPU-model cell (harness frameworks/xla_quick_compile.py), and whether they
change a verdict: the cell run with XLA's default compilation (PORTABILITY_HARNESS_XLA_QUICK_COMPILE=0) and with
the flags, interleaved, `--pairs` times. Per run: the repeat's wall and its shares (benchmarks/harness_overhead.py's split:
timing, compiling, checks and inputs, waiting), the worker restarts; then, per pair, the cases whose outcome,
category or TPU verdict differ between the two runs (none is the goal), and the slowest cases' first calls both ways.

    python benchmarks/model_compile.py [--image jax-xla-cpu] [--functions 'jax.numpy.*'] [--pairs 1]

Run it on an otherwise idle machine; a whole torch-xla-cpu pair takes about half an hour on two cores.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import SHARES, split  # noqa: E402
from matrix_speed import ROOT, bench  # noqa: E402

from portability_harness.frameworks.xla_quick_compile import OFF  # noqa: E402
from portability_harness.records import store  # noqa: E402

MODEL_IMAGES = ("tf-xla-cpu", "jax-xla-cpu", "torch-xla-cpu")


def verdicts(path: Path) -> dict[str, tuple]:
    """Each case's outcome, category and TPU verdict."""
    return {c["case_id"]: (c["outcome"], c.get("category"), (c.get("tpu") or {}).get("verdict"))
            for c in store.read(str(path)).cases}


def first_calls(path: Path) -> dict[str, float]:
    return {c["case_id"]: c.get("cold_s") or 0.0 for c in store.read(str(path)).cases}


def run(image: str, functions: list[str], out: Path, quick: bool) -> tuple[float, Path]:
    env = dict(os.environ, **({} if quick else {OFF: "0"}))
    extra = [a for f in functions for a in ("--functions", f)]
    wall = bench(ROOT, image, out, *extra, env=env)
    (path,) = out.glob("*.jsonl")
    return wall, path


def describe(name: str, wall: float, path: Path) -> None:
    parts = split(path)
    footer = store.read(str(path)).footer or {}
    shares = " ".join(f"{k} {sum(parts[p] for p in v) / parts['wall']:.0%}" for k, v in SHARES.items()) if parts else ""
    print(f"{name:<8} command {wall:7.1f} s  repeat {parts['wall'] if parts else float('nan'):7.1f} s  "
          f"cases {int(parts['cases']) if parts else 0}  {shares}  restarts {footer.get('worker_restarts')}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--image", default="jax-xla-cpu", choices=MODEL_IMAGES)
    p.add_argument("--functions", action="append", default=[])
    p.add_argument("--pairs", type=int, default=1)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(1, args.pairs + 1):
            full_wall, full = run(args.image, args.functions, Path(tmp) / f"full-{i}", quick=False)
            quick_wall, quick = run(args.image, args.functions, Path(tmp) / f"quick-{i}", quick=True)
            print(f"pair {i}: {args.image}")
            describe("default", full_wall, full)
            describe("quick", quick_wall, quick)
            a, b = verdicts(full), verdicts(quick)
            changed = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            print(f"  cases with another outcome, category or TPU verdict: {len(changed)} of {len(a.keys() | b.keys())}")
            for k in changed:
                print(f"    {k}: {a.get(k)} -> {b.get(k)}")
            fa, fb = first_calls(full), first_calls(quick)
            print("  slowest first calls (default -> quick, s):")
            for k in sorted(fa, key=fa.get, reverse=True)[:8]:
                print(f"    {fa[k]:8.2f} -> {fb.get(k, float('nan')):8.2f}  {k}")


if __name__ == "__main__":
    main()
