"""The atlas's data: every setup of every source (a column of the grid), and per function and setup the report's
own verdict (runner.view.function_rows), kept with the case records behind it for the cell pages.

A setup is one column of one folder's report (framework, device and model, compiler, mode, profile; its
framework version): two folders that measured the same thing stay two setups, each with its own facts.
"""
from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

import pandas as pd
from portability_harness.records import verdicts

from runner import view
from runner.atlas.sources import Source
from runner.report import figures, rerun, tables, tpu_tables
from runner.report.load import DEVICE_ORDER
from runner.report.release_tables import release_key

# Header facts a setup page shows, in this order: (label, header key).
FACTS = (("framework version", "framework_version"), ("device", "device"), ("device model", "device_model"),
         ("device facts", "device_facts"), ("build", "build"), ("numerics", "numerics"),
         ("framework facts", "framework_facts"), ("compiler", "compiler"), ("mode", "mode"), ("image", "image"),
         ("profile", "profile"), ("python", "python"), ("environment", "environment"), ("started", "started_at"),
         ("host", "host"), ("runner", "runner_version"), ("commit", "git_commit"), ("timeout (s)", "timeout_s"),
         ("timing policy", "policy"), ("cpus", "cpus"), ("quick", "quick"))


@dataclass
class Setup:
    id: str  # file-name safe, unique: <source>--<framework>-<target>
    source: str
    framework: str
    target: str  # the column's label in its folder's report
    version: str
    device: str
    model: str
    compiler: str
    mode: str
    profile: str
    forecast: bool  # the TPU's execution model on this CPU (tpu_tables.model_targets): the TPU column's forecast
    records: dict[str, list[dict[str, Any]]] = field(repr=False)  # function -> its case records, every repeat's
    facts: list[tuple[str, str]] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # results files, as the folder (or its archive) names them
    repeats: int = 1

    @property
    def label(self) -> str:
        model = f" ({short_model(self.model)})" if self.model and self.model != "unknown model" else ""
        return f"{self.framework} {self.version} on {self.device}{model}, {self.compiler}"

    def rerun(self, function: str) -> str:
        """The command that measures `function` again on this setup (the report's own, from the headers)."""
        first = next(iter(self.records.values()))[0]
        return rerun.for_function(pd.Series({**first, "function": function}))


@dataclass
class Atlas:
    sources: list[Source]
    setups: list[Setup]  # framework, then device, compiler, release, folder
    rows: dict[tuple[str, str], dict[str, view.FunctionRow]]  # (framework, function) -> setup id -> its row
    catalog: dict[tuple[str, str], dict[str, Any]]  # (framework, function) -> decile, top20, paper_label
    slugs: dict[tuple[str, str], str]  # (framework, function) -> its pages' file name

    def frameworks(self) -> list[str]:
        seen = {s.framework for s in self.setups} | {fw for fw, _ in self.rows}
        return sorted(seen, key=lambda fw: (tables.FRAMEWORKS.index(fw) if fw in tables.FRAMEWORKS else 9, fw))

    def functions(self, framework: str) -> list[str]:
        return sorted(fn for fw, fn in self.rows if fw == framework)

    def of(self, framework: str) -> list[Setup]:
        return [s for s in self.setups if s.framework == framework]

    def setup(self, ident: str) -> Setup:
        return next(s for s in self.setups if s.id == ident)



def short_model(model: str) -> str:
    """"NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3", "Intel(R) Xeon(R) Processor" -> "Intel Xeon Processor"."""
    return model.replace("NVIDIA ", "").replace("(R)", "").replace("(TM)", "").strip()


def build(sources: list[Source]) -> Atlas:
    setups: list[Setup] = []
    rows: dict[tuple[str, str], dict[str, view.FunctionRow]] = {}
    catalog: dict[tuple[str, str], dict[str, Any]] = {}
    for source in sources:
        r = source.results
        if r is None or r.cases.empty:
            continue
        for row in r.catalog.itertuples(index=False):
            key = (row.framework, row.function)
            if key not in catalog or pd.notna(row.decile):
                catalog[key] = {"decile": row.decile, "top20": row.top20, "paper_label": row.paper_label}
        repeats = tables.repeats(r.cases)
        for fw in r.cases["framework"].unique():
            forecast = {target for _, target in tpu_tables.model_targets(r, fw)}
            for target in r.targets(fw):
                cases = r.cases[(r.cases["framework"] == fw) & (r.cases["target"] == target)]
                setup = _setup(source, r, fw, target, cases, target in forecast, int(repeats[(fw, target)]))
                while any(s.id == setup.id for s in setups):  # folder names that differ only in case or spelling
                    setup.id += "-2"
                setups.append(setup)
                for fr in view.function_rows(c for group in setup.records.values() for c in group):
                    rows.setdefault((fw, fr.function), {})[setup.id] = fr
    setups.sort(key=lambda s: (tables.FRAMEWORKS.index(s.framework) if s.framework in tables.FRAMEWORKS else 9,
                               s.framework, DEVICE_ORDER.get(s.device, len(DEVICE_ORDER)), s.compiler != "eager",
                               s.compiler, release_key(s.version), s.source, s.target))
    return Atlas(sources, setups, rows, catalog, _slugs(rows))


def _setup(source: Source, r, fw: str, target: str, cases: pd.DataFrame, forecast: bool, repeats: int) -> Setup:
    first = cases.iloc[0]
    headers = [r.headers[f] for f in dict.fromkeys(cases["file"]) if f in r.headers]
    facts = []
    for label, key in FACTS:
        values = list(dict.fromkeys(fact_text(h.get(key)) for h in headers if h.get(key) not in (None, "", [], {})))
        if values:
            facts.append((label, " | ".join(values)))
    fingerprints = dict.fromkeys(h.get("packages_fingerprint") for h in headers if h.get("packages_fingerprint"))
    packages = sorted({p for fp in fingerprints for p in r.packages.get(fp, [])})
    return Setup(f"{figures.slug(source.name)}--{figures.slug(f'{fw} {target}')}", source.name, fw, target,
                 tables.joined(cases["framework_version"]), str(first["device"]), str(first["device_model"]),
                 str(first["compiler"] or "eager"), str(first["mode"]), str(first["profile"]), forecast,
                 verdicts.by_function(cases.to_dict("records")), facts, packages,
                 [p.rsplit("/", 1)[-1] for p in dict.fromkeys(cases["file"])], repeats)


def fact_text(value: Any) -> str:
    """A header fact as one line: a mapping as `key: value; ...`, a list comma-joined."""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {fact_text(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, (list, tuple)):
        return ", ".join(fact_text(v) for v in value)
    return str(value)


def _slugs(rows: dict[tuple[str, str], Any]) -> dict[tuple[str, str], str]:
    """A file name per function: its name made file-safe, and unique where two names differ only in case."""
    out: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for key in sorted(rows):
        base = figures.slug(key[1]) or "function"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        out[key] = name
    return out


# --- a cell's cases ---------------------------------------------------------------------------------------------

CASE_COLUMNS = ("case", "outcome", "category", "stage", "message", "warm median", "cold", "compile", "fallback",
                "divergence", "params")


def case_rows(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One row per case of one function on one setup, over its repeats: outcomes counted, the first message,
    latency as the report takes it (the median over repeats of a passed case's warm median)."""
    warm, cold = view.case_medians(records), view.case_medians(records, "cold_s")
    by_case: dict[str, list[dict[str, Any]]] = {}
    for c in records:
        by_case.setdefault(c["case_id"], []).append(c)
    out = []
    for case_id, g in by_case.items():
        outcomes = Counter(c["outcome"] for c in g)
        compile_s = [c["compile_s"] for c in g
                     if isinstance(c["compile_s"], (int, float)) and c["compile_s"] == c["compile_s"]]  # NaN: none
        fallback = sorted({op for c in g if isinstance(c["fallback"], dict) for op in c["fallback"].get("ops", [])})
        params = next((c["params"] for c in g if isinstance(c["params"], dict) and c["params"]), None)
        out.append({
            "case": case_id,
            "outcome": (g[0]["outcome"] if len(outcomes) == 1
                        else ", ".join(f"{o} x{n}" for o, n in outcomes.items())),
            "category": _joined(c["category"] for c in g), "stage": _joined(c["stage"] for c in g),
            "message": next((c["message"] for c in g if isinstance(c["message"], str) and c["message"]), ""),
            "warm median": view.format_seconds(warm.get(case_id)), "cold": view.format_seconds(cold.get(case_id)),
            "compile": view.format_seconds(statistics.median(compile_s)) if compile_s else "-",
            "fallback": ", ".join(fallback),
            "divergence": _divergence(next((c["divergence"] for c in g if isinstance(c["divergence"], dict)), None)),
            "params": json.dumps(params, sort_keys=True) if params else ""})
    return out


def _joined(values: Iterable[Any]) -> str:
    return tables.joined(v for v in values if isinstance(v, str) and v)


def _divergence(d: Optional[dict]) -> str:
    """The case's outputs against the eager ones on the same device, as the harness measured them."""
    if not d:
        return ""
    return ", ".join(f"{k.replace('_', ' ')} " + (f"{v:.3g}" if isinstance(v, (int, float)) else str(v))
                     for k, v in d.items())
