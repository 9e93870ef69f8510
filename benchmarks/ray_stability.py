"""Do the Ray processes of a node disturb timing? The same cell, two steady repeats run locally and two run as
Ray tasks on a node of a cluster on this machine (cluster/local.py: a head and one cell:cpu worker), each
pair's agreement by the stability figure of benchmarks/matrix_speed.py (the median |log ratio| of warm
medians between two repeats, cases above 100 us), and the agreement between a local and a Ray repeat.

    python benchmarks/ray_stability.py [--image jax-cpu] [--functions 'jax.numpy.*']
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "cluster"))
from local import LocalCluster  # noqa: E402
from matrix_speed import ROOT, cases, stability  # noqa: E402


def run(out: Path, env: dict, image: str, functions: list[str], *engine: str) -> float:
    cmd = [sys.executable, "-m", "runner.cli", "bench", "--image", image, "--backend", "local", "--out", str(out),
           *(a for f in functions for a in ("--functions", f)), *engine]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(env, COLUMNS="200"))
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr[-1500:]}")
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--image", default="jax-cpu")
    p.add_argument("--functions", action="append", default=[])
    args = p.parse_args()
    functions = args.functions or ["jax.numpy.*"]
    with tempfile.TemporaryDirectory(prefix="ray-stability-") as tmp:
        base = Path(tmp)
        walls = {}
        for name in ("local-a", "local-b"):
            walls[name] = run(base / name, dict(os.environ), args.image, functions)
        with LocalCluster() as cluster:
            cluster.add_worker({"cell:cpu": 1})
            cluster.wait_for("cell:cpu", 1)
            for name in ("ray-a", "ray-b"):
                walls[name] = run(base / name, cluster.env, args.image, functions, "--engine", "ray", "--address",
                                  cluster.address)
        print(f"{args.image} {' '.join(functions)}: median |log ratio| of warm medians, cases above 100 us")
        for a, b in (("local-a", "local-b"), ("ray-a", "ray-b"), ("local-a", "ray-a"), ("local-b", "ray-b")):
            n, figures, signed = stability(cases(base / a), cases(base / b))
            print(f"  {a:>8} vs {b:<8} {n:>5} cases  median {100 * figures['median']:5.1f}%  "
                  f"per host speed {100 * figures['median / calibration']:5.1f}%  minimum {100 * figures['minimum']:5.1f}%"
                  f"  signed {100 * signed:+5.1f}%")
        print("  wall: " + ", ".join(f"{k} {v:.0f} s" for k, v in walls.items()))


if __name__ == "__main__":
    main()
