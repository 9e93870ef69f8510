"""The matrix: expand matrix.toml into cells, run those this host can one after another, merge the results.

The plan and each cell's status live in results/<run-id>/matrix.json, rewritten after every change,
so a killed run can be continued with --resume and merged.json always reflects what finished.
Cells run one after another, never side by side: a neighbour would disturb the timings.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

from runner import cell, devices, images, matrix
from runner.errors import UserError
from runner.report import summary
from runner.results import merge, store

STATE = "matrix.json"
RUNNABLE = ("pending", "failed", "running")


@dataclass
class PlannedCell:
    image: str
    framework: str
    device: str
    profile: str
    repeats: int = 1
    status: str = "pending"  # pending, running, done, failed, not_run, excluded
    reason: Optional[str] = None
    backend: Optional[str] = None
    files: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.image}/{self.profile}"

    def results_file(self, run_dir: Path, spec: images.ImageSpec, repeat: int) -> Path:
        return cell.results_file(run_dir, spec, self.profile, repeat, self.repeats)


@dataclass
class Options:
    backend: str = "auto"  # resolved to docker or local by plan()
    quick: bool = False
    functions: list[str] = field(default_factory=list)
    base: Optional[str] = None
    mode: Optional[str] = None
    timeout_s: Optional[float] = None
    repeats: Optional[int] = None  # instead of matrix.toml's


def cell_images(root: Path, m: matrix.Matrix) -> list[str]:
    """Every framework x device of the matrix that has an image folder, then the opt-in images."""
    specs = images.specs(root / "images")
    names = [s.name for f in m.frameworks for d in m.devices for s in specs if (s.framework, s.device) == (f, d)]
    for name in m.include:
        images.load(root / "images", name)  # an unknown name is an error, not a silent omission
        names += [name] * (name not in names)
    return names


def plan(root: Path, m: matrix.Matrix, opts: Options, profiles: Optional[list[str]] = None,
         only: Optional[list[str]] = None) -> list[PlannedCell]:
    """The cells with what will happen to each: pending, or not run / excluded with the reason."""
    opts.backend = cell.choose_backend(opts.backend)
    names = only or cell_images(root, m)
    cells = []
    for profile in profiles or m.matrix_profiles:
        m.profile(profile)
        for name in names:
            spec = images.load(root / "images", name)
            s = m.settings(spec.name, spec.framework, spec.device, profile)
            c = PlannedCell(spec.name, spec.framework, spec.device, profile, opts.repeats or s.repeats,
                            backend=opts.backend)
            c.reason = (s.excluded or devices.absent_reason(spec.device)
                        or _no_functions(root, spec.framework, opts.functions)
                        or _backend_reason(opts.backend, spec.device))
            c.status = "excluded" if s.excluded else "not_run" if c.reason else "pending"
            cells.append(c)
    return cells


def _no_functions(root: Path, framework: str, patterns: list[str]) -> Optional[str]:
    if patterns and not cell.matching_patterns(root, framework, patterns):
        return f"--functions selects no curated {framework} function"
    return None


def _backend_reason(backend: str, device: str) -> Optional[str]:
    if backend == "docker" and device == "cuda":
        from runner.backends import docker_engine
        return docker_engine.nvidia_runtime_reason(docker_engine.client())
    return None


def run(root: Path, m: matrix.Matrix, cells: list[PlannedCell], run_dir: Path, run_id: str, opts: Options,
        resume: bool, progress: Callable[[PlannedCell, int, int, int], object],
        on_error: Callable[[PlannedCell, str], None] = lambda c, e: None) -> dict:
    """Run the pending cells; returns the merged record. progress(cell, repeat, index, total) gives a CellProgress."""
    run_dir.mkdir(parents=True, exist_ok=True)
    cells = _continue(run_dir, cells) if resume else _fresh(root, run_dir, cells)
    todo = [c for c in cells if c.status in RUNNABLE]
    for index, c in enumerate(todo, 1):
        spec = images.load(root / "images", c.image)
        c.status, c.reason = "running", None
        _save(run_dir, run_id, cells)
        try:
            for repeat in range(1, c.repeats + 1):
                out = c.results_file(run_dir, spec, repeat)
                c.files += [out.name] * (out.name not in c.files)
                if store.read(str(out)).footer is not None:
                    continue  # this repeat finished before the run was killed
                req = cell.CellRequest(image=c.image, profile=c.profile, out_dir=run_dir,
                                       functions=cell.matching_patterns(root, c.framework, opts.functions),
                                       mode=opts.mode, quick=opts.quick, timeout_s=opts.timeout_s,
                                       resume=out.exists(), run_id=run_id, repeat=repeat, repeats=c.repeats,
                                       backend=c.backend or "local", base=opts.base)
                with progress(c, repeat, index, len(todo)) as display:
                    cell.run_cell(root, m, req, display, log=display.log)
            c.status = "done"
        except (UserError, store.CorruptResults) as e:  # one failed cell is recorded; the matrix goes on
            c.status, c.reason = "failed", str(e)
            on_error(c, str(e))
        finally:  # also when interrupted: the cell stays `running` and --resume continues it
            _save(run_dir, run_id, cells)
            merged = _publish(run_dir, run_id, cells)
    return merged if todo else _publish(run_dir, run_id, cells)


def _publish(run_dir: Path, run_id: str, cells: list[PlannedCell]) -> dict:
    """merged.json and summary.md as they stand now."""
    merged = merge.merge(run_dir, run_id, [asdict(c) for c in cells])
    merge.write_text(run_dir / "summary.md", summary.matrix_markdown(merged))
    return merged


def _fresh(root: Path, run_dir: Path, cells: list[PlannedCell]) -> list[PlannedCell]:
    if (run_dir / STATE).exists():
        raise UserError(f"{run_dir} already holds a matrix run; pass --resume to continue it or choose another --out")
    for c in cells:
        if c.status == "pending":
            spec = images.load(root / "images", c.image)
            out = c.results_file(run_dir, spec, 1)
            if out.exists():
                raise UserError(f"{out} already holds results; pass --resume to continue it or choose another --out")
    return cells


def _continue(run_dir: Path, cells: list[PlannedCell]) -> list[PlannedCell]:
    """Keep what the earlier run of this folder finished; cells new to the plan are added."""
    path = run_dir / STATE
    if not path.exists():
        return cells
    try:
        previous = {c["key"]: c for c in json.loads(path.read_text())["cells"]}
    except (ValueError, KeyError, TypeError) as e:
        raise UserError(f"{path} is damaged ({e}); move it away and rerun with --resume, or choose another --out")
    for c in cells:
        before = previous.get(c.key)
        if before and c.status == "pending":
            c.files = before.get("files", [])
            if before.get("status") == "done":
                c.status, c.reason = "done", None
    return cells


def _save(run_dir: Path, run_id: str, cells: list[PlannedCell]) -> None:
    merge.write_json(run_dir / STATE, {"run_id": run_id, "cells": [{"key": c.key, **asdict(c)} for c in cells]})
