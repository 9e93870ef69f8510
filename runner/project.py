"""The project checkout a command runs in: matrix.toml, the image folders and the curated cases, each read once."""
from __future__ import annotations

import fnmatch
import os
import subprocess
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Optional

from portability_harness.catalog import CuratedFunction, curated

from runner import images, matrix
from runner.errors import UserError


def checkout(start: Optional[Path] = None) -> Optional[Path]:
    """The project checkout if `start` (default: the current folder) or a folder above it holds matrix.toml
    and curated/; reading results needs none."""
    here = (start or Path.cwd()).resolve()
    return next((f for f in (here, *here.parents) if (f / "matrix.toml").exists() and (f / "curated").is_dir()), None)


@dataclass
class Project:
    root: Path
    matrix: matrix.Matrix
    curated: Optional[Path] = None  # a folder of curated modules instead of the checkout's curated/
    _specs: dict[str, images.ImageSpec] = field(default_factory=dict, repr=False)

    @classmethod
    def find(cls, matrix_file: Optional[Path] = None, curated: Optional[Path] = None) -> "Project":
        """The checkout around the current folder, with its matrix.toml (or another one) validated."""
        root = checkout()
        # RUNNER_CURATED is --curated for every command at once (the project's tests use it to run the
        # project's own modules whatever a user added to curated/).
        curated = curated or (Path(os.environ["RUNNER_CURATED"]) if os.environ.get("RUNNER_CURATED") else None)
        if root is None:
            raise UserError("no matrix.toml with a curated/ folder here or above; run runner from the project checkout")
        if curated is not None and not curated.is_dir():
            raise UserError(f"--curated (or RUNNER_CURATED) {curated} is not a folder; give a folder of "
                            "<framework>/test_*.py modules")
        return cls(root, matrix.load(matrix_file.resolve() if matrix_file else root / "matrix.toml"),
                   curated.resolve() if curated else None)

    @property
    def images_dir(self) -> Path:
        return self.root / "images"

    @property
    def curated_dir(self) -> Path:
        return self.curated or self.root / "curated"

    @property
    def harness_dir(self) -> Path:
        return self.root / "harness"

    def image(self, name: str) -> images.ImageSpec:
        if name not in self._specs:
            self._specs[name] = images.load(self.images_dir, name)
        return self._specs[name]

    def framework_image(self, framework: str, name: Optional[str] = None) -> images.ImageSpec:
        """The image a one-framework command runs in: the one named (it must be of that framework), else the
        framework's CPU image."""
        if name is None:
            specs = [self.image(n) for n in images.available(self.images_dir)]
            spec = next((s for s in specs if s.framework == framework and s.device == "cpu"), None)
            if spec is None:
                raise UserError(f"no CPU image of {framework} under images/; name one with --image")
            return spec
        spec = self.image(name)
        if spec.framework != framework:
            raise UserError(f"--image {spec.name} is of {spec.framework}, not {framework}; name a {framework} image")
        return spec

    def cell_images(self) -> list[str]:
        """Every framework x device of the matrix that has an image folder, then the included images, less the
        skipped ones."""
        specs = [self.image(n) for n in images.available(self.images_dir)]
        m = self.matrix
        names = [s.name for f in m.frameworks for d in m.devices for s in specs if (s.framework, s.device) == (f, d)]
        for name in m.include:
            self.image(name)  # an unknown name is an error, not a silent omission
            names += [name] * (name not in names)
        for name in m.skip:
            self.image(name)
        return [n for n in names if n not in m.skip]

    @cached_property
    def catalog(self) -> list[CuratedFunction]:
        """The curated functions, read from each module's marker once per command."""
        return curated(str(self.curated_dir))

    def functions(self, framework: str) -> list[str]:
        return [f.name for f in self.catalog if f.framework == framework]

    def matching(self, framework: str, patterns: tuple[str, ...]) -> tuple[str, ...]:
        """The patterns that select at least one curated function of the framework."""
        names = self.functions(framework)
        return tuple(p for p in patterns if any(fnmatch.fnmatchcase(n, p) for n in names))

    @cached_property
    def git_commit(self) -> Optional[str]:
        """The checkout's commit, for the records' header (an image has no git to ask)."""
        try:
            out = subprocess.run(["git", "-C", str(self.root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                 timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() or None
