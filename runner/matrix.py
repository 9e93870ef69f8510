"""matrix.toml -> a validated model: version profiles, the framework x device matrix, excludes, overrides.

Every error names the file, the line where we could find it and the fix, in one line.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from portability_harness.protocol import (COMPILERS, DEFAULT_TIMEOUT_S, DEVICE_KINDS, FRAMEWORKS, MODES, NUMERICS,
                                         TPU_DTYPES)

from runner.errors import UserError
from runner.toml_checks import Source, check_choice, check_keys, list_of_str, positive, suggest

DEFAULT_CELL_TIMEOUT_S = 6 * 3600.0  # a container still running after this is killed (docker backend)
# A cell's worker (its case and what the case started) may hold this much memory: a fraction of the host's
# physical memory, or an amount such as "8GiB". Beyond it the case is recorded as `memory`, not the host's
# problem.
DEFAULT_MEMORY = 0.75
# Steady sampling stops when the median's confidence interval is within DEFAULT_PRECISION of it.
DEFAULT_PRECISION = 0.01
DEFAULT_CONFIDENCE = 0.95
# The worker leaves one CPU to the supervisor and the host (protocol.Config.cpus).
DEFAULT_CPUS = "all-but-one"
# A --quick pass checks that the cases run, so it has time limits of its own that cut cases short rather than fail
# them (harness run_budget.py): a case still running after QUICK_CASE_S (and before the per-case timeout; a
# --timeout given replaces this limit) is stopped, and the run stops after QUICK_BUDGET_S from the command's start
# (--quick-budget-s), recording the cases it had not measured.
QUICK_CASE_S = 60.0
QUICK_BUDGET_S = 1800.0
_UNITS = {"KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "TiB": 2 ** 40}
_AMOUNT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(KiB|MiB|GiB|TiB)\s*$")


def host_memory_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def memory_mb(value: float | str) -> int:
    """A validated memory setting (a fraction of the host's memory, or an amount with a binary unit) in MiB."""
    if isinstance(value, str):
        number, unit = _AMOUNT.match(value).groups()  # type: ignore[union-attr]
        return int(float(number) * _UNITS[unit] // 2 ** 20)
    return int(value * host_memory_bytes() // 2 ** 20)


@dataclass(frozen=True)
class Profile:
    name: str
    python: str
    packages: dict[str, str]
    find_links: tuple[str, ...] = ()
    bases: dict[str, str] = field(default_factory=dict)  # device kind -> base image, "{python}" filled in
    description: str = ""

    def base_for(self, device: str) -> str:
        if device not in self.bases:
            raise UserError(f"profile {self.name!r} names no base image for {device} images; "
                            f"add {device} = \"...\" to [profiles.{self.name}.bases] in matrix.toml or pass --base")
        return self.bases[device].format(python=self.python)


@dataclass(frozen=True)
class Rule:
    """Which cells an exclude or override applies to: every key given must match."""
    image: str | None = None
    framework: str | None = None
    device: str | None = None
    profile: str | None = None

    def matches(self, image: str, framework: str, device: str, profile: str) -> bool:
        wanted = {"image": image, "framework": framework, "device": device, "profile": profile}
        return all(getattr(self, k) in (None, v) for k, v in wanted.items())


@dataclass(frozen=True)
class Exclude:
    rule: Rule
    reason: str


@dataclass(frozen=True)
class Override:
    rule: Rule
    settings: dict[str, Any]  # python, packages, find_links, base, timeout, repeats


@dataclass(frozen=True)
class UserEnvironment:
    """An [[environment]]: an interpreter the user has, whose cells run beside the pinned ones (backend
    python:PATH), labelled by its name."""
    name: str
    python: str
    frameworks: tuple[str, ...] = ()  # () every framework of the matrix (a framework it lacks is a not-run cell)
    devices: tuple[str, ...] = ()  # () the matrix's devices


@dataclass(frozen=True)
class CellSettings:
    """What one cell (an image for a profile) runs with, after the overrides that match it."""
    profile: Profile
    repeats: int
    timeout_s: float
    cell_timeout_s: float
    modes: tuple[str, ...]  # steady, paper, or both (the study's method beside ours, in one run)
    compilers: tuple[str, ...]  # eager, compiled, or both (a cell each)
    only_compilers: tuple[str, ...] | None  # an override's: the others are excluded cells (the TPU model: eager)
    memory: float | str  # a share of the memory of the machine that runs the cell, or an amount (memory_mb)
    precision: float | None  # steady sampling: the median's interval within this, relative
    confidence: float
    cpus: str
    numerics: str  # protocol.NUMERICS
    tpu_dtypes: str  # protocol.TPU_DTYPES: the TPU model's dtype rules
    base: str | None  # an override's base image, else the profile's for the device
    excluded: str | None  # the reason, when an exclude matches


@dataclass
class Matrix:
    path: Path
    profiles: dict[str, Profile]
    frameworks: list[str] = field(default_factory=lambda: list(FRAMEWORKS))
    devices: list[str] = field(default_factory=lambda: ["cpu"])
    matrix_profiles: list[str] = field(default_factory=lambda: ["current"])
    include: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)  # images left out of one run (`runner matrix --skip`), not in toml
    repeats: int = 1
    timeout_s: float = DEFAULT_TIMEOUT_S
    cell_timeout_s: float = DEFAULT_CELL_TIMEOUT_S
    modes: tuple[str, ...] = ("steady",)
    compilers: tuple[str, ...] = ("eager",)
    memory: float | str = DEFAULT_MEMORY
    precision: float | None = DEFAULT_PRECISION
    confidence: float = DEFAULT_CONFIDENCE
    cpus: str = DEFAULT_CPUS
    numerics: str = "strict"
    tpu_dtypes: str = "current"
    excludes: list[Exclude] = field(default_factory=list)
    overrides: list[Override] = field(default_factory=list)
    environments: list[UserEnvironment] = field(default_factory=list)
    sweeps: dict[str, dict[str, Any]] = field(default_factory=dict)  # [sweep.<framework>]: runner sweep's defaults

    def profile(self, name: str) -> Profile:
        if name not in self.profiles:
            raise UserError(f"unknown profile {name!r}; {self.path.name} defines {', '.join(sorted(self.profiles))}")
        return self.profiles[name]

    def settings(self, image: str, framework: str, device: str, profile: str) -> CellSettings:
        p = self.profile(profile)
        repeats, timeout, base, memory = self.repeats, self.timeout_s, None, self.memory
        only, tpu_dtypes = None, self.tpu_dtypes
        for o in self.overrides:
            if not o.rule.matches(image, framework, device, profile):
                continue
            s = o.settings
            p = replace(p, python=str(s.get("python", p.python)), packages={**p.packages, **s.get("packages", {})},
                        find_links=p.find_links + tuple(s.get("find_links", ())))
            repeats, timeout, base = s.get("repeats", repeats), float(s.get("timeout", timeout)), s.get("base", base)
            memory, tpu_dtypes = s.get("memory", memory), s.get("tpu_dtypes", tpu_dtypes)
            only = _as_tuple(s["compiler"]) if "compiler" in s else only
        excluded = next((e.reason for e in self.excludes if e.rule.matches(image, framework, device, profile)), None)
        return CellSettings(profile=p, repeats=repeats, timeout_s=timeout, cell_timeout_s=self.cell_timeout_s,
                            modes=self.modes, compilers=self.compilers, only_compilers=only, memory=memory, precision=self.precision,
                            confidence=self.confidence, cpus=self.cpus, numerics=self.numerics, tpu_dtypes=tpu_dtypes,
                            base=base.format(python=p.python) if base else None, excluded=excluded)


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


# --- validation -------------------------------------------------------------------------------------------------

def _one_or_more(src: Any, section: dict, key: str, allowed: tuple[str, ...], example: str) -> tuple[str, ...]:
    """A [matrix] setting that takes one value or a list of them (mode, compiler): each cell runs once per value."""
    value = section.get(key, allowed[0])
    values = tuple(value) if isinstance(value, list) else (value,)
    for v in values:
        check_choice(src, v, allowed, key, "[matrix]", "matrix")
    if not values or len(set(values)) != len(values):
        raise src.fail(f"{key} = {value!r} names no {key} or one twice", f"write {key} = {example}", key=key,
                       table="matrix")
    return values


_MATRIX_KEYS = {"frameworks", "devices", "profiles", "include", "repeats", "timeout", "cell_timeout", "mode", "compiler",
                "memory", "precision", "confidence", "cpus", "numerics", "tpu_dtypes"}
_PROFILE_KEYS = {"python", "packages", "find_links", "bases", "description"}
_RULE_KEYS = {"image", "framework", "device", "profile"}
_OVERRIDE_KEYS = {"python", "packages", "find_links", "base", "timeout", "repeats", "memory", "compiler", "tpu_dtypes"}


def _memory(src: Source, table: dict, header: str) -> float | str:
    value = table.get("memory", DEFAULT_MEMORY)
    fraction = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1
    if not (fraction or isinstance(value, str) and _AMOUNT.match(value)):
        raise src.fail(f"memory = {value!r} is neither a fraction of the host's memory nor an amount",
                       'write e.g. memory = 0.75 or memory = "16GiB"', key="memory", table=header)
    return value


def _sampling(src: Source, section: dict) -> tuple[float | None, float]:
    precision = section.get("precision", DEFAULT_PRECISION)
    if precision is not False and not (isinstance(precision, float) and 0 < precision < 1):
        raise src.fail(f"precision = {precision!r} is not a fraction such as 0.01 (±1%) or false",
                       "write e.g. precision = 0.01", key="precision", table="matrix")
    confidence = section.get("confidence", DEFAULT_CONFIDENCE)
    if not (isinstance(confidence, float) and 0.5 <= confidence < 1):
        raise src.fail(f"confidence = {confidence!r} is not a probability such as 0.95",
                       "write e.g. confidence = 0.95", key="confidence", table="matrix")
    return (None if precision is False else precision), confidence


def _rule(src: Source, body: dict, kind: str, profiles: dict) -> Rule:
    rule = Rule(**{k: body.get(k) for k in _RULE_KEYS})
    for key, allowed in (("framework", FRAMEWORKS), ("device", DEVICE_KINDS), ("profile", profiles)):
        if getattr(rule, key) is not None:
            check_choice(src, getattr(rule, key), allowed, key, f"[[{kind}]]", kind)
    if rule == Rule():
        raise src.fail(f"an [[{kind}]] matches every cell", "give at least one of image, framework, device, profile",
                       table=kind)
    return rule


def _profile(src: Source, name: str, body: Any) -> Profile:
    where = header = f"profiles.{name}"
    if not isinstance(body, dict):
        raise src.fail(f"profiles.{name} is not a table", f"write [profiles.{name}] with python and packages",
                       key=name)
    check_keys(src, body, _PROFILE_KEYS, f"[{where}]", header)
    if not isinstance(body.get("python"), str) or not re.fullmatch(r"3\.\d+", body["python"]):
        raise src.fail(f"[{where}] needs python = \"3.x\" (a minor version, quoted)", 'write e.g. python = "3.11"',
                       key="python", table=header)
    for table in ("packages", "bases"):
        if not isinstance(body.get(table, {}), dict):
            raise src.fail(f"[{where}] {table} is not a table", f"write [profiles.{name}.{table}]", key=table,
                           table=header)
    if not body.get("packages"):
        raise src.fail(f"[{where}] pins no packages", f"add a [profiles.{name}.packages] table of name = \"version\"",
                       table=header)
    for device in body.get("bases", {}):
        check_choice(src, device, DEVICE_KINDS, "device", f"[{where}.bases]", header)
    return Profile(name=name, python=body["python"], packages={k: str(v) for k, v in body["packages"].items()},
                   find_links=tuple(list_of_str(src, body, "find_links", f"[{where}]", header)),
                   bases=dict(body.get("bases", {})), description=body.get("description", ""))


def load(path: Path) -> Matrix:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UserError(f"{path} not found; run from the project checkout, where matrix.toml is")
    src = Source(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path.name}: {e}; fix the TOML syntax there")
    tables = ("matrix", "profiles", "exclude", "override", "environment", "sweep")
    for key in data:
        if key not in tables:
            raise src.fail(f"unknown table or key {key!r}", suggest(key, tables), key=key, table=key)
    profiles = {name: _profile(src, name, body) for name, body in data.get("profiles", {}).items()}
    if not profiles:
        raise src.fail("no [profiles.<name>] table", "define at least one version profile")
    section = data.get("matrix", {})
    check_keys(src, section, _MATRIX_KEYS, "[matrix]", "matrix")
    m = Matrix(path=path, profiles=profiles)
    m.frameworks = list_of_str(src, section, "frameworks", "[matrix]", "matrix") or m.frameworks
    m.devices = list_of_str(src, section, "devices", "[matrix]", "matrix") or m.devices
    m.matrix_profiles = list_of_str(src, section, "profiles", "[matrix]", "matrix") or sorted(profiles)[:1]
    m.include = list_of_str(src, section, "include", "[matrix]", "matrix")
    for key, values, allowed in (("framework", m.frameworks, FRAMEWORKS), ("device", m.devices, DEVICE_KINDS),
                                 ("profile", m.matrix_profiles, profiles)):
        for v in values:
            check_choice(src, v, allowed, key, f"[matrix] {key}s", "matrix")
    m.repeats = positive(src, section, "repeats", m.repeats, "matrix")
    m.timeout_s = positive(src, section, "timeout", m.timeout_s, "matrix", float)
    m.cell_timeout_s = positive(src, section, "cell_timeout", m.cell_timeout_s, "matrix", float)
    m.memory = _memory(src, section, "matrix")
    m.modes = _one_or_more(src, section, "mode", MODES, '"steady" or ["steady", "paper"]')
    m.compilers = _one_or_more(src, section, "compiler", COMPILERS, '"eager" or ["eager", "compiled"]')
    m.precision, m.confidence = _sampling(src, section)
    m.cpus = str(section.get("cpus", DEFAULT_CPUS))
    if not (m.cpus in ("all", "all-but-one") or m.cpus.isdigit() and int(m.cpus) > 0):
        raise src.fail(f"cpus = {section.get('cpus')!r} is not all, all-but-one or a number of CPUs",
                       'write e.g. cpus = "all-but-one"', key="cpus", table="matrix")
    m.numerics = section.get("numerics", m.numerics)
    check_choice(src, m.numerics, NUMERICS, "numerics", "[matrix]", "matrix")
    m.tpu_dtypes = section.get("tpu_dtypes", m.tpu_dtypes)
    check_choice(src, m.tpu_dtypes, TPU_DTYPES, "tpu_dtypes", "[matrix]", "matrix")
    m.environments = [_environment(src, body, profiles) for body in data.get("environment", [])]
    for body in data.get("exclude", []):
        check_keys(src, body, _RULE_KEYS | {"reason"}, "[[exclude]]", "exclude")
        if not isinstance(body.get("reason"), str):
            raise src.fail("an [[exclude]] has no reason", 'add reason = "why this cell cannot run"', table="exclude")
        m.excludes.append(Exclude(_rule(src, body, "exclude", profiles), body["reason"]))
    for body in data.get("override", []):
        check_keys(src, body, _RULE_KEYS | _OVERRIDE_KEYS, "[[override]]", "override")
        settings = {k: v for k, v in body.items() if k in _OVERRIDE_KEYS}
        if "repeats" in settings:
            positive(src, settings, "repeats", 1, "override")
        if "timeout" in settings:
            positive(src, settings, "timeout", DEFAULT_TIMEOUT_S, "override", float)
        if "memory" in settings:
            _memory(src, settings, "override")
        for value in _as_tuple(settings.get("compiler", ())):
            check_choice(src, value, COMPILERS, "compiler", "[[override]]", "override")
        if "tpu_dtypes" in settings:
            check_choice(src, settings["tpu_dtypes"], TPU_DTYPES, "tpu_dtypes", "[[override]]", "override")
        if not isinstance(settings.get("packages", {}), dict):
            raise src.fail("[[override]] packages is not a table", 'write packages = { name = "version" }',
                           key="packages", table="override")
        m.overrides.append(Override(_rule(src, body, "override", profiles), settings))
    for framework, body in data.get("sweep", {}).items():
        check_choice(src, framework, FRAMEWORKS, "framework", "[sweep.<framework>]", "sweep")
        check_keys(src, body, {"releases", "pick", "devices", "base_profile"}, f"[sweep.{framework}]", "sweep")
        if not isinstance(body.get("releases"), str):
            raise src.fail(f"[sweep.{framework}] names no releases", 'write releases = "0.4.13..0.10.2"',
                           table="sweep")
        positive(src, body, "pick", 1, "sweep")
        check_choice(src, body.get("base_profile", m.matrix_profiles[0]), profiles, "profile",
                      f"[sweep.{framework}] base_profile", "sweep")
        m.sweeps[framework] = dict(body)
    return m


def _environment(src: Source, body: dict, profiles: dict) -> UserEnvironment:
    check_keys(src, body, {"name", "python", "frameworks", "devices"}, "[[environment]]", "environment")
    for key, example in (("name", 'name = "gpu-vm"'), ("python", 'python = "/opt/conda/bin/python"')):
        if not isinstance(body.get(key), str) or not body[key]:
            raise src.fail(f"an [[environment]] has no {key}", f"add {example}", table="environment")
    if body["name"] in profiles:
        raise src.fail(f"[[environment]] name {body['name']!r} is also a profile's", "give the environment its own name",
                       value=body["name"], table="environment")
    frameworks = list_of_str(src, body, "frameworks", "[[environment]]", "environment")
    devices = list_of_str(src, body, "devices", "[[environment]]", "environment")
    for key, values, allowed in (("framework", frameworks, FRAMEWORKS), ("device", devices, DEVICE_KINDS)):
        for v in values:
            check_choice(src, v, allowed, key, "[[environment]]", "environment")
    return UserEnvironment(body["name"], body["python"], tuple(frameworks), tuple(devices))
