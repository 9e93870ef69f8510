"""How a reference of one CPU model predicts a run on another, by how much the calibration loop's ratio is trusted
there: each kept eager run (the references and the test data's runs of other machines) expected from each other of
another CPU model, its repeats at their own calibrations, as the runner expects them (host_speed.slower_by: the
ratio squared on the reference's kind of CPU, told by the identity or the name), with OTHER_CPU_EXPONENT, what the
ratio is raised to on another kind, set to each of 0 (taken as it ran), 0.5, 1 and 2. A run whose records carry no
CPU identity stands for a host of its own identity, as every host has read one since 2026-12-02. Prints each
pair's cells within 25 % per exponent and the sums, the figures behind OTHER_CPU_EXPONENT.

    python benchmarks/cross_cpu_scaling.py [--exponents 0 0.5 1 2]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from runner import estimate, host_speed
from runner.archive import ARCHIVE

ROOT = Path(__file__).resolve().parent.parent
# Eager matrices of one command on four CPUs (the first two named alike, the last two named alike)
RUNS = {
    "amd-epyc-2026-12-01": ROOT / "results" / "reference" / "matrix-cpu-eager-2026-12-01",
    "amd-epyc-zen5-2026-12-04": ROOT / "tests" / "data" / "amd-epyc-zen5-eager-2026-12-04",
    "intel-xeon-2026-11-28": ROOT / "results" / "reference" / "matrix-cpu-eager-2026-11-28",
    "intel-xeon-fp16-2026-12-02": ROOT / "tests" / "data" / "intel-avx512fp16-eager-2026-12-02",
}


def cells_within(host: list[dict], history: estimate.History) -> tuple[int, int]:
    """How many cells of `host` (a run's repeats) `history`'s references expect within 25 %, each repeat at its own
    calibration, on this host's CPU as host_speed reads it; and how many cells they expect at all."""
    walls: dict[str, list[float]] = {}
    for s in host:
        got = history.expect_again(s, s["calibration_s"])
        if got.source == "reference":  # a setup the reference runs do not hold is not counted
            cell = walls.setdefault(f"{s['key']['image']} {s['key']['compiler']}", [0.0, 0.0])
            cell[0], cell[1] = cell[0] + got.seconds, cell[1] + s["wall_s"]
    return sum(estimate.within(e, w) for e, w in walls.values()), len(walls)


def within(host: list[dict], history: estimate.History, exponent: float) -> tuple[int, int]:
    """cells_within, OTHER_CPU_EXPONENT set to `exponent`, this host's CPU the one `host` ran on."""
    identity = next((s["cpu_identity"] for s in host if s.get("cpu_identity")), None) or {"run": id(host)}
    saved = host_speed.OTHER_CPU_EXPONENT, host_speed.this_cpu, host_speed.this_cpu_identity
    host_speed.OTHER_CPU_EXPONENT = exponent
    host_speed.this_cpu, host_speed.this_cpu_identity = (lambda: host[0]["cpu"]), (lambda: identity)
    try:
        return cells_within(host, history)
    finally:
        host_speed.OTHER_CPU_EXPONENT, host_speed.this_cpu, host_speed.this_cpu_identity = saved


def pairs(exponents: list[float]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(host, reference) -> the cells within 25 % and the cells expected, per exponent."""
    kept = {name: estimate.summarize_archive(run / ARCHIVE) for name, run in RUNS.items()}
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for ref_name, ref_run in RUNS.items():
            results = Path(tmp) / ref_name / "results"
            (results / "reference" / ref_name).mkdir(parents=True)
            shutil.copy(ref_run / ARCHIVE, results / "reference" / ref_name / ARCHIVE)
            history = estimate.History(results, Path(tmp) / ref_name / "estimates.json")
            for host_name, host in kept.items():
                if host_name != ref_name:
                    found[host_name, ref_name] = [within(host, history, e) for e in exponents]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exponents", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0])
    args = parser.parse_args()
    totals = {e: [0, 0] for e in args.exponents}
    print(f"{'host':28s} {'reference':28s}" + "".join(f" {'^' + format(e, 'g'):>7s}" for e in args.exponents))
    for (host_name, ref_name), counts in pairs(args.exponents).items():
        for e, (n, of) in zip(args.exponents, counts):
            totals[e][0] += n
            totals[e][1] += of
        print(f"{host_name:28s} {ref_name:28s}" + "".join(f" {f'{n}/{of}':>7s}" for n, of in counts))
    print(f"{'all pairs':57s}" + "".join(f" {f'{n}/{of}':>7s}" for n, of in totals.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
