"""The plan: matrix.toml plus the command line's options, resolved once into frozen cells.

Precedence, applied here and nowhere else: an option given on the command line, then the matrix.toml
[[override]]s that match the cell (in the order written), then [matrix], then the defaults in matrix.py.
A cell also knows why it cannot run (excluded, a device this host lacks, no selected function, a backend
that cannot serve the device); everything downstream (engine, backend, harness) reads cells and never
re-derives a setting.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Optional

from runner import backends, devices
from runner.cell import Cell
from runner.errors import UserError
from runner.matrix import QUICK_BUDGET_S, QUICK_CASE_S, Profile
from runner.project import Project


@dataclass(frozen=True)
class Options:
    """What the command line asked for; None (or empty) leaves the choice to matrix.toml."""
    profiles: tuple[str, ...] = ()
    images: tuple[str, ...] = ()  # only these images (runner bench); default: the matrix's cells
    engine: str = "local"  # local: this host runs the cells; ray: the nodes of a Ray cluster do
    backend: str = "auto"
    functions: tuple[str, ...] = ()  # fnmatch patterns over sampled names
    quick: bool = False
    budget_s: Optional[float] = None  # the run's time budget; None: QUICK_BUDGET_S for a --quick run, else none; 0: none
    mode: Optional[str] = None
    compilers: tuple[str, ...] = ()  # eager, compiled or both; () leaves it to matrix.toml's `compiler`
    timeout_s: Optional[float] = None
    repeats: Optional[int] = None
    base: Optional[str] = None
    task: str = "cases"  # cases: the curated modules; census: every op x dtype of the framework's database
    census_ops: tuple[str, ...] = ()  # census: fnmatch patterns over the database's op names; () all
    census_dtypes: tuple[str, ...] = ()  # census: canonical dtype names; () all
    census_undeclared: bool = False  # census: also the dtypes the device does not declare
    extra_env: tuple[str, ...] = ()  # python[:PATH] backend: variables passed beyond existing.PASSED (--env)
    tpu_dtypes: Optional[str] = None  # the TPU model's dtype rules (protocol.TPU_DTYPES); None: matrix.toml's


def plan(project: Project, options: Options) -> list[Cell]:
    """The cells of the given profiles (default: matrix.toml's) and images (default: the matrix's cells); for a
    matrix run, also the cells of matrix.toml's [[environment]]s (environments the user has)."""
    m = project.matrix
    _check_counts(options)
    here = options.engine == "local"  # else the cluster's nodes have the devices and choose the backend
    backend = backends.choose(options.backend) if here else backends.check(options.backend)
    names = options.images or tuple(project.cell_images())
    existing = backends.is_existing(backend)
    budget = (QUICK_BUDGET_S if options.quick else 0.0) if options.budget_s is None else options.budget_s
    stop_at = time.time() + budget if budget > 0 else None  # the budget counts from here
    cells = []
    for profile_name in _profiles(project, options, existing):
        if not existing:
            m.profile(profile_name)  # an unknown profile is an error before anything runs
        for name in names:
            cells += _cells(project, options, project.image(name), backend, profile_name if not existing else None,
                            label=profile_name if existing else None, stop_at=stop_at)
    if not options.images and options.task == "cases" and not existing:
        for env in m.environments:
            if options.profiles and env.name not in options.profiles:
                continue
            for name in names:
                spec = project.image(name)
                if (not env.frameworks or spec.framework in env.frameworks) and \
                        (not env.devices or spec.device in env.devices):
                    cells += _cells(project, options, spec, f"python:{env.python}", None, label=env.name,
                                    stop_at=stop_at)
    return cells


def _check_counts(options: Options) -> None:
    """A count the command line gave that cannot be run: one line before anything (0 repeats read as falsy would
    otherwise fall back to matrix.toml's count, and a timeout of 0 or less would kill every case at once)."""
    if options.repeats is not None and options.repeats < 1:
        raise UserError(f"--repeats {options.repeats}: give 1 or more (leave it out for matrix.toml's count)")
    if options.timeout_s is not None and options.timeout_s <= 0:
        raise UserError(f"--timeout {options.timeout_s:g}: give a number of seconds above 0 (leave it out for "
                        "matrix.toml's)")


def _cells(project: Project, options: Options, spec, backend: str, profile: Optional[str],
           label: Optional[str], stop_at: Optional[float]) -> list[Cell]:
    """One image's cells (one per mode and compiler) for a profile of matrix.toml, or, given a `label`, in an existing
    environment (backend python:PATH), where no pins apply and the profile is that label."""
    m, here = project.matrix, options.engine == "local"
    s = m.settings(spec.name, spec.framework, spec.device, profile or m.matrix_profiles[0])
    if label is not None:
        s = replace(s, profile=Profile(name=label, python="", packages={}))
    functions = project.matching(spec.framework, options.functions)
    blocked = ((devices.absent_reason(spec.device) if here else None)
               or (f"--functions selects no curated {spec.framework} function"
                   if options.functions and not functions else None)
               or (backends.unavailable_reason(backend, spec.device) if here else None)
               or (_lacks(project, backend, spec.framework) if here and label is not None else None))
    base = None
    if backend in ("docker", "auto") and not s.excluded:
        try:
            base = options.base or s.base or s.profile.base_for(spec.device)
        except UserError:
            if backend == "docker":
                raise  # a node left to choose may still run the cell in a venv
    def excluded(compiler: str) -> Optional[str]:
        if s.excluded or not s.only_compilers or compiler in s.only_compilers:
            return s.excluded
        return f"matrix.toml runs {spec.name} {' and '.join(s.only_compilers)} only (its override's compiler)"

    return [Cell(image=spec, profile=s.profile, backend=backend, repeats=options.repeats or s.repeats,
                 timeout_s=options.timeout_s or s.timeout_s, case_budget_s=QUICK_CASE_S if options.quick and not options.timeout_s else None,
                 stop_at=stop_at, cell_timeout_s=s.cell_timeout_s, mode=mode,
                 quick=options.quick, memory=s.memory, precision=s.precision, confidence=s.confidence, cpus=s.cpus,
                 numerics=s.numerics, functions=functions, base=base, excluded=excluded(compiler),
                 blocked=None if excluded(compiler) else blocked, task=options.task, census_ops=options.census_ops,
                 census_dtypes=options.census_dtypes, census_undeclared=options.census_undeclared,
                 extra_env=options.extra_env, compiler=compiler, tpu_dtypes=options.tpu_dtypes or s.tpu_dtypes)
            for mode in ((options.mode,) if options.mode else s.modes)
            for compiler in (options.compilers or s.compilers)]


def _profiles(project: Project, options: Options, existing: bool) -> tuple[str, ...]:
    """The profiles to plan. An existing environment has one, its label: a --profile that matrix.toml does not
    define names it, else `existing`."""
    if not existing:
        return options.profiles or tuple(project.matrix.matrix_profiles)
    named = [p for p in options.profiles if p not in project.matrix.profiles]
    return (named[0] if named else "existing",)


def _lacks(project: Project, backend: str, framework: str) -> Optional[str]:
    """Why an existing environment cannot serve the framework (an interpreter that does not run is an error)."""
    from runner.backends import existing

    return existing.lacks(existing.interpreter(backend), framework, project.harness_dir)
