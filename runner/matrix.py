"""matrix.toml -> validated profiles and the list of cells to run."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from runner.errors import UserError


@dataclass(frozen=True)
class Profile:
    name: str
    python: str
    packages: dict[str, str]
    find_links: tuple[str, ...] = ()
    description: str = ""


@dataclass
class Matrix:
    path: Path
    profiles: dict[str, Profile]
    images: list[str] = field(default_factory=list)
    matrix_profiles: list[str] = field(default_factory=list)

    def profile(self, name: str) -> Profile:
        if name not in self.profiles:
            raise UserError(f"unknown profile {name!r}; {self.path.name} defines {', '.join(sorted(self.profiles))}")
        return self.profiles[name]


_PROFILE_KEYS = {"python", "packages", "find_links", "description"}


def load(path: Path) -> Matrix:
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path} not found; run from the project root or pass --matrix")
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: {e}; fix the TOML syntax there")
    unknown = set(data) - {"matrix", "profiles"}
    if unknown:
        raise UserError(f"{path}: unknown table [{sorted(unknown)[0]}]; allowed: [matrix], [profiles.<name>]")
    profiles = {}
    for name, body in data.get("profiles", {}).items():
        extra = set(body) - _PROFILE_KEYS
        if extra:
            raise UserError(f"{path}: [profiles.{name}] has unknown key {sorted(extra)[0]!r}; allowed: {', '.join(sorted(_PROFILE_KEYS))}")
        if "python" not in body or not isinstance(body.get("packages"), dict):
            raise UserError(f"{path}: [profiles.{name}] needs python = \"3.x\" and a [profiles.{name}.packages] table")
        profiles[name] = Profile(name=name, python=str(body["python"]), packages=dict(body["packages"]),
                                 find_links=tuple(body.get("find_links", ())), description=body.get("description", ""))
    if not profiles:
        raise UserError(f"{path}: no [profiles.<name>] table; define at least one profile")
    section = data.get("matrix", {})
    m = Matrix(path=path, profiles=profiles, images=list(section.get("images", [])),
               matrix_profiles=list(section.get("profiles", [])))
    for p in m.matrix_profiles:
        m.profile(p)
    return m
