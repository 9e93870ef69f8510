"""`runner declared`: what a framework version declares each device kind supports, read inside its cell's
environment (a venv or an image, through the same backends as a run) and kept as versioned data beside the
results: results/declared/<framework>-<version>.json.gz. The report sets these declarations beside what was
measured; the harness reads the same declarations from the framework to classify a support failure.

The CPU image of the framework is the default environment: on this machine it is the one that can be built,
and it knows what TensorFlow (the full wheel's GPU kernels, XLA's lowerings), PyTorch (the OpInfo database)
and JAX (the lowering rules and test harnesses) declare for the other device kinds too; each table says what
its environment could not know.
"""
from __future__ import annotations

import dataclasses
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from portability_harness import declared
from portability_harness.protocol import Notice

from runner import backends
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project

if TYPE_CHECKING:
    from runner.report.load import Results

SHIPPED = Path(__file__).parent / "report" / "data" / "declared"  # the tables of the 2023 pins, kept in the package
FOLDER = "declared"  # under results/


def folders(results: Optional[Path]) -> list[Path]:
    """Where a reader looks for tables: the results' own declared/ folder, then the shipped ones."""
    return [p for p in ((results / FOLDER) if results else None, SHIPPED) if p is not None]


def report_folders(results: Results) -> list[Path]:
    """Where a report looks for tables: each results source's declared/ folder and its parent's (a run folder
    beside the shared results/declared/), a kept folder's beside its archive, then the shipped ones."""
    return [p for s in [*results.sources, *results.kept.values()] for p in (s / FOLDER, s.parent / FOLDER)] + [SHIPPED]


def table_for(framework: str, version: str, where: list[Path]) -> Optional[dict]:
    for folder in where:
        path = declared.table_path(str(folder), framework, version)
        if path:
            return declared.load(path)
    return None


def read_in_environment(project: Project, framework: str, profile: str, image: Optional[str], backend: str,
                        out: Path, log=lambda s: None, base: Optional[str] = None) -> Path:
    """Run the reading in the framework's cell environment (docker: built on `base` where given); returns the
    table's path."""
    spec = project.framework_image(framework, image)
    (cell,) = plan(project, Options(profiles=(profile,), images=(spec.name,), backend=backend, compilers=("eager",),
                                    base=base))
    if not cell.runnable:
        raise UserError(f"{cell.label} cannot run here: {cell.reason}", code=3)
    out.mkdir(parents=True, exist_ok=True)
    environment = backends.get(cell.backend, project).prepare(cell, log, out / f"{cell.name}-{profile}.install.log")
    try:
        config = dataclasses.replace(cell.config(out, project.curated_dir, 1, "declared", resume=False,
                                                 environment=environment.description,
                                                 git_commit=project.git_commit), task="declared")
        written = None
        with closing(environment.run(config)) as events:
            for event in events:
                if isinstance(event, Notice) and ": " in event.message:
                    written = event.message.rsplit(": ", 1)[1]
    finally:
        environment.close()
    if written is None:
        raise UserError(f"{cell.label}: the harness wrote no table into {out}", code=3)
    return out / Path(written).name  # the path as the host sees it (a container sees another)

