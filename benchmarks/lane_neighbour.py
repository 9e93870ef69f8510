"""Whether a verdict cell running beside a timing cell (`runner matrix --lanes 2`) moves the timing cell's latencies.

Interleaved on one host: a run of the timing cell alone (`--lanes 1`, no other cell), then a run of it with a
TPU-model cell in lane 1 beside it (`--lanes 2`), and again, `--pairs` times. The neighbour is given more work
than the timing cell (torch.nn.* on torch_xla: minutes of XLA compiling), so that it runs for the whole of the
timing repeat; the run is stopped once the timing cell's repeat has finished. Per run: the timing repeat's wall and
whether its header and the report flag it as measured beside another lane; then the agreement of the cases' warm
medians and minima (the median |log ratio|, as benchmarks/matrix_speed.py) between two runs alone (the host's own
noise), between two runs beside, and between each alone run and the beside run after it (the neighbour's effect,
with its signed median: positive is slower beside).

    python benchmarks/lane_neighbour.py [--functions 'jax.numpy.*'] [--pairs 2] [--neighbour tf-compiled]

`--neighbour tf-compiled` measures the neighbour `--cached-beside` adds instead: a compiled CPU repeat
(`runner bench --image tf-cpu --compiler compiled`, the whole sample, restarted while the timing repeat runs),
pinned to the CPU lane 1 would have (the host's, CPU 0 of two: lanes.split), the timing cell alone in lane 0. A
TensorFlow compiled repeat stands for a cached one: its cached repeats took as long as its cold one (220, 220 and
219 s in results/reference/matrix-cpu-2026-11-28/). The timing header cannot name a neighbour the runner did not
start, so its "beside" column stays empty.

It needs two CPUs, and an otherwise idle machine: it measures the machine as much as the runner.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matrix_speed import ROOT, cases, stability  # noqa: E402

TIMING = "jax-cpu-current.jsonl"  # one repeat: no -r<n> suffix
NEIGHBOUR = ("torch-xla-cpu", "torch.nn.*")
COMPILED = ["runner.cli", "bench", "--image", "tf-cpu", "--compiler", "compiled", "--backend", "local"]


class Compiled:
    """The compiled neighbour: `runner bench` of TensorFlow compiled on the host's CPU, started again whenever it
    ends, until stopped."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.proc, self.count = folder, None, 0

    def poll(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.count += 1
            cpu = min(os.sched_getaffinity(0))  # lane 1's CPU on a 2-CPU host
            self.proc = subprocess.Popen([sys.executable, "-m", *COMPILED, "--out", str(self.folder / str(self.count))],
                                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True,
                                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(timeout=120)


def matrix_file(folder: Path, neighbour: bool) -> Path:
    """matrix.toml's profiles and overrides, with a [matrix] of JAX on the CPU, one repeat, eager (and the
    neighbour's image included, for a run beside)."""
    include = f'include = ["{NEIGHBOUR[0]}"]\n' if neighbour else ""
    text = re.sub(r"(?ms)^\[matrix\].*?(?=^\[profiles)",
                  '[matrix]\nframeworks = ["jax"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 1\n'
                  f'compiler = "eager"\n{include}\n', (ROOT / "matrix.toml").read_text())
    path = folder / ("beside.toml" if neighbour else "alone.toml")
    path.write_text(text)
    return path


def finished(path: Path) -> bool:
    try:
        return any(json.loads(line).get("record") == "footer" for line in path.read_text().splitlines()[-3:])
    except (OSError, ValueError):
        return False


def run(folder: Path, functions: list[str], beside: bool, compiled: bool = False) -> tuple[float, float, list[str]]:
    """One `runner matrix` run into `folder`: the timing repeat's wall (its footer's, start-up included), its cases'
    time, and what its header says ran beside it. With `compiled`, a run beside has the compiled neighbour on the
    host's CPU instead of a lane 1."""
    lane = beside and not compiled
    extra = [a for f in functions for a in ("--functions", f)]
    if lane:
        extra += ["--functions", NEIGHBOUR[1]]
    cmd = [sys.executable, "-m", "runner.cli", "matrix", "--matrix", str(matrix_file(folder.parent, lane)),
           "--backend", "local", "--lanes", "2" if lane else "1", "--out", str(folder), *extra]
    neighbour = Compiled(folder.parent / f"{folder.name}-neighbour") if beside and compiled else None
    if neighbour:
        neighbour.poll()
        time.sleep(20)  # past its start-up and imports: a neighbour at work when the timing repeat starts
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200"), start_new_session=True)
    timing = folder / TIMING
    try:
        while proc.poll() is None and not finished(timing):
            if neighbour:
                neighbour.poll()
            time.sleep(2)
    finally:
        if neighbour:
            neighbour.stop()
    if proc.poll() is None:  # the neighbour still runs: stopped as a user stops a run (Ctrl-C)
        os.killpg(proc.pid, signal.SIGINT)
    err = proc.communicate(timeout=300)[1]
    if not finished(timing):
        raise SystemExit(f"{' '.join(cmd)}: the timing repeat did not finish: {err[-1500:]}")
    lines = [json.loads(line) for line in timing.read_text().splitlines() if line.strip()]
    header = next(r for r in lines if r.get("record") == "header")
    footer = next(r for r in lines if r.get("record") == "footer")
    wall = footer["supervisor_ended_at"] - footer["supervisor_started_at"]
    cases_s = sum(r.get("duration_s") or 0.0 for r in lines if r.get("record") == "case")
    return wall, cases_s, list((header.get("engine") or {}).get("beside") or [])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--functions", action="append", default=[], help="the timing cell's functions (jax.numpy.*)")
    p.add_argument("--pairs", type=int, default=2, help="alone/beside pairs, interleaved")
    p.add_argument("--neighbour", choices=("torch-xla", "tf-compiled"), default="torch-xla",
                   help="torch-xla: a TPU-model cell in lane 1; tf-compiled: a compiled CPU repeat on its CPU")
    args = p.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("two lanes need two CPUs; this host gives the run one")
    functions = args.functions or ["jax.numpy.*"]
    with tempfile.TemporaryDirectory(prefix="lanes-") as tmp:
        runs: dict[str, list[Path]] = {"alone": [], "beside": []}
        print(f"{'run':<10} {'wall s':>7} {'cases s':>8}  beside")
        for i in range(args.pairs):
            for kind in ("alone", "beside"):
                folder = Path(tmp) / f"{kind}{i + 1}"
                wall, cases_s, beside = run(folder, functions, kind == "beside", args.neighbour == "tf-compiled")
                runs[kind].append(folder)
                print(f"{kind}{i + 1:<5} {wall:>7.1f} {cases_s:>8.1f}  {', '.join(beside) or '-'}", flush=True)

        def timing(folder: Path) -> dict:
            """The timing cell's cases (cases() reads every results file of a run, the neighbour's too)."""
            return {k: c for k, c in cases(folder).items() if k.startswith("jax/")}

        def row(label: str, a: Path, b: Path) -> None:
            n, figures, signed = stability(timing(a), timing(b))
            print(f"{label:<24} {n:>6} {100 * figures['median']:>12.1f}% "
                  f"{100 * (figures['median / calibration'] or float('nan')):>12.1f}% "
                  f"{100 * figures['minimum']:>10.1f}% {100 * signed:>7.1f}%")

        # median / calibration: each case's median over the host's speed timed just before it (a host that slows
        # down over the run moves the median and the calibration alike).
        print(f"\n{'pair':<24} {'cases':>6} {'|log| median':>13} {'|log| med/cal':>13} {'|log| min':>11} "
              f"{'signed':>8}")
        for kind in ("alone", "beside"):
            for i in range(1, len(runs[kind])):
                row(f"{kind}1 / {kind}{i + 1}", runs[kind][0], runs[kind][i])
        for i in range(args.pairs):
            row(f"alone{i + 1} / beside{i + 1}", runs["alone"][i], runs["beside"][i])


if __name__ == "__main__":
    main()
