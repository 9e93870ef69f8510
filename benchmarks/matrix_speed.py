"""How long a CPU cell takes, and how well two of its repeats agree.

For each CPU cell of the current profile:
- the wall time of one steady repeat, of the same cell in quick mode (one pass of every case: the floor),
  and their ratio;
- the stability of two steady repeats run back to back: the median |log(warm median ratio)| over the cases
  whose warm median is above 100 us on both, by each estimator the records carry (the median; the median
  divided by the host-speed calibration measured before the case, where records have it; the minimum);
  and the share of functions `runner compare` calls unchanged;
- the set-up time of the cell's venv from an empty venv cache (packages may come from the installer's own
  download cache) and from a warm one.

    python benchmarks/matrix_speed.py [--framework jax ...] [--functions 'jax.numpy.*' ...] [--skip-setup]
    python benchmarks/matrix_speed.py --checkout /path/to/another/checkout     # measure another version

Run it on an otherwise idle machine: it measures the machine as much as the runner.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CPU_IMAGES = {"torch": "torch-cpu", "tensorflow": "tf-cpu", "jax": "jax-cpu"}
FLOOR_S = 100e-6  # cases faster than this are left out of the stability figure (timer and dispatch noise)


def _path(checkout: Path) -> str:
    """The checkout's runner and its own harness first on the path (another version may be measured)."""
    return f"{checkout}:{checkout / 'harness'}"


def bench(checkout: Path, image: str, out: Path, *extra: str, env: dict | None = None) -> float:
    """Wall time of one `runner bench` of the image into `out` (raises with its stderr on failure)."""
    cmd = [sys.executable, "-m", "runner.cli", "bench", "--image", image, "--backend", "local", "--out", str(out),
           *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True,
                          env=dict(env or os.environ, PYTHONPATH=_path(checkout), COLUMNS="200"))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr[-1500:]}")
    return wall


def cases(folder: Path) -> dict[str, dict]:
    out = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("record") == "case" and r.get("outcome") == "passed" and r.get("warm_median_s"):
                out[r["case_id"]] = r
    return out


def estimators(c: dict) -> dict[str, float | None]:
    samples = c.get("warm_samples_s") or []
    cal = c.get("calibration_s")
    return {"median": c["warm_median_s"],
            "median / calibration": c["warm_median_s"] / cal if cal else None,
            "minimum": min(samples) if samples else None}


def stability(a: dict[str, dict], b: dict[str, dict]) -> tuple[int, dict[str, float | None], float]:
    """(cases compared, median |log ratio| per estimator, median signed log ratio of the medians)."""
    both = [k for k in a if k in b and a[k]["warm_median_s"] > FLOOR_S and b[k]["warm_median_s"] > FLOOR_S]
    figures, signed = {}, []
    for name in estimators(next(iter(a.values()))) if a else ():
        logs = []
        for k in both:
            x, y = estimators(a[k])[name], estimators(b[k])[name]
            if x and y:
                logs.append(math.log(y / x))
        figures[name] = statistics.median(abs(v) for v in logs) if logs else None
        if name == "median":
            signed = logs
    return len(both), figures, statistics.median(signed) if signed else float("nan")


def unchanged_share(checkout: Path, a: Path, b: Path) -> tuple[int, int]:
    """(functions `runner compare` calls unchanged, functions compared) for two runs of one cell, by the
    checkout's own compare (the same computation as `runner compare a b`)."""
    code = ("import sys; from pathlib import Path; from runner.report import compare, load; "
            "a, b = (load.load([Path(p)], samples=True) for p in sys.argv[1:]); "
            "ch = compare.compare(a, b).latency['change']; print((ch == 'no change').sum(), len(ch))")
    proc = subprocess.run([sys.executable, "-c", code, str(a), str(b)], cwd=checkout, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=_path(checkout)))
    if proc.returncode != 0:
        raise SystemExit(f"compare failed: {proc.stderr[-1500:]}")
    same, compared = proc.stdout.split()
    return int(same), int(compared)


def setup_times(checkout: Path, image: str) -> tuple[float, float]:
    """Seconds to realise the image's venv from an empty venv cache, then again with it warm."""
    with tempfile.TemporaryDirectory(prefix="speed-venvs-") as venvs:
        env = dict(os.environ, RUNNER_VENV_DIR=venvs)
        code = ("import sys, time; from runner.project import Project; from runner.plan import Options, plan; "
                "from runner.backends.local import LocalBackend; p = Project.find(); "
                f"(c,) = plan(p, Options(images=({image!r},), backend='local', compilers=('eager',))); "
                "t = time.perf_counter(); LocalBackend(p.harness_dir).prepare(c, print); "
                "print('SECONDS', time.perf_counter() - t)")
        times = []
        for _ in range(2):
            proc = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True,
                                  env=dict(env, PYTHONPATH=_path(checkout)))
            if proc.returncode != 0:
                raise SystemExit(f"building the {image} venv failed: {proc.stderr[-1500:]}")
            times.append(float(proc.stdout.split("SECONDS")[-1]))
    return times[0], times[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--framework", action="append", choices=sorted(CPU_IMAGES))
    p.add_argument("--functions", action="append", default=[], help="glob over sampled names (default: all)")
    p.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose runner is measured")
    p.add_argument("--skip-setup", action="store_true", help="leave out the venv set-up times")
    args = p.parse_args()
    extra = [a for f in args.functions for a in ("--functions", f)]
    print(f"checkout {args.checkout} ({subprocess.run(['git', '-C', str(args.checkout), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()})")
    print(f"{'cell':<10} {'steady s':>9} {'quick s':>8} {'ratio':>6} {'cases':>6} "
          f"{'|log| median':>13} {'|log| med/cal':>14} {'|log| min':>10} {'signed':>7} {'unchanged':>10}")
    for framework in args.framework or ["torch", "tensorflow", "jax"]:
        image = CPU_IMAGES[framework]
        with tempfile.TemporaryDirectory(prefix="speed-") as tmp:
            base = Path(tmp)
            # An untimed quick pass first: the first run of a framework after another pays for reading its
            # libraries from disk, which would flatter the ratio (the quick pass ran first).
            bench(args.checkout, image, base / "warm", "--quick", *extra)
            quick = bench(args.checkout, image, base / "quick", "--quick", *extra)
            steady_a = bench(args.checkout, image, base / "a", *extra)
            steady_b = bench(args.checkout, image, base / "b", *extra)
            n, figures, signed = stability(cases(base / "a"), cases(base / "b"))
            same, compared = unchanged_share(args.checkout, base / "a", base / "b")

            def pct(v):
                return f"{100 * v:.1f}%" if v is not None else "-"

            print(f"{image:<10} {steady_a:>9.1f} {quick:>8.1f} {steady_a / quick:>6.2f} {n:>6} "
                  f"{pct(figures.get('median')):>13} {pct(figures.get('median / calibration')):>14} "
                  f"{pct(figures.get('minimum')):>10} {100 * signed:>6.1f}% {same:>4}/{compared:<5}", flush=True)
            print(f"{'':<10} second steady repeat {steady_b:.1f} s", flush=True)
        if not args.skip_setup:
            empty, warm = setup_times(args.checkout, image)
            print(f"{image:<10} venv set-up: {empty:.1f} s from an empty venv cache, {warm:.2f} s warm", flush=True)


if __name__ == "__main__":
    main()
