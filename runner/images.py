"""Image specs (images/<name>/image.toml) and what one needs for a profile: requirements and a hash."""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from runner.errors import UserError
from runner.matrix import Profile


@dataclass(frozen=True)
class ImageSpec:
    name: str
    folder: Path
    framework: str
    device: str
    packages: tuple[str, ...]

    def requirements(self, profile: Profile) -> list[str]:
        """One pinned line per package the image installs; every version comes from the profile."""
        missing = [p for p in self.packages if p not in profile.packages and p not in _UNPINNED_OK]
        if missing:
            raise UserError(
                f"profile {profile.name!r} pins no version of {missing[0]!r}, which image {self.name} installs; "
                f"add it to [profiles.{profile.name}.packages] in matrix.toml"
            )
        return [f"{p}=={profile.packages[p]}" if p in profile.packages else p for p in self.packages]

    def constraints(self, profile: Profile) -> list[str]:
        """Every pin of the profile, so that a dependency the image pulls in gets the profile's version."""
        lock = self.folder / f"lock-{profile.name}.txt"
        lines = [f"{p}=={v}" for p, v in sorted(profile.packages.items())]
        if lock.exists():
            lines += [l.strip() for l in lock.read_text().splitlines() if l.strip() and not l.startswith("#")]
        return lines

    def input_hash(self, profile: Profile) -> str:
        text = "\n".join(
            [profile.python, *self.requirements(profile), "--", *self.constraints(profile), "--", *profile.find_links]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:12]


# Packages whose version follows from the framework's own requirements (e.g. numpy, scipy for JAX).
_UNPINNED_OK = {"numpy", "scipy"}


def available(images_dir: Path) -> list[str]:
    return sorted(p.name for p in images_dir.iterdir() if (p / "image.toml").exists()) if images_dir.is_dir() else []


def load(images_dir: Path, name: str) -> ImageSpec:
    folder = images_dir / name
    spec_file = folder / "image.toml"
    if not spec_file.exists():
        raise UserError(f"unknown image {name!r}; choose one of {', '.join(available(images_dir)) or '(none found)'}")
    try:
        data = tomllib.loads(spec_file.read_text())
        return ImageSpec(name=name, folder=folder, framework=data["framework"], device=data["device"],
                         packages=tuple(data["packages"]))
    except (tomllib.TOMLDecodeError, KeyError) as e:
        raise UserError(f"{spec_file}: {e}; it needs framework, device and packages")
