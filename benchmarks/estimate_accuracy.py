"""How well the reference runs alone predict a run already made: what a fresh clone's dry run (no history of its
own on the host) would have expected of each of the run's cells, against what they took, and how many cells came
within 25 % (issue 46's measure of the dry run). The run's own summary compares against what was expected when it
began, from whatever history the host had; this asks the question of the reference runs whatever the host had.

    python benchmarks/estimate_accuracy.py results/<run-id> [--calibration-us 250]

Each finished repeat is expected as the runner expects it (runner.estimate: the newest reference run of its setup,
its functions, scaled by the calibration), as a repeat started on standby (its worker's start-up out of its wall,
as the runner's later repeats run). The calibration is this host's at the dry run; without --calibration-us it is
the median of the repeat's own cases' calibrations (estimate.summarize's), which a neighbour in another lane may
have raised. Per repeat its cases' time and its fixed part are printed beside, to tell where a miss lies.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from runner import estimate

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run's folder (results/<run-id>)")
    parser.add_argument("--calibration-us", type=float, help="this host's calibration at the dry run, in us")
    parser.add_argument("--references", type=Path, default=ROOT / "results" / "reference")
    args = parser.parse_args()
    repeats = []
    for path in sorted(args.run.glob("*.jsonl")):
        summary = estimate.summarize(path.read_bytes().splitlines())
        if summary is not None:  # a repeat still running or killed: no wall to compare
            repeats.append((path.name, summary))
    if not repeats:
        print(f"error: {args.run} holds no finished repeat (*.jsonl with a footer)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as empty:  # a results folder that holds only the reference runs
        (Path(empty) / "reference").symlink_to(args.references.resolve())
        history = estimate.History(Path(empty))
        cells: dict[str, list[float]] = {}
        print(f"{'repeat':40s} {'wall s':>8s} {'expected':>9s} {'ratio':>6s} {'cases':>8s} {'fixed':>6s} "
              f"{'calibration':>11s}  source")
        for name, summary in repeats:
            calibration = args.calibration_us * 1e-6 if args.calibration_us else summary["calibration_s"]
            got = history.expect_again(summary, calibration)
            cases_s = summary["wall_s"] - summary["fixed_s"]
            print(f"{name:40s} {summary['wall_s']:8.1f} {got.seconds:9.1f} {got.seconds / summary['wall_s']:6.2f} "
                  f"{cases_s:8.1f} {summary['fixed_s']:6.1f} {calibration * 1e6:9.0f}us  {got.source}")
            cell = f"{summary['key']['image']} {summary['key']['compiler']}"
            walls = cells.setdefault(cell, [0.0, 0.0])
            walls[0] += summary["wall_s"]
            walls[1] += got.seconds
    print(f"\n{'cell':40s} {'wall s':>8s} {'expected':>9s} {'ratio':>6s}")
    close = 0
    for cell, (wall, expected) in cells.items():
        came_true = estimate.within(expected, wall)
        close += came_true
        print(f"{cell:40s} {wall:8.1f} {expected:9.1f} {expected / wall:6.2f}{'' if came_true else '  (off)'}")
    print(f"\n{close} of {len(cells)} cells within {estimate.WITHIN:.0%} of what the reference runs alone predict")
    return 0


if __name__ == "__main__":
    sys.exit(main())
