"""A function over its framework's releases: what each release declares per device kind (every declared-support
table the sources hold, and the ones the package ships), beside what was measured on that release's setups."""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import pandas as pd
from portability_harness import declared

from runner import declared as declared_tables
from runner.atlas.model import Atlas, Setup
from runner.report.release_tables import ordered_releases

# The device kind whose declarations a setup's device answers to: torch_xla on the CPU lowers through XLA as a
# TPU does, so its column is the TPU's (as in the report's forecast section).
KIND = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu", "xla-cpu": "tpu"}
NO_TABLE = "no table"


def release(version: str) -> str:
    """A build's release: 2.11.0+cu130 -> 2.11.0 (a declared table is named by it)."""
    return version.split("+", 1)[0]


class Declared:
    """Every table the atlas's folders hold (the records' own declared/ first), read once each."""

    def __init__(self, atlas: Atlas):
        self.where = [p for s in atlas.sources for p in s.declared] + [declared_tables.SHIPPED]
        self.dates = {(rec.get("framework"), rec["version"]): rec.get("date") for s in atlas.sources if s.sweep
                      for rec in s.sweep["releases"] if isinstance(rec, dict) and "version" in rec}

    @lru_cache(maxsize=None)
    def table(self, framework: str, version: str) -> Optional[dict]:
        return declared_tables.table_for(framework, version, self.where)

    @lru_cache(maxsize=None)
    def releases(self, framework: str) -> list[str]:
        """The releases with a table in some folder."""
        prefix = f"{framework}-"
        names = (p.name[len(prefix):-len(".json.gz")] for folder in self.where if folder.is_dir()
                 for p in folder.glob(f"{prefix}*.json.gz"))
        return ordered_releases(release(n) for n in names)

    def says(self, framework: str, version: str, function: str, kind: str) -> str:
        table = self.table(framework, version)
        return declared.declared(table, function, kind) if table else NO_TABLE

    def on_setup(self, setup: Setup, function: str) -> str:
        """What the setup's framework version declares for the function on the setup's device kind."""
        kind = KIND.get(setup.device)
        return f"{kind}: {self.says(setup.framework, _version(setup), function, kind)}" if kind else "-"


def over_releases(atlas: Atlas, d: Declared, framework: str, function: str) -> pd.DataFrame:
    """Per release (with a table, or measured): its date where a sweep recorded it, what it declares on each
    device kind, and the verdicts of the setups measured on it."""
    measured: dict[str, list[str]] = {}
    for s in atlas.of(framework):
        row = atlas.rows.get((framework, function), {}).get(s.id)
        if row is not None:
            measured.setdefault(release(_version(s)), []).append(f"{row.verdict} ({s.device} {s.compiler}, "
                                                                  f"{s.source})")
    kinds = [f"declared {kind}" for kind in declared.DEVICE_KINDS]
    rows = []
    for version in ordered_releases([*d.releases(framework), *measured]):
        says = [d.says(framework, version, function, kind) for kind in declared.DEVICE_KINDS]
        rows.append({"release": version, "released": d.dates.get((framework, version)) or "",
                     **dict(zip(kinds, says)), "measured here": "; ".join(measured.get(version, [])) or "-"})
    return pd.DataFrame(rows, columns=["release", "released", *kinds, "measured here"])


def _version(s: Setup) -> str:
    """The setup's framework version (the first, where its records hold several)."""
    return s.version.split(", ")[0]
