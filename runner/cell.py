"""A cell: one image for one profile with every setting resolved, as plan.py makes it and everything downstream
(engine, backends, results folder, cluster) reads it. Its own module so that the backends can name it without
importing the plan, which chooses among them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from portability_harness.protocol import Config

from runner import devices
from runner.images import ImageSpec
from runner.matrix import Profile, memory_mb


@dataclass(frozen=True)
class Cell:
    """One image for one profile, with every setting resolved."""
    image: ImageSpec
    profile: Profile  # the matrix's profile with the matching overrides applied
    backend: str  # local or docker; auto on a cluster, where each node decides
    repeats: int
    timeout_s: float  # per case
    cell_timeout_s: float  # docker: the container is killed after this
    mode: str
    quick: bool
    memory: float | str  # the worker's memory limit (docker: the container's), as matrix.toml gives it
    precision: Optional[float]  # steady sampling (protocol.Config)
    confidence: float
    cpus: str
    numerics: str  # strict (no TF32, matmuls at full precision) or vendor (the framework's own defaults)
    functions: tuple[str, ...]  # the patterns that select functions of this framework; () selects all
    base: Optional[str]  # docker: the base image; None for the local backend
    excluded: Optional[str] = None  # the [[exclude]]'s reason
    blocked: Optional[str] = None  # why this host cannot run it
    task: str = "cases"  # or census (protocol.TASKS): a census cell is keyed and filed apart from the cases cell
    census_ops: tuple[str, ...] = ()
    census_dtypes: tuple[str, ...] = ()
    census_undeclared: bool = False
    extra_env: tuple[str, ...] = ()  # python[:PATH] backend: variables passed to the worker beyond existing.PASSED
    compiler: str = "eager"  # protocol.COMPILERS: a compiled cell is keyed and filed apart from the eager one
    tpu_dtypes: str = "current"  # protocol.TPU_DTYPES: the TPU model's dtype rules (xla-cpu cells)
    stop_at: Optional[float] = None  # time.time() when the run's budget ends (a quick pass's): protocol.Config
    case_budget_s: Optional[float] = None  # a quick pass's limit a case (protocol.Config)
    # (first, last): the repeats of this cell one lane runs, the others running in another (runner.lanes); None: all
    part: Optional[tuple[int, int]] = None
    # The repeats the run's time budget leaves room for (1..fits, runner.budget.fit); None: all `repeats`
    fits: Optional[int] = None

    @property
    def memory_limit_mb(self) -> int:
        """In MiB, of the machine that asks: a share is of the memory of the node that runs the cell, not of the
        driver that planned it."""
        return memory_mb(self.memory)

    @property
    def name(self) -> str:
        return self.image.name

    @property
    def framework(self) -> str:
        return self.image.framework

    @property
    def device(self) -> str:
        return self.image.device

    @property
    def _variants(self) -> list[str]:
        """What sets this cell apart from the image's default one (steady, eager, the curated cases)."""
        return [v for v, default in ((self.mode, "steady"), (self.compiler, "eager"), (self.task, "cases"))
                if v != default]

    @property
    def key(self) -> str:
        return "/".join([self.image.name, self.profile.name, *self._variants])

    @property
    def planned(self) -> int:
        """How many repeats this run plans for the cell: `repeats`, or fewer where its budget leaves no room."""
        return self.repeats if self.fits is None else min(self.fits, self.repeats)

    @property
    def later_part(self) -> bool:
        """Whether this is the part of a cell that runs its later repeats, after its first part (runner.lanes)."""
        return self.part is not None and self.part[0] > 1

    @property
    def part_key(self) -> str:
        """The key of this lane's part of the cell (runner.lanes): the cell's own for its first repeats."""
        return f"{self.key}#r{self.part[0]}" if self.later_part else self.key

    @property
    def own_repeats(self) -> range:
        """The repeats this part of the cell runs (all of them where it is not split over lanes)."""
        first, last = self.part or (1, self.planned)
        return range(first, min(last, self.planned) + 1)

    @property
    def continued(self) -> bool:
        """Whether another lane runs this cell's later repeats, with the compilers' caches this part fills."""
        return self.part is not None and self.part[1] < self.planned

    @property
    def label(self) -> str:
        return f"{self.image.name} (" + ", ".join([self.profile.name, *self._variants]) + ")"

    @property
    def runnable(self) -> bool:
        return self.excluded is None and self.blocked is None

    @property
    def initial_status(self) -> str:
        return "excluded" if self.excluded else "not_run" if self.blocked else "pending"

    @property
    def reason(self) -> Optional[str]:
        return self.excluded or self.blocked

    def config(self, out: Path, curated_root: Path, repeat: int, run_id: str, resume: bool, environment: str,
               git_commit: Optional[str], shared_caches: str = "", caches_filled: bool = False) -> Config:
        """The harness config of one repeat of this cell; its repeats share the compilers' caches in the folder
        `shared_caches` beside `out`, which an earlier repeat has `caches_filled` (compile_caches.py)."""
        return Config(framework=self.framework, device=self.device, out=str(out), curated_root=str(curated_root),
                      mode=self.mode, compiler=self.compiler, quick=self.quick, functions=list(self.functions), timeout_s=self.timeout_s,
                      stop_at=self.stop_at, case_budget_s=self.case_budget_s,
                      resume=resume, run_id=run_id, profile=self.profile.name, image=self.name, repeat=repeat,
                      environment=environment, git_commit=git_commit, memory_limit_mb=self.memory_limit_mb,
                      precision=self.precision, confidence=self.confidence, cpus=self.cpus, task=self.task,
                      census_ops=list(self.census_ops), census_dtypes=list(self.census_dtypes),
                      census_undeclared=self.census_undeclared, numerics=self.numerics, tpu_dtypes=self.tpu_dtypes,
                      shared_caches=shared_caches, caches_filled=caches_filled,
                      device_facts=devices.facts(self.device))  # read where the cell runs (a Ray node, too)
