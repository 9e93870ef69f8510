"""Which releases of a framework a sweep runs, and what each one is installed with.

A release becomes a version profile of its own (`jax-0.4.30`), made from a base profile of matrix.toml: the
framework's packages pinned to the release, the Python its wheels were built for (the base profile's where the
release has wheels for it), and the packages the framework's images install without a pin in the base profile
(NumPy, SciPy) pinned to their newest release published before the framework's, with a wheel for that Python,
so that a 2023 build gets the NumPy 1 of its day. Every choice is written into the profile's description and
the sweep's record, so that a reader can rebuild any release's environment.

Release lists, dates and wheel tags come from PyPI's JSON API, read once per command; RUNNER_PYPI_JSON=URL (with
{name} in it) reads them from another place, such as answers saved earlier (file://FOLDER/{name}.json): the test
suite's, so that what the index publishes later changes no test.
"""
from __future__ import annotations

import json
import os
import platform
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Optional

from packaging.version import InvalidVersion, Version

from runner.errors import UserError
from runner.images import ImageSpec, canonical
from runner.matrix import Profile

PYPI = "https://pypi.org/pypi/{name}/json"
PYPI_VARIABLE = "RUNNER_PYPI_JSON"
RECORD = "sweep.json"  # in a sweep's folder: each release's Python, pins and why (Release.record)
# The distribution whose wheels say which Pythons a release supports (JAX itself is pure Python), and the
# companions pinned to the same release line.
BINARY = {"jax": "jaxlib", "torch": "torch", "tensorflow": "tensorflow"}
COMPANIONS = {"jax": ("jaxlib",), "tensorflow": ("tensorflow-cpu",), "torch": ()}
PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")  # newest first: what the runner can build venvs with
# Packages of an image whose version follows the framework's date rather than today: compiled against NumPy, or
# (setuptools) imported by its test internals in the form of their day (torch 1.12 needs pkg_resources.packaging).
DATED = ("numpy", "scipy", "setuptools")
# Projects of their own built against one release line of the framework (same major.minor), pinned to that line's
# newest release not newer than the framework's, and only where an image of the sweep installs them: torch_xla,
# which makes a torch release's TPU support readable (declared) and runnable on the CPU (torch-xla-cpu).
FOLLOWERS = {"torch": ("torch_xla",)}


@dataclass(frozen=True)
class Release:
    framework: str
    version: str
    profile: Profile
    date: Optional[str]  # the framework release's upload date on PyPI
    notes: tuple[str, ...] = ()  # how the pins were chosen, one line each
    unavailable: tuple[tuple[str, str], ...] = ()  # (image, why): images this release cannot be installed in

    def record(self) -> dict:
        return {"framework": self.framework, "version": self.version, "profile": self.profile.name,
                "python": self.profile.python, "packages": dict(self.profile.packages), "date": self.date,
                "notes": list(self.notes), "unavailable": dict(self.unavailable)}


@lru_cache(maxsize=None)
def pypi(name: str) -> dict:
    """PyPI's JSON for a project: {version: [file entries]}, stable, unyanked releases only."""
    try:
        with urllib.request.urlopen(os.environ.get(PYPI_VARIABLE, PYPI).format(name=name), timeout=60) as response:
            data = json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise UserError(f"could not read PyPI's release list of {name} ({e}); check the network, or give "
                        f"--releases as versions with --no-resolve to use the base profile's pins", code=3)
    out = {}
    for version, files in data.get("releases", {}).items():
        try:
            v = Version(version)
        except InvalidVersion:
            continue
        files = [f for f in files if not f.get("yanked")]
        if files and not v.is_prerelease and not v.is_devrelease:
            out[version] = files
    return out


def _date(files: list[dict]) -> str:
    return min(f["upload_time_iso_8601"] for f in files)[:10]


def _pythons(files: list[dict]) -> set[str]:
    """The CPython minors a release has Linux wheels (or a pure wheel) for, on this machine's architecture."""
    arch, found = platform.machine(), set()
    for f in files:
        name = f["filename"]
        if not name.endswith(".whl"):
            continue
        if name.endswith("-none-any.whl"):
            return set(PYTHONS)
        if "linux" in name and arch in name:
            found |= {f"{m[0]}.{m[1]}" for m in re.findall(r"-cp(\d)(\d+)-", name)}
    return found


def versions(framework: str, spec: str) -> list[str]:
    """--releases: "A,B,C" as given, or "A..B": every stable release from A to B with Linux wheels here."""
    if ".." not in spec:
        return [v.strip() for v in spec.split(",") if v.strip()]
    low, high = (Version(v) if v else None for v in spec.split("..", 1))
    binary = pypi(BINARY[framework])
    found = sorted((v for v in pypi(framework) if (low is None or Version(v) >= low)
                    and (high is None or Version(v) <= high)
                    and (framework == "jax" or _pythons(binary.get(v, [])))), key=Version)
    if not found:
        raise UserError(f"no release of {framework} in {spec} on PyPI; `pip index versions {framework}` lists them")
    return found


def pick(found: list[str], n: Optional[int]) -> list[str]:
    """--pick N: N releases spread evenly over the list, its first and last included."""
    if not n or n >= len(found):
        return found
    if n == 1:
        return [found[-1]]
    return [found[round(i * (len(found) - 1) / (n - 1))] for i in range(n)]


def _newest_before(name: str, date: str, python: str) -> Optional[str]:
    """The newest release of `name` published on or before `date` with a wheel for `python`; else the oldest one
    with such a wheel (a Python newer than the date's releases)."""
    fits = [(v, _date(files)) for v, files in pypi(name).items() if python in _pythons(files)]
    before = [v for v, d in fits if d <= date]
    if before:
        return max(before, key=Version)
    return min((v for v, _ in fits), key=Version, default=None)


def _nearest(wanted: str, pythons: set[str]) -> str:
    """The Python closest to the base profile's among those the release has wheels for, newer ones first (an old
    interpreter is likelier missing here)."""
    def key(p: str) -> tuple[int, int]:
        return tuple(map(int, p.split(".")))  # type: ignore[return-value]
    usable = sorted(pythons & set(PYTHONS) or pythons, key=key)
    newer = [p for p in usable if key(p) > key(wanted)]
    return newer[0] if newer else usable[-1]


def resolve(framework: str, version: str, base: Profile, images: list[ImageSpec], resolve_pins: bool = True) -> Release:
    """The profile a release runs with (see the module's docstring); with resolve_pins False, the base profile's
    Python and pins with only the framework's own packages changed."""
    name = f"{framework}-{version}"
    packages = {**base.packages, framework: version}
    installed = set().union(*(s.names for s in images))
    if not resolve_pins:
        followers = [f for f in FOLLOWERS.get(framework, ()) if canonical(f) in installed]
        for companion in (*COMPANIONS[framework], *followers):
            packages[companion] = version
        profile = replace(base, name=name, packages=packages, description=f"{framework} {version} (sweep)")
        return Release(framework, version, profile, None, ("pins of the base profile, not resolved",))
    releases = pypi(framework)
    if version not in releases:
        near = sorted(releases, key=Version)
        raise UserError(f"{framework} {version} is not a release on PyPI; the newest are {', '.join(near[-5:])}")
    date = _date(releases[version])
    notes = []
    binary = pypi(BINARY[framework])
    if framework == "jax":  # jaxlib can trail jax: the newest jaxlib not newer than the release
        libs = [v for v in binary if Version(v) <= Version(version)]
        lib = max(libs, key=Version) if libs else version
        packages["jaxlib"] = lib
        notes.append(f"jaxlib {lib}: the newest not newer than jax {version}")
    for companion in COMPANIONS[framework]:
        if companion != "jaxlib":
            if version in pypi(companion):
                packages[companion] = version
            else:
                packages.pop(companion, None)
    pythons = _pythons(binary.get(packages.get(BINARY[framework], version), []))
    python = base.python if base.python in pythons or not pythons else _nearest(base.python, pythons)
    if python != base.python:
        notes.append(f"Python {python}: {BINARY[framework]} {packages.get(BINARY[framework], version)} has no "
                     f"wheel for {base.python}")
    unavailable = []
    for follower in FOLLOWERS.get(framework, ()):
        if canonical(follower) not in installed:
            continue
        chosen = _same_line(follower, version, python)
        line = ".".join(version.split(".")[:2])
        if chosen:
            packages[follower] = chosen
            notes.append(f"{follower} {chosen}: the newest of the {line} line not newer than {framework} {version}")
        else:
            packages.pop(follower, None)
            why = f"no {follower} release of the {line} line with a wheel for Python {python} on PyPI"
            notes.append(why)
            unavailable += [(s.name, why) for s in images if canonical(follower) in s.names]
    pinned = {canonical(k) for k in base.packages}
    for dep in DATED:
        if dep in installed and dep not in pinned:
            chosen = _newest_before(dep, date, python)
            if chosen:  # a ceiling, not a pin: the framework's own bounds (TensorFlow 2.16: numpy<2) still apply
                packages[dep] = f"{dep}<={chosen}"
                notes.append(f"{dep} at most {chosen}: the newest published by {date} with a wheel for Python {python}")
    description = f"{framework} {version} of {date}, Python {python} (sweep, from profile {base.name})"
    profile = replace(base, name=name, python=python, packages=packages, description=description)
    return Release(framework, version, profile, date, tuple(notes), tuple(unavailable))


def _same_line(name: str, version: str, python: str) -> Optional[str]:
    """The newest release of `name` of the framework version's major.minor line, not newer than it, with a wheel for
    `python` (torch 2.2.2 gets torch_xla 2.2.0); None where that line has none."""
    line = Version(version).release[:2]
    fits = [v for v, files in pypi(name).items()
            if Version(v).release[:2] == line and Version(v) <= Version(version) and python in _pythons(files)]
    return max(fits, key=Version, default=None)


def release_of_profile(name: str, framework: str) -> Optional[str]:
    """The version in a sweep profile's name (`jax-0.4.30` -> 0.4.30), None for other profiles."""
    prefix = framework + "-"
    if not name.startswith(prefix):
        return None
    try:
        return str(Version(name[len(prefix):]))
    except InvalidVersion:
        return None
