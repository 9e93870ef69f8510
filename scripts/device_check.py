#!/usr/bin/env python3
"""`make device-check [PYTHON=/path/to/python]`: measure the machine this runs on, in an interpreter it already has.

Finds which of torch, jax and tensorflow import there and which devices each sees (cpu, cuda, tpu); then, for each
framework x device: the curated cases in quick mode (a check that they run, in <out>/quick/), the same cases in
steady mode with one repeat, the census in quick mode, and the framework's declared support (<out>/declared/).
Nothing is installed into the interpreter and nothing is downloaded: the harness comes from this checkout on
PYTHONPATH, the frameworks and pytest are the interpreter's own. It needs Python 3.8+ and nothing of the runner's
host dependencies, so it runs on a GPU VM, a TPU VM or a Slurm node as it is (`srun ... make device-check`); the
report is made where the runner is installed (`runner report <out>`), here too if it is. `--steps` picks and orders
the steps (`compiled`: steady under the compiler), `--frameworks`/`--devices` the cells (accelerator cells first),
and `--deadline-s` bounds the whole check for a machine lent by the minute: the step running then is stopped,
later ones are listed as not started.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "harness")]

from portability_harness.protocol import CaseEnd, Config, Finished, Notice  # noqa: E402

from runner import devices, estimate, harness_dist  # noqa: E402  (stdlib only, like the pieces below)
from runner.backends import existing  # noqa: E402
from runner.backends.base import CellIncompatible  # noqa: E402
from runner.errors import UserError  # noqa: E402

SHORT = {"torch": "torch", "jax": "jax", "tensorflow": "tf"}
STEPS = ("quick", "steady", "compiled", "census", "declared")
DEFAULT_STEPS = ("quick", "steady", "census", "declared")  # compiled: `--steps` adds it (torch.compile is slow)
# Which devices a framework sees, asked in the interpreter itself (each in its own process: a framework that
# aborts on a broken driver must not end the check).
SEES = {
    "torch": "import torch; print('cpu'); print('cuda' if torch.cuda.is_available() else '')",
    "jax": "import jax\nfor p in ('cpu', 'gpu', 'tpu'):\n    try:\n        jax.devices(p); print({'gpu': 'cuda'}.get(p, p))\n"
           "    except RuntimeError:\n        pass",
    "tensorflow": "import tensorflow as tf; print('cpu'); print('cuda' if tf.config.list_physical_devices('GPU') else '')",
}


def sees(python: str, framework: str) -> list[str]:
    try:
        out = subprocess.run([python, "-c", SEES[framework]], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError):
        return []
    found = [l.strip() for l in out.stdout.splitlines() if l.strip() in ("cpu", "cuda", "tpu")]
    if framework == "torch" and devices.tpu_chips():
        found.append("tpu")  # torch_xla is asked at the cell's start (importing it here would hold the TPU)
    return list(dict.fromkeys(found)) if out.returncode == 0 else []


def run(env: existing.ExistingEnvironment, cfg: Config, label: str, deadline: float) -> str:
    """One harness run; one line of progress per 50 cases and a closing count. A run still going at the deadline
    is stopped (its records so far are kept, as after any stop)."""
    done = failed = 0
    events = env.run(cfg)
    try:
        for event in events:
            if isinstance(event, CaseEnd):
                done += 1
                failed += event.outcome == "failed"
                if done % 50 == 0:
                    print(f"  {label}: {done} cases, {failed} failed", flush=True)
            elif isinstance(event, Notice):
                print(f"  {label}: {event.message}", flush=True)
            elif isinstance(event, Finished):
                if event.counts and cfg.task == "declared":
                    done = sum(event.counts.values())
                break  # the run's last event: a run that ends past the deadline still did every case
            if time.monotonic() > deadline:
                events.close()
                return f"{label}: stopped at the deadline after {done} cases, {failed} failed"
    except CellIncompatible as e:
        return f"{label}: incompatible: {e}"
    except UserError as e:
        return f"{label}: failed: {e}"
    return f"{label}: {done} {'entries' if cfg.task == 'declared' else 'cases'}, {failed} failed"


# What each step runs, as the facts runner.estimate matches earlier runs on: compiler, quick, task.
STEP_SETUP = {"quick": ("eager", True, "cases"), "steady": ("eager", False, "cases"),
              "compiled": ("compiled", False, "cases"), "census": ("eager", True, "census"),
              "declared": ("eager", False, "declared")}


def dry_run(cells: list, steps: list, functions: list) -> int:
    """Each step's expected wall (runner.estimate: this host's earlier checks, else the reference runs scaled by
    this host's speed), the total, and nothing run."""
    from portability_harness.catalog import curated

    history = estimate.History(ROOT / "results", harness_dist.cache_dir() / "estimates.json")
    calibration = estimate.calibration_now()
    every = []
    for framework, device in cells:
        image = f"{SHORT[framework]}-{device}"
        names = estimate.selected([f.name for f in curated(str(ROOT / "curated"), framework)], functions)
        for step in steps:
            compiler, quick, task = STEP_SETUP[step]
            want = estimate.setup(image, "existing", framework, device, compiler, "steady", quick, task, later=False)
            every.append(history.expect(want, names if task == "cases" else None, calibration))
            print(f"{image} {step}: about {estimate.format_wall(every[-1].seconds)} ({every[-1].source})")
    print(estimate.describe(every))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter to measure (default: this one)")
    parser.add_argument("--out", type=Path, help="results folder (default results/device-check-<time>)")
    parser.add_argument("--functions", action="append", default=[], help="only these curated functions (glob)")
    parser.add_argument("--census-ops", action="append", default=[], help="census: only these ops (glob)")
    parser.add_argument("--steps", default=",".join(DEFAULT_STEPS),
                        help=f"comma-separated, in this order per cell, of {', '.join(STEPS)} (default %(default)s)")
    parser.add_argument("--no-census", action="store_true", help="skip the census")
    parser.add_argument("--frameworks", default="", help="only these (comma-separated: torch, jax, tensorflow)")
    parser.add_argument("--devices", default="", help="only these devices (comma-separated: cpu, cuda, tpu)")
    parser.add_argument("--deadline-s", type=float, default=float("inf"),
                        help="start no step after this many seconds and stop the one running then (a lent machine)")
    parser.add_argument("--no-report", action="store_true", help="make the report later (runner report OUT)")
    parser.add_argument("--dry-run", action="store_true", help="print each step's expected wall and run nothing")
    args = parser.parse_args()
    deadline = time.monotonic() + args.deadline_s
    args.python = shutil.which(args.python) or args.python  # `make device-check` passes a bare `python3`
    steps_wanted = [s for s in args.steps.split(",") if s and not (args.no_census and s == "census")]
    if set(steps_wanted) - set(STEPS):
        parser.error(f"--steps: unknown {', '.join(sorted(set(steps_wanted) - set(STEPS)))}; known: {', '.join(STEPS)}")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = (args.out or ROOT / "results" / f"device-check-{stamp}").resolve()
    try:
        facts = existing.probe(args.python, ROOT / "harness")
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    have = dict(p.split("==", 1) for p in facts["packages"])
    frameworks = [f for f in SHORT if any(d in have for d in existing.DISTRIBUTIONS[f])
                  and (not args.frameworks or f in args.frameworks.split(","))]
    if "pytest" not in have or not frameworks:
        wanted = args.frameworks.replace(",", ", ") or "torch, jax, tensorflow"
        print(f"error: {args.python} needs pytest and one of {wanted}; it has "
              f"{', '.join(frameworks) or 'none of them'}{'' if 'pytest' in have else ' and no pytest'}", file=sys.stderr)
        return 2
    # Accelerator cells first: on a machine lent for minutes they are what the check is for.
    cells = sorted(((f, d) for f in frameworks for d in sees(args.python, f)
                    if not args.devices or d in args.devices.split(",")), key=lambda c: c[1] == "cpu")
    versions = ", ".join(f + " " + next(have[d] for d in existing.DISTRIBUTIONS[f] if d in have) for f in frameworks)
    names = ", ".join(SHORT[f] + "-" + d for f, d in cells) or "none"
    print(f"{args.python}: {versions}; cells: {names}; results in {out}", flush=True)
    if args.dry_run:
        return dry_run(cells, steps_wanted, args.functions)
    env = existing.ExistingEnvironment(args.python, ROOT / "harness", facts, (), {})
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for framework, device in cells:
        image = f"{SHORT[framework]}-{device}"
        base = dict(framework=framework, device=device, curated_root=str(ROOT / "curated"), profile="existing",
                    image=image, run_id=out.name, environment=env.description, git_commit=commit or None,
                    engine={"name": "device-check"}, device_facts=devices.facts(device), functions=args.functions)
        steps = {"quick": Config(out=str(out / "quick" / f"{image}-existing.jsonl"), quick=True, **base),
                 "steady": Config(out=str(out / f"{image}-existing.jsonl"), **base),
                 "compiled": Config(out=str(out / f"{image}-existing-compiled.jsonl"), compiler="compiled", **base),
                 "census": Config(out=str(out / f"{image}-existing-census.jsonl"), task="census", quick=True,
                                  census_ops=args.census_ops, **base),
                 "declared": Config(out=str(out / "declared"), task="declared", **base)}
        for step in steps_wanted:
            cfg = steps[step]
            if time.monotonic() > deadline:
                lines.append(f"{image} {step}: not started, past the deadline")
            else:
                Path(cfg.out if step == "declared" else Path(cfg.out).parent).mkdir(parents=True, exist_ok=True)
                lines.append(run(env, cfg, f"{image} {step}", deadline))
            print(lines[-1], flush=True)
            # Written after every step: a machine taken back mid-check still leaves the outcomes so far.
            (out / "device-check.txt").write_text("\n".join([f"{args.python} ({env.description})", *lines]) + "\n")
            if "incompatible:" in lines[-1]:
                break  # a build that cannot run on this device runs no other step
    if args.no_report:
        print(f"report: runner report {out}")
        return 0
    # The runner's own venv where `make` made one, else the measured interpreter if it happens to have what the
    # report needs (pandas, matplotlib, typer, rich).
    host = ROOT / ".venv" / "bin" / "python"
    report = subprocess.run([str(host) if host.exists() else args.python, "-m", "runner.cli", "report", str(out)],
                            cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    print(report.stdout.strip() if report.returncode == 0 else
          f"report: make it where the runner is installed: runner report {out}  ({json.dumps(report.stderr.strip()[-200:])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
