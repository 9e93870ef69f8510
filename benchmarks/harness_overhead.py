"""Harness overhead: wall time of `runner bench` over a framework's curated set, divided by
(one framework import + the sum of the cases' own durations). Goal: at most 1.3 per CPU cell.

    python benchmarks/harness_overhead.py [--quick] [--framework torch ...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _venvs import CPU_IMAGES, ROOT, venv

from portability_harness.records import store


def import_time(python: Path, module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return float(subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--framework", action="append", choices=sorted(CPU_IMAGES))
    p.add_argument("--quick", action="store_true", help="few warm samples (a harsher ratio: less work per case)")
    args = p.parse_args()
    print(f"{'cell':<12} {'cases':>6} {'wall s':>8} {'import s':>9} {'cases s':>8} {'ratio':>6}")
    for framework in args.framework or sorted(CPU_IMAGES):
        python = venv(framework).python  # built before timing: a one-off cost, not overhead
        imp = import_time(python, framework)
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "runner.cli", "bench", "--image", CPU_IMAGES[framework], "--out", out]
            t0 = time.perf_counter()
            subprocess.run(cmd + ["--quick"] * args.quick, cwd=ROOT, check=True, capture_output=True)
            wall = time.perf_counter() - t0
            cases = store.read(next(Path(out).glob("*.jsonl")).as_posix()).cases
        own = sum(c["duration_s"] for c in cases)
        print(f"{CPU_IMAGES[framework]:<12} {len(cases):>6} {wall:>8.1f} {imp:>9.2f} {own:>8.1f} {wall / (imp + own):>6.2f}")


if __name__ == "__main__":
    main()
