#!/usr/bin/env python3
"""`make device-check [PYTHON=/path/to/python] [BUDGET_S=840]`: measure the machine this runs on, in an interpreter
it already has, within a time budget.

Finds which of torch, jax and tensorflow import there and which devices each sees (cpu, cuda, tpu); then runs, for
each framework x device, the steps asked (default: the curated cases steady with one repeat, the same cases
compiled, the framework's declared support in <out>/declared/, and the census in quick mode; `quick` puts a quick
pass in <out>/quick/), planned to fit the budget (runner/budget_plan.py): accelerator cells first, in lanes side by
side where the device allows, a long step split over lanes by function; the plan, each step's outcome and what did
not fit go to <out>/device-check.txt. At the budget's end the steps still running stop (the harness records their
cases not run as cut short) and no other starts. Nothing is installed into the interpreter and nothing is
downloaded: the harness comes from this checkout on PYTHONPATH, the frameworks and pytest are the interpreter's
own. It needs Python 3.8+ and nothing of the runner's host dependencies, so it runs on a GPU VM, a TPU VM or a
Slurm node as it is (`srun ... make device-check`); the report is made where the runner is installed (`runner
report <out>`), here too if it is.
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "harness")]

from portability_harness.catalog import curated  # noqa: E402
from portability_harness.protocol import CaseEnd, Config, Finished, Notice  # noqa: E402

from runner import budget_plan, devices, estimate, harness_dist, host_speed  # noqa: E402  (stdlib only, like the pieces below)
from runner.backends import existing  # noqa: E402
from runner.backends.base import CellIncompatible  # noqa: E402
from runner.errors import UserError  # noqa: E402

SHORT = budget_plan.SHORT
STEPS = ("quick", "steady", "compiled", "census", "declared")
# The curated cases eager and compiled and what the framework declares, then the census in the time left. The
# gradient cases (issue 45) run within the curated steps, each recording its `pass`; where the harness can select
# them on their own, a "backward" step joins STEPS, with its Config in `configs` below.
DEFAULT_STEPS = ("steady", "compiled", "declared", "census")
DEFAULT_BUDGET_S = 840.0  # a machine lent for 15 minutes, less its start
STOP_GRACE_S = 60.0  # past the budget, a harness still going (a worker starting up ignores it) is stopped here
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
    """One harness run; one line of progress per 50 cases and a closing count. The harness stops itself at the
    budget (cfg.stop_at) and records the cases it did not run as cut short; one still going at `deadline` is
    stopped from here (its records so far are kept, as after any stop)."""
    done = failed = cut = 0
    Path(cfg.out if cfg.task == "declared" else Path(cfg.out).parent).mkdir(parents=True, exist_ok=True)
    events = env.run(cfg)
    try:
        for event in events:
            if isinstance(event, CaseEnd):
                cut += event.outcome == "interrupted"
                done += event.outcome != "interrupted"
                failed += event.outcome == "failed"
                if done % 50 == 0 and event.outcome != "interrupted":
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
    counted = f"{done} {'entries' if cfg.task == 'declared' else 'cases'}, {failed} failed"
    return f"{label}: {counted}" + (f", {cut} cut short at the budget" if cut else "")


class Check:
    """The lanes of one check: each takes the next step the plan's policy gives it (budget_plan.Scheduler), runs
    it, and writes device-check.txt after every step, so that a machine taken back mid-check still leaves the
    outcomes so far."""

    def __init__(self, env: existing.ExistingEnvironment, configs: Dict[budget_plan.Step, Config],
                 scheduler: budget_plan.Scheduler, budget_s: float, summary: Path, head: List[str]):
        self.env, self.configs, self.scheduler = env, configs, scheduler
        self.started = time.monotonic()
        self.end = self.started + budget_s  # math.inf with no budget
        self.summary, self.head = summary, head
        self.lines: List[str] = []
        self.changed = threading.Condition()

    def lane(self, number: int) -> None:
        while True:
            with self.changed:
                step = self.scheduler.take(self.end - time.monotonic())
                while step is None:
                    left = self.end - time.monotonic()
                    if not (self.scheduler.running and self.scheduler.blocked(left)):
                        return  # nothing left that fits: the lane ends (what is queued is listed at the end)
                    self.changed.wait(timeout=5.0)
                    step = self.scheduler.take(self.end - time.monotonic())
            began = time.monotonic() - self.started
            line = run(self.env, self.configs[step], step.label, self.end + STOP_GRACE_S)
            with self.changed:
                self.scheduler.done(step)
                dropped = self.scheduler.drop(step.framework, step.device) if "incompatible:" in line else []
                self.write(f"{line} (lane {number}, {began:.0f}-{time.monotonic() - self.started:.0f} s)",
                           *(f"{s.label}: not started, {step.image} is incompatible" for s in dropped))
                self.changed.notify_all()

    def write(self, *lines: str) -> None:
        for line in lines:
            print(line, flush=True)
        self.lines += lines
        self.summary.write_text("\n".join([*self.head, *self.lines]) + "\n")

    def run(self, lanes: int) -> None:
        threads = [threading.Thread(target=self.lane, args=(n,), daemon=True) for n in range(1, lanes + 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.write(*(f"{s.label}: not started, did not fit in the budget ({s.expected_s:.0f} s expected)"
                     for s in self.scheduler.queue))


def selected(names: List[str], patterns: List[str]) -> tuple:
    """The curated functions of `names` (a framework's) the check selects (`--functions`), and how many it has."""
    chosen = [n for n in names if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    return sorted(chosen), len(names)


def lanes_for(cells: list) -> int:
    """Side by side on an accelerator where the host has the CPUs (one lane per 8/3 CPUs, at most six: the H200 run
    of 2026-11-28 ran every step of PyTorch and JAX in six lanes on 16 CPUs, where three left JAX's compiled step
    out); one after another on the CPU alone, whose timings a neighbour would disturb."""
    if all(device == "cpu" for _, device in cells):
        return 1
    return max(1, min(6, (os.cpu_count() or 1) * 3 // 8))


def budget(text: str) -> float:
    seconds = float(text)
    if seconds < 0 or seconds != seconds:
        raise argparse.ArgumentTypeError(f"{text}: give seconds, or 0 for no budget")
    return seconds or math.inf


def expectation(text: str) -> tuple:
    step, _, seconds = text.partition("=")
    try:
        return step, float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give STEP=SECONDS, e.g. compiled=500") from None


# What each step runs, as the facts runner.estimate matches earlier runs on: compiler, quick, task.
STEP_SETUP = {"quick": ("eager", True, "cases"), "steady": ("eager", False, "cases"),
              "compiled": ("compiled", False, "cases"), "census": ("eager", True, "census"),
              "declared": ("eager", False, "declared")}


def earlier_runs(functions: Dict[str, List[str]]) -> budget_plan.Estimate:
    """budget_plan's estimator from runner.estimate: a step's wall for all the framework's curated functions
    (`functions`) from this host's earlier checks, else the reference runs' records scaled by this host's speed,
    else the reference runs' step walls (budget_plan.reference_walls)."""
    history = estimate.History(ROOT / "results", harness_dist.cache_dir() / "estimates.json")
    calibration = host_speed.calibration_when_needed()

    def expect(framework: str, device: str, step: str) -> tuple:
        if step not in STEP_SETUP:
            return budget_plan.reference_walls(framework, device, step)
        compiler, quick, task = STEP_SETUP[step]
        want = estimate.setup(f"{SHORT[framework]}-{device}", "existing", framework, device, compiler, "steady", quick,
                              task, later=False)
        found = history.expect(want, functions[framework] if task == "cases" else None, calibration)
        if found.source == "default":
            return budget_plan.reference_walls(framework, device, step)
        return found.seconds, found.source
    return expect


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter to measure (default: this one)")
    parser.add_argument("--out", type=Path, help="results folder (default results/device-check-<time>)")
    parser.add_argument("--functions", action="append", default=[], help="only these curated functions (glob)")
    parser.add_argument("--census-ops", action="append", default=[], help="census: only these ops (glob)")
    parser.add_argument("--steps", default=",".join(DEFAULT_STEPS),
                        help=f"comma-separated, in this order of priority, of {', '.join(STEPS)}; the census always "
                             "last (default %(default)s)")
    parser.add_argument("--no-census", action="store_true", help="skip the census")
    parser.add_argument("--frameworks", default="", help="only these (comma-separated: torch, jax, tensorflow)")
    parser.add_argument("--devices", default="", help="only these devices (comma-separated: cpu, cuda, tpu)")
    parser.add_argument("--budget-s", "--deadline-s", type=budget, default=DEFAULT_BUDGET_S, dest="budget_s",
                        help="plan the steps to fit this many seconds and stop at them; 0: no budget "
                             "(default %(default)g: a machine lent for 15 minutes)")
    parser.add_argument("--lanes", type=int, default=0, help="steps side by side (default: six on an accelerator "
                        "with 16 or more CPUs, fewer with fewer, one on the CPU alone)")
    parser.add_argument("--expect", type=expectation, action="append", default=[], metavar="STEP=SECONDS",
                        help="plan with this wall for each cell's step instead of the reference runs' (repeatable)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and stop")
    parser.add_argument("--no-report", action="store_true", help="make the report later (runner report OUT)")
    args = parser.parse_args()
    args.python = shutil.which(args.python) or args.python  # `make device-check` passes a bare `python3`
    steps_wanted = [s for s in args.steps.split(",") if s and not (args.no_census and s == "census")]
    if set(steps_wanted) - set(STEPS) or set(dict(args.expect)) - set(STEPS):
        unknown = (set(steps_wanted) | set(dict(args.expect))) - set(STEPS)
        parser.error(f"--steps/--expect: unknown {', '.join(sorted(unknown))}; known: {', '.join(STEPS)}")
    if args.lanes < 0:
        parser.error(f"--lanes {args.lanes}: give a number of lanes, 1 or more (0: chosen for this machine)")
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
    cells = [(f, d) for f in frameworks for d in sees(args.python, f) if not args.devices or d in args.devices.split(",")]
    versions = ", ".join(f + " " + next(have[d] for d in existing.DISTRIBUTIONS[f] if d in have) for f in frameworks)
    names = ", ".join(SHORT[f] + "-" + d for f, d in cells) or "none"
    print(f"{args.python}: {versions}; cells: {names}; results in {out}", flush=True)
    lanes = args.lanes or lanes_for(cells)
    if lanes > 1:
        # JAX takes 75 % of a GPU's memory when it starts and TensorFlow all of it: lanes beside each other on one
        # device would leave the second too little. Each allocates what it uses instead (recorded in the header).
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    every = {f: [c.name for c in curated(str(ROOT / "curated"), f)] for f in frameworks}
    queue = budget_plan.steps(cells, steps_wanted, {f: selected(every[f], args.functions) for f in frameworks},
                              args.budget_s, lanes, budget_plan.with_given(dict(args.expect), earlier_runs(every)))
    plan = budget_plan.simulate(queue, lanes, args.budget_s)
    if args.dry_run:
        print("\n".join(plan.lines()))
        return 0
    env = existing.ExistingEnvironment(args.python, ROOT / "harness", facts, (), {})
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    out.mkdir(parents=True, exist_ok=True)
    stop_at = time.time() + args.budget_s if args.budget_s < math.inf else None
    configs = {step: config(step, out, args, env, commit, stop_at) for step in queue}
    check = Check(env, configs, budget_plan.Scheduler(list(queue)), args.budget_s, out / "device-check.txt",
                  [f"{args.python} ({env.description})", *plan.lines()])
    check.write()
    check.run(lanes)
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


def config(step: budget_plan.Step, out: Path, args: argparse.Namespace, env: existing.ExistingEnvironment,
           commit: str, stop_at: Optional[float]) -> Config:
    """The harness config of one step (of a part: its functions, its own file)."""
    image = step.image
    part = f"-{step.part}" if step.part else ""
    base = dict(framework=step.framework, device=step.device, curated_root=str(ROOT / "curated"), profile="existing",
                image=image, run_id=out.name, environment=env.description, git_commit=commit or None,
                engine={"name": "device-check"}, device_facts=devices.facts(step.device), stop_at=stop_at,
                functions=list(step.functions) or args.functions)
    configs = {"quick": lambda: Config(out=str(out / "quick" / f"{image}-existing{part}.jsonl"), quick=True, **base),
               "steady": lambda: Config(out=str(out / f"{image}-existing{part}.jsonl"), **base),
               "compiled": lambda: Config(out=str(out / f"{image}-existing-compiled{part}.jsonl"), compiler="compiled",
                                          **base),
               "census": lambda: Config(out=str(out / f"{image}-existing-census.jsonl"), task="census", quick=True,
                                        census_ops=args.census_ops, **base),
               "declared": lambda: Config(out=str(out / "declared"), task="declared", **base)}
    return configs[step.name]()


if __name__ == "__main__":
    sys.exit(main())
