"""Image specs (images/<name>/image.toml) and what one needs for a profile: requirements, constraints, a hash.

image.toml names the packages an image installs and the environment its harness runs with; matrix.toml's
profile gives the versions. A package may carry extras (`jax[cuda12]`); the pin is looked up by its bare
name. The docker backend builds every image from the one images/Dockerfile; the local backend builds a
venv from the same requirements.
"""
from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from portability_harness.protocol import DEVICE_KINDS, FRAMEWORKS

from runner.errors import UserError
from runner.matrix import Profile

_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9_,.-]+\])?$")
_VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!*-]*$")
# Packages whose version follows from the framework's own requirements (e.g. numpy, scipy for JAX) or from its
# date (setuptools, which torch's test internals import: the newest for the profile's Python, or in a sweep the
# newest published by the release, releases.DATED).
_UNPINNED_OK = {"numpy", "scipy", "setuptools"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(profile: Profile) -> dict[str, str]:
    return {canonical(k): v for k, v in profile.packages.items()}


@dataclass(frozen=True)
class ImageSpec:
    name: str
    folder: Path
    framework: str
    device: str
    packages: tuple[str, ...]
    find_links: tuple[str, ...] = ()  # package indexes of the device's runtime (libtpu), not versions
    environment: tuple[tuple[str, str], ...] = ()  # set in the image and for the local venv's harness
    # `packages_of` in image.toml: the image whose packages this one installs, and whose venv it runs in (the TPU
    # model's tf-xla-cpu is tf-cpu's TensorFlow with another device and environment: one download, one venv).
    packages_of: str = ""

    @property
    def venv_name(self) -> str:
        return self.packages_of or self.name

    @property
    def names(self) -> set[str]:
        """The canonical names of the packages the image installs."""
        return {canonical(_REQUIREMENT.match(entry).group(1)) for entry in self.packages}

    def requirements(self, profile: Profile) -> list[str]:
        """One pinned line per package the image installs; every version comes from the profile."""
        pins, lines = _pins(profile), []
        for entry in self.packages:
            name = canonical(_REQUIREMENT.match(entry).group(1))
            value = pins.get(name)
            if value is None and name not in _UNPINNED_OK:
                raise UserError(f"profile {profile.name!r} pins no version of {name!r}, which image {self.name} "
                                f"installs; add it to [profiles.{profile.name}.packages] in matrix.toml")
            lines.append(entry if value is None else f"{entry}=={value}" if _VERSION.match(value) else value)
        return lines

    def constraints(self, profile: Profile) -> list[str]:
        """Every other plain pin of the profile, so that a dependency the image pulls in gets the profile's
        version. The image's own packages are pinned as requirements only: pip reports a pin that does not
        exist as "no matching distribution" only when it is not a constraint too."""
        lines = [f"{name}=={v}" for name, v in sorted(_pins(profile).items()) if _VERSION.match(v)
                 and name not in self.names]
        lock = self.folder / f"lock-{profile.name}.txt"
        if lock.exists():
            lines += [l.strip() for l in lock.read_text().splitlines() if l.strip() and not l.startswith("#")]
        return lines

    def package_sources(self, profile: Profile) -> list[str]:
        return [*profile.find_links, *self.find_links]

    def input_hash(self, profile: Profile, *extra: str) -> str:
        text = "\n".join([profile.python, *self.requirements(profile), "--", *self.constraints(profile), "--",
                          *self.package_sources(profile), "--", *extra])
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def specs(images_dir: Path) -> list[ImageSpec]:
    return [load(images_dir, name) for name in available(images_dir)]


def available(images_dir: Path) -> list[str]:
    return sorted(p.name for p in images_dir.iterdir() if (p / "image.toml").exists()) if images_dir.is_dir() else []


def load(images_dir: Path, name: str) -> ImageSpec:
    folder = images_dir / name
    spec_file = folder / "image.toml"
    if not spec_file.exists():
        raise UserError(f"unknown image {name!r}; choose one of {', '.join(available(images_dir)) or '(none found)'}")
    try:
        data = tomllib.loads(spec_file.read_text())
        source = _packages_source(images_dir, name, data["packages_of"]) if "packages_of" in data else None
        spec = ImageSpec(name=name, folder=folder, framework=data["framework"], device=data["device"],
                         packages=source.packages if source else tuple(data["packages"]),
                         find_links=source.find_links if source else tuple(data.get("find_links", ())),
                         environment=tuple((str(k), str(v)) for k, v in data.get("environment", {}).items()),
                         packages_of=source.name if source else "")
    except (tomllib.TOMLDecodeError, KeyError, AttributeError) as e:
        raise UserError(f"{spec_file}: {e}; it needs framework, device and packages or packages_of (and [environment] "
                        "a table)")
    if source and source.framework != spec.framework:
        raise UserError(f"{spec_file}: packages_of names {source.name}, an image of another framework")
    for key, value, allowed in (("framework", spec.framework, FRAMEWORKS), ("device", spec.device, DEVICE_KINDS)):
        if value not in allowed:
            raise UserError(f"{spec_file}: unknown {key} {value!r}; choose one of {', '.join(allowed)}")
    bad = [p for p in spec.packages if not _REQUIREMENT.match(p)]
    if bad:
        raise UserError(f"{spec_file}: {bad[0]!r} is not a package name (versions belong in matrix.toml)")
    return spec


def _packages_source(images_dir: Path, name: str, other: str) -> ImageSpec:
    """The image whose packages `name` takes (one step: that image must list its own)."""
    source = load(images_dir, other) if other != name else None
    if source is None or source.packages_of:
        raise UserError(f"{images_dir / name / 'image.toml'}: packages_of = {other!r} must name an image that lists "
                        "its own packages")
    return source
