"""Run one cell (an image spec for a profile) through a backend: the library API behind `runner bench`."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from runner import catalog, images, matrix
from runner.backends import local
from runner.errors import UserError

Event = dict


@dataclass
class CellRequest:
    image: str
    profile: str = "current"
    out_dir: Path = Path("results")
    functions: list[str] = field(default_factory=list)
    mode: str = "steady"
    quick: bool = False
    timeout_s: float = 900.0
    resume: bool = False
    run_id: str = ""


def results_file(out_dir: Path, spec: images.ImageSpec, profile: str) -> Path:
    return out_dir / f"{spec.framework}-{spec.device}-{profile}.jsonl"


def run_cell(root: Path, req: CellRequest, on_event: Callable[[Event], None],
             log: Callable[[str], None] = lambda s: None) -> Path:
    """Realise the image, run the harness in it, pass its progress events on; returns the results file."""
    m = matrix.load(root / "matrix.toml")
    profile = m.profile(req.profile)
    spec = images.load(root / "images", req.image)
    check_functions(root, spec.framework, req.functions)
    out = results_file(req.out_dir, spec, req.profile)
    if out.exists() and out.stat().st_size and not req.resume:
        raise UserError(f"{out} already holds results; pass --resume to continue it or choose another --out")
    venv = local.ensure_venv(spec, profile, log)
    args = ["--framework", spec.framework, "--device", spec.device, "--out", str(out.resolve()),
            "--curated", str(root / "curated"), "--mode", req.mode, "--timeout", str(req.timeout_s),
            "--profile", req.profile, "--image", spec.name, "--run-id", req.run_id]
    args += [a for pattern in req.functions for a in ("--functions", pattern)]
    args += ["--quick"] * req.quick + ["--resume"] * req.resume
    for event in local.run_harness(venv, args, root):
        if event["event"] == "error":
            raise UserError(f"{spec.name} ({req.profile}): {event['message']}", code=3)
        if event["event"] == "exit":
            raise UserError(f"{spec.name} ({req.profile}): the harness exited with status {event['returncode']}: "
                            f"{(event['stderr'].splitlines() or ['no output'])[-1]}", code=3)
        on_event(event)
    return out


def check_functions(root: Path, framework: str, patterns: list[str]) -> None:
    names = [f.name for f in catalog.curated(str(root / "curated"), framework)]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(n, pattern) for n in names):
            raise UserError(f"--functions {pattern!r} matches no curated {framework} function; "
                            f"see `runner list --framework {framework}`")
