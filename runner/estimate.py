"""A repeat's expected wall before it runs, from the time earlier runs took.

Where the figure comes from, best first:
- this host's earlier runs (results/*/, any depth but results/reference/): a results file with its footer is one
  repeat of a setup (image, profile, compiler, mode, quick, task, and whether its first calls were served by the
  cell's caches); its wall is split into its fixed part (start-up, collection, the records: the wall less its
  cases) and each function's cases, so that a run of other functions of the same setup is estimated too;
- the newest of the reference runs (results/reference/*/records.tar.xz, another machine's records),
  matched on framework, device, compiler, mode and task, the newest made on this host's CPU identity first,
  scaled by this host's calibration against theirs (host_speed.slower_by): every case record carries
  `calibration_s`, the time of a fixed pure-Python workload just before it (harness timing.py). On the kind of CPU
  the reference ran on (its identity where both hosts recorded one, else its name) the ratio squared, the host
  shared; on another kind its square root, that loop's speed carrying only partly from one CPU to another; an
  accelerator machine's reference, whose records name no CPU, as it ran;
- else a default per function.
A repeat of several finished ones is the median of what each predicts. Building an environment is not included.

What each results file says is read once: its summary is kept in a cache file beside the venvs, keyed by the
file's path, size and modification time. Standard library only: scripts/device_check.py uses this on a machine
that has none of the runner's host dependencies.
"""
from __future__ import annotations

import fnmatch
import json
import os
import socket
import statistics
import tarfile
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

from portability_harness.compile_caches import REUSED, served
from portability_harness.protocol import Config
from runner.archive import ARCHIVE, DAMAGED
from runner.host_speed import same_identity, scaled_by_name, slower_by

# The facts of a header that make two repeats the same setup, for this host's history; the reference runs (another
# machine, another environment) are matched on the second set only. Either is matched first with, then without,
# "cached": a repeat whose first calls the cell's caches served takes a fraction of a cold one's compiling.
HOST_KEY = ("image", "profile", "framework", "device", "compiler", "mode", "quick", "task", "cached")
REFERENCE_KEY = ("framework", "device", "compiler", "mode", "quick", "task", "cached")
# Without any history: start-up and collection, and each function's cases (a function has about 25 cases; eager
# cases take a few tens of ms on a CPU, compiled ones compile first: figures of the 2-core development machine).
DEFAULT_FIXED_S = 20.0
DEFAULT_FUNCTION_S = {"eager": 2.0, "compiled": 10.0}
DEFAULT_TASK_S = {"census": 600.0, "declared": 30.0}
SUMMARY_VERSION = 12  # 6: a standby worker's start-up ends when its cases are collected; 7: unrun_s; 8 left a
# case's waits for its CPU (cpu_wait_s) out of its time, 9 counts them again: where they recur (a lane beside the host's
# own processes), the next run waits too; 10: `long`; 11: `cpu`; 12: `cpu_identity`
# A case that took longer than this is kept by itself (`long`): a cell whose per-case timeout is shorter than the run's
# that recorded it (the TPU model's cells, matrix.toml) is expected to stop it at its own timeout.
LONG_CASE_S = 30.0


@dataclass
class Expected:
    seconds: float
    source: str  # "this host", "reference" (scaled by the calibration) or "default"
    # Where the run's budget is expected to end it early (runner.budget.within_budget): its wall without the cut
    whole_s: Optional[float] = None
    # What a reference run's walls were multiplied by (host_speed.slower_by: 1 where taken as they ran)
    scale: Optional[float] = None
    by_name: bool = False  # scaled as of this host's kind of CPU by its name alone (host_speed.scaled_by_name)

    @property
    def cut(self) -> bool:
        return self.whole_s is not None

    @property
    def whole(self) -> "Expected":
        """The repeat's expected wall as if no budget cut it."""
        return self if self.whole_s is None else replace(self, seconds=self.whole_s, whole_s=None)


def summarize(lines: Iterable[bytes]) -> Optional[Dict[str, Any]]:
    """What one results file says about time, or None where it has no header and footer (a repeat that did not
    finish says nothing of a whole one's wall)."""
    header = footer = None
    functions: Dict[str, float] = {}
    ran: Dict[str, int] = {}
    cut: Dict[str, int] = {}  # cases a budget cut short: no time, so their function's time is scaled up below
    long: Dict[str, List[float]] = {}  # per function, its cases over LONG_CASE_S
    calibrations: List[float] = []
    cases_s = 0.0
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        kind = rec.get("record") if isinstance(rec, dict) else None
        if kind == "header":
            header = rec
        elif kind == "footer":
            footer = rec
        elif kind == "case":
            name = rec.get("function") or ""
            if rec.get("outcome") == "interrupted":
                cut[name] = cut.get(name, 0) + 1
                continue
            ran[name] = ran.get(name, 0) + 1
            took = float(rec.get("duration_s") or 0.0)
            if not took and rec.get("category") == "timeout" and header:  # recorded before such records kept it
                took = float(header.get("timeout_s") or 0.0)
            functions[name] = functions.get(name, 0.0) + took
            cases_s += took
            if took > LONG_CASE_S:
                long.setdefault(name, []).append(took)
            if rec.get("calibration_s"):
                calibrations.append(rec["calibration_s"])
    if header is None or footer is None:
        return None
    # A function some of whose cases were cut short: as if the rest took what those that ran took each. One with
    # none run is left out (predicted as the run's other functions are, estimate._prediction); for a prediction of
    # the whole run (a census, which names no functions) its cases count at the run's mean case.
    functions = {n: t * (ran[n] + cut.get(n, 0)) / ran[n] for n, t in functions.items()}
    unrun = sum(n for name, n in cut.items() if name not in ran)
    unrun_s = unrun * cases_s / sum(ran.values()) if ran else 0.0
    if footer.get("supervisor_started_at") and footer.get("supervisor_ended_at"):
        wall = footer["supervisor_ended_at"] - footer["supervisor_started_at"]
    else:  # records of before the footer's times: the cases alone
        wall = cases_s
    # The first worker's start-up (importing the framework, collecting the cases) is in the wall unless it started
    # on standby, while the repeat before ran (runner.scheduler): kept apart, so that either kind is predicted. On
    # standby it ends when its cases are collected: from then on it waited for the repeat before to end.
    first = (footer.get("workers") or [{}])[0]
    standby = bool(first.get("standby"))
    ready = first.get("collected") if standby and "collected" in first else first.get("running")
    startup = max(0.0, ready - first["spawned"]) if ready is not None and "spawned" in first else 0.0
    key = {k: header.get(k) for k in HOST_KEY}
    on_cpu = header.get("device") in ("cpu", "xla-cpu")
    key.update(task=header.get("task") or "cases", compiler=header.get("compiler") or "eager",
               quick=bool(header.get("quick")), cached=header.get("compile_caches") == REUSED)
    alone = wall - (0.0 if standby else startup)  # the wall as a repeat started on standby would have it
    return {"key": key, "host": header.get("host"), "started_at": header.get("started_at") or "",
            "run_id": header.get("run_id"),
            "wall_s": alone, "fixed_s": max(0.0, alone - cases_s),
            "startup_s": startup, "functions": functions, "unrun_s": unrun_s, "long": long,
            "timeout_s": header.get("timeout_s"),
            "calibration_s": statistics.median(calibrations) if calibrations else None,
            "cpu": header.get("device_model") if on_cpu else None,
            "cpu_identity": header.get("host_cpu") if on_cpu else None}


class History:
    """The finished repeats this host and the reference runs hold."""

    def __init__(self, results: Path, cache: Optional[Path] = None):
        self.results, self.cache = results, cache
        self._known: Dict[str, Any] = self._read_cache()
        self.host: List[Dict[str, Any]] = []
        self.reference: List[Dict[str, Any]] = []
        here = socket.gethostname()
        for path in sorted(results.rglob("*.jsonl")) if results.is_dir() else []:
            if "reference" in path.relative_to(results).parts[:1]:
                continue
            s = self._summary(path, lambda p=path: [p.read_bytes().splitlines()])
            if s and s[0] and s[0]["host"] == here:  # None: a repeat still running, or killed (no footer)
                self.host.append(s[0])
        for path in sorted((results / "reference").glob(f"*/{ARCHIVE}")):
            self.reference += [s for s in self._summary(path, lambda p=path: _tar_members(p)) if s]
        self._write_cache()

    def _summary(self, path: Path, read) -> List[Optional[Dict[str, Any]]]:
        try:
            stat = path.stat()
        except OSError:
            return []
        stamp = [stat.st_size, stat.st_mtime]
        known = self._known.get(str(path))
        if known and known["stamp"] == stamp:
            return known["summaries"]
        try:
            summaries = [summarize(lines) for lines in read()]
        except DAMAGED:  # a damaged archive predicts nothing
            summaries = []
        self._known[str(path)] = {"stamp": stamp, "summaries": summaries}
        return summaries

    def _read_cache(self) -> Dict[str, Any]:
        try:
            data = json.loads(self.cache.read_text()) if self.cache else {}
        except (OSError, ValueError):
            return {}
        return data.get("files", {}) if data.get("version") == SUMMARY_VERSION else {}

    def _write_cache(self) -> None:
        if self.cache is None:
            return
        try:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache.with_name(f"{self.cache.name}.{os.getpid()}.tmp")
            # One cache serves every checkout of this host: an entry goes when its file is gone (a results folder
            # deleted, an archive renamed), not when this one's results folder does not hold it.
            kept = {path: entry for path, entry in self._known.items() if os.path.exists(path)}
            tmp.write_text(json.dumps({"version": SUMMARY_VERSION, "files": kept}))
            os.replace(tmp, self.cache)
        except OSError:
            pass  # an estimate without its cache is only slower next time

    def expect_again(self, summary: Dict[str, Any], calibration_s: Optional[float]) -> Expected:
        """What this history expects of a repeat already made (its summary), as the runner expects a later repeat:
        its setup and functions, its own per-case timeout, started on standby."""
        want = dict(summary["key"], standby=True, timeout_s=summary["timeout_s"])
        return self.expect(want, sorted(summary["functions"]) or None, calibration_s)

    def expect(self, want: Dict[str, Any], functions: Optional[List[str]],
               calibration_s: Union[Optional[float], Callable[[], float]]) -> Expected:
        """One repeat of the setup `want` (HOST_KEY's facts) running `functions` (the selected curated functions'
        names; None: whatever the setup runs, as a census), on a host whose calibration is `calibration_s` (or what
        it returns, asked only where a reference run is scaled: calibration_when_needed)."""
        found = _first_matching(self.host, want, HOST_KEY)
        if found:
            return Expected(_median_prediction(found, functions, want), "this host")
        found = _first_matching(self.reference, want, REFERENCE_KEY)
        # Those made on this host's CPU identity first, however old: their walls scale with the host's speed, where
        # another CPU's follow the loop only partly (host_speed). Not by a name alone: two CPUs of one name timed the
        # calibration 1.5 times apart.
        found = [s for s in found if same_identity(s.get("cpu_identity"))] or found
        # The newest reference run of the setup only: the curated cases change between runs (an older run of the
        # torch_xla cell held four LBFGS cases killed at the timeout, which no longer happens). A run is its run_id,
        # whose files may be parts of one step, each with some of the functions (a device check's compiled a, b).
        newest = max(found, key=lambda s: s.get("started_at", ""), default={})
        found = [s for s in found if s.get("started_at") == newest.get("started_at") or
                 (newest.get("run_id") and s.get("run_id") == newest["run_id"] and _within_a_day(s, newest))]
        if found:
            if callable(calibration_s):
                calibration_s = calibration_s()
            factors = [slower_by(calibration_s, s["calibration_s"], s.get("cpu"), s.get("cpu_identity")) for s in found]
            scaled = [dict(s, wall_s=s["wall_s"] * f, fixed_s=s["fixed_s"] * f, startup_s=s["startup_s"] * f,
                           functions={n: t * f for n, t in s["functions"].items()},
                           long={n: [t * f for t in ts] for n, ts in s["long"].items()})
                      for s, f in zip(found, factors)]
            return Expected(_median_prediction(scaled, functions, want), "reference", scale=statistics.median(factors),
                            by_name=any(scaled_by_name(calibration_s, s["calibration_s"], s.get("cpu"),
                                                       s.get("cpu_identity")) for s in found))
        return Expected(default(want, functions), "default")


def setup(image: str, profile: str, framework: str, device: str, compiler: str, mode: str, quick: bool, task: str,
          later: bool, standby: bool = False, timeout_s: Optional[float] = None) -> Dict[str, Any]:
    """The facts (HOST_KEY) of a repeat to expect; `later`: not its cell's first in the run, so that its first calls
    may be served by the caches the first one filled, where a cache serves the cell (compile_caches.served);
    `standby`: its worker starts up while the repeat before it runs, out of its wall; `timeout_s`: its per-case
    timeout, where a case an earlier run took longer over is stopped."""
    cfg = Config(framework=framework, device=device, out="", curated_root="", mode=mode, compiler=compiler, task=task)
    return {"image": image, "profile": profile, "framework": framework, "device": device, "compiler": compiler,
            "mode": mode, "quick": quick, "task": task, "cached": later and served(cfg), "standby": standby,
            "timeout_s": timeout_s}


def default(want: Dict[str, Any], functions: Optional[List[str]]) -> float:
    if want.get("task", "cases") != "cases":
        return DEFAULT_TASK_S.get(want["task"], DEFAULT_FIXED_S)
    per_function = DEFAULT_FUNCTION_S.get(want.get("compiler") or "eager", DEFAULT_FUNCTION_S["eager"])
    return DEFAULT_FIXED_S + per_function * (len(functions) if functions is not None else 60)


def _first_matching(summaries: List[Dict[str, Any]], want: Dict[str, Any], keys: Iterable[str]) -> List[Dict[str, Any]]:
    """The summaries that match `want` on every key, else on every key but "cached" (a cold repeat predicts a cached
    one, and the other way round, where only that one ran)."""
    keys = list(keys)
    for wanted in (keys, [k for k in keys if k != "cached"]):
        found = [s for s in summaries if all(s["key"].get(k) == want.get(k) for k in wanted)]
        if found:
            return found
    return []


def _median_prediction(found: List[Dict[str, Any]], functions: Optional[List[str]], want: Dict[str, Any]) -> float:
    # Each file's functions with their cases stopped at the repeat's own timeout, once for the pool and the predictions
    found = [dict(s, functions=_within_timeout(s, want.get("timeout_s"))) for s in found]
    # What each function took in any of the files (repeats of the setup, or parts that split its functions)
    pooled: Dict[str, List[float]] = {}
    for s in found:
        for name, took in s["functions"].items():
            pooled.setdefault(name, []).append(took)
    others = {name: statistics.median(took) for name, took in pooled.items()}
    return statistics.median(_prediction(s, functions, want, others) for s in found)


def _prediction(s: Dict[str, Any], functions: Optional[List[str]], want: Dict[str, Any],
                others: Dict[str, float]) -> float:
    """What the repeat `s` says of a repeat running `functions`: its fixed part, each function's cases (one it did
    not run: what the setup's other files say of it, else the median of those it ran), and its start-up unless the
    repeat will start on standby."""
    startup = 0.0 if want.get("standby") else s["startup_s"]
    if not s["functions"]:
        return s["wall_s"] + startup if functions is None else default(want, functions)
    if functions is None:  # the whole run, its cases cut short by a budget included
        return s["fixed_s"] + startup + sum(s["functions"].values()) + s.get("unrun_s", 0.0)
    typical = statistics.median(s["functions"].values())
    return s["fixed_s"] + startup + sum(s["functions"].get(f, others.get(f, typical)) for f in functions)


def _within_timeout(s: Dict[str, Any], timeout_s: Optional[float]) -> Dict[str, float]:
    """Each function's time in the repeat `s`, its cases that ran longer than `timeout_s` stopped there."""
    if not timeout_s:
        return s["functions"]
    return {name: t - sum(max(0.0, took - timeout_s) for took in s["long"].get(name, ()))
            for name, t in s["functions"].items()}


def _within_a_day(s: Dict[str, Any], newest: Dict[str, Any]) -> bool:
    """Whether `s` started within a day before `newest` (a run id names a run's folder, which another day's run
    may name alike)."""
    try:
        return (datetime.fromisoformat(newest["started_at"]) - datetime.fromisoformat(s["started_at"])) < timedelta(1)
    except (KeyError, TypeError, ValueError):
        return False


def summarize_archive(path: Path) -> List[Dict[str, Any]]:
    """The finished repeats of a kept run (its records.tar.xz), summarized: what History reads of a reference."""
    return [s for s in map(summarize, _tar_members(path)) if s]


def _tar_members(path: Path) -> Iterator[List[bytes]]:
    with tarfile.open(path) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".jsonl"):
                f = tar.extractfile(member)
                if f is not None:
                    yield f.read().splitlines()


def selected(names: Iterable[str], patterns: Iterable[str]) -> List[str]:
    """The curated functions `patterns` select (all where there are none), as the harness selects them."""
    patterns = list(patterns)
    return [n for n in names if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns)]


# The measure of an expectation: within this share of the wall it came true in.
WITHIN = 0.25


def within(expected_s: float, actual_s: float) -> bool:
    """Whether a wall expected at `expected_s` came true within WITHIN of the `actual_s` it took."""
    return abs(expected_s - actual_s) <= WITHIN * actual_s


def format_wall(seconds: Optional[float]) -> str:
    """"1 h 05 min", "12 min", "40 s"."""
    if seconds is None:
        return "-"
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    if seconds >= 120:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds)} s"


def describe(expected: List[Expected]) -> str:
    """The expected total of some repeats and where the figures come from: of the reference runs, how they were
    scaled to this host."""
    sources = ", ".join(f"{n} from {source}{_scaled(expected) if source == 'reference' else ''}"
                        for source in ("this host", "reference", "default")
                        for n in [sum(e.source == source for e in expected)] if n)
    return (f"expected in all: about {format_wall(sum(e.seconds for e in expected))} for {len(expected)} repeats "
            f"({sources or 'none'}; building environments not included)")


def _scaled(expected: List[Expected]) -> str:
    """" scaled x1.4-1.8 ..." or " as they ran ...": what the reference runs' walls were multiplied by."""
    scales = sorted({round(e.scale, 2) for e in expected if e.source == "reference" and e.scale is not None})
    if not scales or scales == [1.0]:
        return " as they ran (made on an accelerator machine, whose records name no CPU, or without a calibration)"
    shown = f"x{scales[0]:.2f}" if len(scales) == 1 else f"x{scales[0]:.2f}-{scales[-1]:.2f}"
    text = (f" scaled {shown} by this host's calibration now against theirs, squared on the same kind of CPU, its "
            f"square root on another")
    if any(e.by_name for e in expected):
        text += ("; the same kind known by its name only (the reference records no CPU identity; two CPUs of one "
                 "name have timed the calibration 1.5 times apart)")
    return text
