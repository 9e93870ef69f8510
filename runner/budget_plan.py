"""How `make device-check BUDGET_S=840` spends a machine lent for minutes: which steps of which cells run, in which
lane, in what order, and which do not fit. Standard library only: scripts/device_check.py runs it in the measured
machine's own Python.

Priority: every accelerator cell's steps before any CPU cell's, and across cells step by step in the order asked
(every cell's steady before any compiled), so that a short budget still sees every framework on the accelerator.
A census is open-ended: it runs until the budget ends (what it measured counts, the rest is recorded as cut short),
so it starts wherever OPEN_MIN_S are left. Lanes run steps side by side, as the H100 reference run's three did
(results/reference/h100-2026-11-26), within what the device allows (`holds`): PyTorch and JAX steps share a GPU
(with lanes, the check turns JAX's preallocation of 75 % of the GPU's memory off); TensorFlow, untried beside
anything on a GPU, runs beside nothing there; a TPU's chips belong to one process. A lane takes the first step, in
priority order, that the device allows now and that is expected to end within the budget; a curated step expected
to take more than half the budget that can share its device is split over lanes by function, as the H100 run split
torch.compile's functions over two workers. One policy (`Scheduler`) both plans (`simulate`, with the expected
durations: the dry run and device-check.txt) and runs the check (scripts/device_check.py, with the real ones), so
what the plan shows is what the run does as far as the estimates hold; a step that runs longer is stopped at the
budget with its cases so far kept (the harness's run budget, Config.stop_at).

Expected durations come from an estimator, `estimate(framework, device, step) -> (seconds, source)`; the default,
`reference_walls`, holds the step walls of the reference runs, and another (earlier runs' records) plugs in there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

SHORT = {"torch": "torch", "jax": "jax", "tensorflow": "tf"}  # a framework's images' prefix
CURATED_STEPS = ("quick", "steady", "compiled", "backward")  # the curated cases: split over lanes by function
OPEN_ENDED = ("census",)
OPEN_MIN_S = 60.0  # an open-ended step starts only with this much left: its framework's import and collection

Estimate = Callable[[str, str, str], Tuple[float, str]]

# The step walls of the reference runs (each step one harness run; the runs' records give began_at and duration_s of
# every case): three lanes on one GPU and 16 CPU cores, or a 2-core CPU for the CPU cells. `quick` is a steady pass's
# wall over 3.78 (benchmarks/matrix_speed.py's figure, docs/method.md); a whole census is its pairs at the pace the
# GPU runs measured (torch 6059 pairs at 0.12 s, jax 1209 at 0.57 s).
_H100, _H200, _CPU2 = "H100 2026-11-26", "H200 2026-11-26", "2-core CPU 2026-11-26"
REFERENCE_WALLS: Dict[Tuple[str, str, str], Tuple[float, str]] = {
    ("torch", "cuda", "steady"): (82.0, _H100), ("torch", "cuda", "compiled"): (701.0, _H100),
    ("torch", "cuda", "declared"): (30.0, _H100), ("torch", "cuda", "census"): (730.0, _H100),
    ("jax", "cuda", "steady"): (234.0, _H200), ("jax", "cuda", "compiled"): (222.0, _H100),
    ("jax", "cuda", "declared"): (25.0, _H200), ("jax", "cuda", "census"): (690.0, _H200),
    ("torch", "cpu", "steady"): (44.0, _CPU2), ("torch", "cpu", "compiled"): (900.0, _CPU2),
    ("jax", "cpu", "steady"): (176.0, _CPU2), ("jax", "cpu", "compiled"): (219.0, _CPU2),
    ("tensorflow", "cpu", "steady"): (66.0, _CPU2), ("tensorflow", "cpu", "compiled"): (453.0, _CPU2),
}
# Where no run measured the step: the largest of its kind above, rounded up.
DEFAULT_WALLS = {"quick": 70.0, "steady": 250.0, "compiled": 900.0, "backward": 250.0, "declared": 60.0,
                 "census": 900.0}
QUICK_SHARE = 1 / 3.78


def reference_walls(framework: str, device: str, step: str) -> Tuple[float, str]:
    """The reference runs' wall for the step, or the default of its kind."""
    if step == "quick":
        seconds, source = reference_walls(framework, device, "steady")
        return seconds * QUICK_SHARE, source
    return REFERENCE_WALLS.get((framework, device, step), (DEFAULT_WALLS[step], "default"))


def with_given(walls: Dict[str, float], estimate: Estimate = reference_walls) -> Estimate:
    """An estimator that takes the seconds given per step (`--expect compiled=500`) over `estimate`'s."""
    def given(framework: str, device: str, step: str) -> Tuple[float, str]:
        return (walls[step], "given") if step in walls else estimate(framework, device, step)
    return given


@dataclass(frozen=True)
class Step:
    framework: str
    device: str
    name: str  # quick, steady, compiled, backward, declared, census
    expected_s: float
    source: str  # where expected_s comes from
    part: str = ""  # "a", "b", ...: the step split over lanes, each part some of its functions
    functions: Tuple[str, ...] = ()  # a part's functions (else the check's own selection)

    @property
    def image(self) -> str:
        return f"{SHORT[self.framework]}-{self.device}"

    @property
    def label(self) -> str:
        return f"{self.image} {self.name}" + (f" ({self.part})" if self.part else "")

    @property
    def open_ended(self) -> bool:
        return self.name in OPEN_ENDED

    @property
    def holds(self) -> Dict[str, str]:
        """What of the device the step's process holds, and how: shared or exclusive (see the module's text)."""
        if self.device == "tpu":
            return {"tpu": "exclusive"}
        if self.device != "cuda":
            return {}
        if self.framework == "tensorflow":
            return {"cuda": "exclusive"}
        # JAX would take 75 % of the GPU's memory when it starts, but the check turns that preallocation off whenever
        # lanes run side by side (scripts/device_check.py), so its steps share the GPU as PyTorch's do.
        return {"cuda": "shared"}


def steps(cells: Sequence[Tuple[str, str]], names: Sequence[str], selected: Dict[str, Tuple[List[str], int]],
          budget_s: float, lanes: int, estimate: Estimate = reference_walls) -> List[Step]:
    """The steps of the cells ([(framework, device)]) in priority order, with their expected durations;
    `selected[framework]`: the curated functions the check selects and how many the framework has (a curated
    step's estimate, made for all of them, is scaled to the selection, which a long step is split over)."""
    out: List[Step] = []
    for on_cpu in (False, True):
        for name in sorted(names, key=lambda n: n in OPEN_ENDED):  # stable: the order asked, the census last
            for framework, device in (c for c in cells if (c[1] == "cpu") == on_cpu):
                seconds, source = estimate(framework, device, name)
                if name not in CURATED_STEPS:
                    out.append(Step(framework, device, name, seconds, source))
                    continue
                functions, every = selected[framework]
                step = Step(framework, device, name, seconds * len(functions) / max(every, 1), source)
                out += _split(step, functions, budget_s, lanes)
    return out


def _split(step: Step, selected: List[str], budget_s: float, lanes: int) -> List[Step]:
    """The step, or its parts: one expected to take more than half the budget, on a device it can share, runs as up
    to `lanes` parts of its functions (dealt in turn, so each part has as many as the others, give or take one)."""
    everything = max(len(selected), 1)
    shareable = all(mode == "shared" for mode in step.holds.values())
    parts = min(lanes, len(selected), math.ceil(step.expected_s / (budget_s / 2))) if shareable else 1
    if parts <= 1 or budget_s == math.inf:
        return [step]
    return [replace(step, part=chr(ord("a") + i), functions=tuple(selected[i::parts]),
                    expected_s=step.expected_s * len(selected[i::parts]) / everything) for i in range(parts)]


@dataclass
class Scheduler:
    """The queue of steps and what runs now: which step a free lane takes next."""
    queue: List[Step]
    running: List[Step] = field(default_factory=list)

    def allowed(self, step: Step) -> bool:
        for resource, mode in step.holds.items():
            for other in self.running:
                theirs = other.holds.get(resource)
                if theirs is not None and "exclusive" in (mode, theirs):
                    return False
        return True

    def fits(self, step: Step, left_s: float) -> bool:
        return left_s >= OPEN_MIN_S if step.open_ended else step.expected_s <= left_s

    def take(self, left_s: float) -> Optional[Step]:
        """The first step, in priority order, that the device allows now and that fits in `left_s`; it is running
        from now."""
        for step in self.queue:
            if self.allowed(step) and self.fits(step, left_s):
                self.queue.remove(step)
                self.running.append(step)
                return step
        return None

    def blocked(self, left_s: float) -> bool:
        """Whether a step that fits waits only for the device (a lane should wait, not stop)."""
        return any(self.fits(step, left_s) for step in self.queue)

    def done(self, step: Step) -> None:
        self.running.remove(step)

    def drop(self, framework: str, device: str) -> List[Step]:
        """The cell's steps still queued, taken out (its build cannot run on the device)."""
        gone = [s for s in self.queue if (s.framework, s.device) == (framework, device)]
        self.queue = [s for s in self.queue if s not in gone]
        return gone


@dataclass
class Planned:
    step: Step
    lane: int  # from 1
    start_s: float
    end_s: float  # expected; an open-ended step's is the budget's end


@dataclass
class Plan:
    budget_s: float
    lanes: int
    planned: List[Planned]
    left_out: List[Step]  # expected not to fit

    def lines(self) -> List[str]:
        """The plan as device-check.txt and the dry run show it."""
        within = f"within {self.budget_s:g} s" if self.budget_s < math.inf else "with no budget"
        sources = sorted({p.step.source for p in self.planned} | {s.source for s in self.left_out})
        out = [f"plan: {self.lanes} lane{'s' * (self.lanes > 1)} {within} (expected walls: {', '.join(sources)})"]
        for lane in range(1, self.lanes + 1):
            mine = [p for p in self.planned if p.lane == lane]
            out.append(f"  lane {lane}: " + ("; ".join(
                f"{p.step.label} {p.start_s:.0f}-{p.end_s:.0f} s"
                + (" (until the budget)" if p.end_s == self.budget_s and p.step.open_ended else "")
                for p in mine) or "nothing"))
        left: Dict[str, float] = {}  # a step whose every part is left out is one line
        for step in self.left_out:
            name = step.label if any(p.step.name == step.name and p.step.image == step.image
                                     for p in self.planned) else f"{step.image} {step.name}"
            left[name] = left.get(name, 0.0) + step.expected_s
        out += [f"  does not fit: {name} ({seconds:.0f} s expected)" for name, seconds in left.items()]
        return out


def simulate(queue: Iterable[Step], lanes: int, budget_s: float) -> Plan:
    """The plan: the Scheduler's choices with every step taking its expected time."""
    scheduler = Scheduler(list(queue))
    free = [0.0] * lanes  # when each lane is next free; math.inf once it has nothing left to take
    ends: Dict[int, float] = {}  # id(step) -> expected end, for the steps running
    planned: List[Planned] = []
    while min(free) < math.inf:
        lane = free.index(min(free))
        now = free[lane]
        for step in list(scheduler.running):
            if ends[id(step)] <= now:
                scheduler.done(step)
        step = scheduler.take(budget_s - now)
        if step is not None:
            end = now + step.expected_s if not step.open_ended else min(budget_s, now + step.expected_s)
            ends[id(step)] = end
            planned.append(Planned(step, lane + 1, now, end))
            free[lane] = end
        elif scheduler.blocked(budget_s - now) and any(ends[id(s)] > now for s in scheduler.running):
            free[lane] = min(ends[id(s)] for s in scheduler.running if ends[id(s)] > now)
        else:
            free[lane] = math.inf
    return Plan(budget_s, lanes, planned, scheduler.queue)
