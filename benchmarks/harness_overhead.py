"""Where a repeat's wall time goes: per CPU cell and repeat, the repeat's wall split into the worker's start-up
and framework import, collection, per-case set-up (pytest's fixtures and the case's inputs), measurement (the
cases' `measure_wall_s` less their first call: host calibration, warm-up, samples), the first call (`cold_s`,
and `compile_s` where compiled: compiling), the harness
inside bench (output digest, fallback, the eager reference), the cases' checks, records and supervision (pytest's
teardown and reports, the record, the events, the gaps between cases, the worker's exit) and the unexplained
remainder; the overhead: the repeat's wall less its measurement (first call included), as a share of the wall; and
the wall's shares spent timing, compiling, in checks and inputs, and waiting.

    python benchmarks/harness_overhead.py [--framework torch ...] [--repeats 2] [--compiler compiled] [--quick]
    python benchmarks/harness_overhead.py --results results/<run-id>     # a run already made (make matrix)

A repeat is one supervisor (`python -m portability_harness`): from its start to its footer; a repeat started on
standby (the runner's next repeat, its worker started up while the one before ran) starts when told to go. The
runner's own time around the repeats (its start, the environment check, merging) is printed apart.
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

PARTS = ("start-up", "collection", "set-up", "first call", "measure", "harness", "checks", "records", "remainder")
# The four shares a user feels (issue: wall time per answer): timing, compiling (a case's first call: its compile
# where compiled, XLA compiling each op on first use where eager), checks and inputs, and waiting (start-up,
# collection, records, the supervisor's turns and what no part explains).
SHARES = {"timing": ("measure",), "compiling": ("first call",), "checks+in": ("set-up", "harness", "checks"),
          "waiting": ("start-up", "collection", "records", "remainder")}


def split(path: Path) -> dict[str, float] | None:
    """One repeat's results file: its wall and each part's seconds; None for a file without the timeline (a run
    older than it, or one that did not finish)."""
    contents = store.read(str(path))
    footer, cases = contents.footer, contents.cases
    if not footer or "supervisor_ended_at" not in footer or not footer.get("workers"):
        return None
    parts = dict.fromkeys(PARTS, 0.0)
    parts["wall"] = footer["supervisor_ended_at"] - footer["supervisor_started_at"]
    workers, started = footer["workers"], footer["supervisor_started_at"]
    # A worker started on standby (the runner's next repeat) imported and collected before the repeat began:
    # only what falls inside the repeat's wall counts.
    parts["start-up"] = max(0.0, workers[0]["spawned"] - started)
    spans = []
    for w in workers:
        if "imported" in w:
            parts["start-up"] += max(0.0, w["imported"] - max(w["spawned"], started))
            parts["collection"] += max(0.0, w.get("running", w["collected"]) - max(w["imported"], started))
    for c in cases:
        phases = c.get("phases_s")
        if not phases:
            continue  # a record the supervisor wrote (a lost case): its time is in the gaps
        parts["set-up"] += phases["setup"] + phases["inputs"]
        # The first call (compile_s apart from it where compiled), within the measurement's wall
        first = min(phases["measure"], (c.get("cold_s") or 0.0) + (c.get("compile_s") or 0.0))
        parts["first call"] += first
        parts["measure"] += phases["measure"] - first
        parts["harness"] += phases["harness"]
        parts["checks"] += phases["checks"]
        parts["records"] += phases["teardown"]
        spans.append((c["began_at"], c["began_at"] + sum(phases.values())))
    # Between cases (and from a worker's start of running to its first case, from its last case to its exit):
    # writing the record, the events, the supervisor's turn, pytest's reports.
    edges = sorted([(w.get("running"), w.get("ended")) for w in workers if w.get("running")])
    spans.sort()
    for start, end in edges:
        inside = [s for s in spans if start <= s[0] <= (end or s[0])]
        if not inside:
            continue
        parts["records"] += inside[0][0] - start + (end - inside[-1][1] if end else 0.0)
        parts["records"] += sum(b[0] - a[1] for a, b in zip(inside, inside[1:]))
    parts["remainder"] = parts["wall"] - sum(parts[p] for p in PARTS if p != "remainder")
    parts["cases"] = len(cases)
    return parts


def report(name: str, parts: dict[str, float]) -> None:
    wall = parts["wall"]
    overhead = (wall - parts["measure"] - parts["first call"]) / wall if wall else float("nan")
    cells = " ".join(f"{parts[p]:>10.1f}" for p in PARTS)
    shares = " ".join(f"{sum(parts[p] for p in group) / wall if wall else float('nan'):>9.0%}"
                      for group in SHARES.values())
    print(f"{name:<34} {int(parts['cases']):>6} {wall:>8.1f} {cells} {overhead:>9.0%} {shares}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--framework", action="append", choices=sorted(CPU_IMAGES))
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--compiler", default="eager", choices=("eager", "compiled"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--results", type=Path, help="split the results files of this folder instead of running")
    args = p.parse_args()
    print(f"{'repeat':<34} {'cases':>6} {'wall s':>8} " + " ".join(f"{x:>10}" for x in PARTS) + f" {'overhead':>9} "
          + " ".join(f"{x[:9]:>9}" for x in SHARES))
    if args.results:
        for path in sorted(args.results.glob("*.jsonl")):
            parts = split(path)
            if parts is None:
                print(f"{path.name:<34} (no timeline: recorded before the timeline existed, or unfinished)")
            else:
                report(path.stem, parts)
        return
    for framework in args.framework or sorted(CPU_IMAGES):
        venv(framework)  # built before timing: a one-off cost, not overhead
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "runner.cli", "bench", "--image", CPU_IMAGES[framework], "--backend",
                   "local", "--out", out, "--repeats", str(args.repeats), "--compiler", args.compiler]
            t0 = time.perf_counter()
            subprocess.run(cmd + ["--quick"] * args.quick, cwd=ROOT, check=True, capture_output=True)
            wall = time.perf_counter() - t0
            walls = 0.0
            for path in sorted(Path(out).glob("*.jsonl")):
                parts = split(path)
                assert parts is not None, f"{path}: no timeline in its footer"
                report(path.stem, parts)
                walls += parts["wall"]
            print(f"{'  runner around the repeats':<34} {'':>6} {wall - walls:>8.1f}")


if __name__ == "__main__":
    main()
