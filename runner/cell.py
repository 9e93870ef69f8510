"""Run one cell (an image spec for a profile, one repeat) through a backend: local venv or Docker container."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from runner import catalog, images, matrix
from runner.backends import local
from runner.errors import UserError
from runner.results import record

Event = dict
BACKENDS = ("auto", "docker", "local")


@dataclass
class CellRequest:
    image: str
    profile: str = "current"
    out_dir: Path = Path("results")
    functions: list[str] = field(default_factory=list)
    mode: Optional[str] = None  # default: matrix.toml's
    quick: bool = False
    timeout_s: Optional[float] = None  # per case; default: matrix.toml's for this cell
    resume: bool = False
    run_id: str = ""
    repeat: int = 1
    repeats: int = 1
    backend: str = "local"
    base: Optional[str] = None  # docker: a base image instead of the profile's


def results_file(out_dir: Path, spec: images.ImageSpec, profile: str, repeat: int = 1, repeats: int = 1) -> Path:
    suffix = f"-r{repeat}" if repeats > 1 else ""
    return out_dir / f"{spec.framework}-{spec.device}-{profile}{suffix}.jsonl"


def choose_backend(name: str) -> str:
    """`auto`: docker when an engine answers, else the local venv backend."""
    if name not in BACKENDS:
        raise UserError(f"unknown --backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name != "auto":
        return name
    from runner.backends import docker_engine
    return "docker" if docker_engine.engine_answers() else "local"


def run_cell(root: Path, m: matrix.Matrix, req: CellRequest, on_event: Callable[[Event], None],
             log: Callable[[str], None] = lambda s: None) -> Path:
    """Realise the image, run the harness in it, pass its progress events on; returns the results file."""
    spec = images.load(root / "images", req.image)
    settings = m.settings(spec.name, spec.framework, spec.device, req.profile)
    check_functions(root, spec.framework, req.functions)
    out = results_file(req.out_dir, spec, req.profile, req.repeat, req.repeats)
    if out.exists() and out.stat().st_size and not req.resume:
        raise UserError(f"{out} already holds results; pass --resume to continue it or choose another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    args = harness_args(spec, req, settings)
    if req.backend == "docker":
        events = _in_container(root, req, spec, settings, out, args, log)
    else:
        venv = local.ensure_venv(spec, settings.profile, log)
        args += ["--out", str(out.resolve()), "--curated", str(root / "curated"), "--environment", f"venv {venv.name}"]
        events = local.run_harness(venv, args, root)
    for event in events:
        if event["event"] == "error":
            raise UserError(f"{spec.name} ({req.profile}): {event['message']}", code=3)
        if event["event"] == "exit":
            raise UserError(f"{spec.name} ({req.profile}): the harness exited with status {event['returncode']}: "
                            f"{(event['stderr'].splitlines() or ['no output'])[-1]}", code=3)
        on_event(event)
    return out


def harness_args(spec: images.ImageSpec, req: CellRequest, settings: matrix.CellSettings) -> list[str]:
    args = ["--framework", spec.framework, "--device", spec.device, "--mode", req.mode or settings.mode,
            "--timeout", str(req.timeout_s or settings.timeout_s), "--profile", req.profile, "--image", spec.name,
            "--run-id", req.run_id, "--repeat", str(req.repeat)]
    args += [a for pattern in req.functions for a in ("--functions", pattern)]
    return args + ["--quick"] * req.quick + ["--resume"] * req.resume


def _in_container(root: Path, req: CellRequest, spec: images.ImageSpec, settings: matrix.CellSettings, out: Path,
                  args: list[str], log: Callable[[str], None]) -> Iterator[Event]:
    from runner.backends import docker_engine  # the docker SDK only when this backend is used

    c = docker_engine.client()
    base = req.base or settings.base or settings.profile.base_for(spec.device)
    built = docker_engine.ensure_image(root, spec, settings.profile, base, log, c)
    log(f"{'reusing' if built.reused else 'built'} {built.tag}")
    args += ["--out", f"{docker_engine.RESULTS}/{out.name}", "--curated", docker_engine.CURATED,
             "--environment", f"docker {built.tag} {built.id}"]
    env = {"RUNNER_GIT_COMMIT": record.git_commit(str(root)) or ""}  # the image has no git
    yield from docker_engine.run_harness(c, built.tag, spec.device, args, out.parent, root / "curated",
                                         settings.cell_timeout_s, env, cell_files=[out, out.with_suffix(".log")])


def matching_patterns(root: Path, framework: str, patterns: list[str]) -> list[str]:
    """The patterns that select at least one curated function of the framework."""
    names = [f.name for f in catalog.curated(str(root / "curated"), framework)]
    return [p for p in patterns if any(fnmatch.fnmatchcase(n, p) for n in names)]


def check_functions(root: Path, framework: str, patterns: list[str]) -> None:
    matching = matching_patterns(root, framework, patterns)
    for pattern in patterns:
        if pattern not in matching:
            raise UserError(f"--functions {pattern!r} matches no curated {framework} function; "
                            f"see `runner list --framework {framework}`")
