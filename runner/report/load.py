"""Read results folders (a matrix run's merged.json and cell files, or `runner bench` outputs) into frames.

One row of `Results.cases` is one case record of one repeat, with its cell's header facts beside it.
Everything a reader may meet in the wild becomes a note instead of a traceback: a torn last line
(a killed run), a damaged file, a file without a header, records of another schema version.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from portability_harness.catalog import curated, usage_by_name
from portability_harness.records import schema, store

from runner import view
from runner.errors import UserError
from runner.rundir import RunDir

# Facts of the header that tell two measured setups apart; a report's columns are made of them.
# tpu_dtypes: the TPU model's dtype rules (schema 5, model cells only; "" elsewhere and in older records).
SETUP_FIELDS = ("framework", "framework_version", "device", "device_model", "profile", "mode", "compiler", "tpu_dtypes")
# Facts of the header about the run rather than the setup: for the report's set-up line and rerun commands.
RUN_FIELDS = ("image", "host", "started_at", "packages_fingerprint")
CASE_FIELDS = ("function", "case_id", "outcome", "category", "message", "cold_s", "warm_median_s", "warm_q1_s",
               "warm_q3_s", "warm_count", "recompiles", "fallback", "warm_min_s", "warm_ci_low_s", "warm_ci_high_s",
               "warm_stop", "calibration_s", "params", "stage", "compile_s", "divergence", "output", "tpu",
               "device_state", "pass", "layout", "gradient_divergence", "cold_cached", "duration_s", "cpu_wait_s")
DEVICE_ORDER = {"cpu": 0, "xla-cpu": 1, "cuda": 2, "tpu": 3}
# A census's records (header task "census") are kept apart from the study's cases: they fill `Results.census`,
# which only the census section reads, with these fields of each case beside its setup.
CENSUS_FIELDS = ("function", "case_id", "outcome", "category", "category_source", "message", "op", "variant", "dtype",
                 "declared", "samples", "samples_run", "samples_failed", "samples_rejected", "samples_unchecked",
                 "samples_skipped", "timed_sample", "first_failure", "reference", "db_ruling", "annotation",
                 "cold_s", "warm_median_s", "warm_count")


@dataclass
class Results:
    sources: list[Path]
    cases: pd.DataFrame  # one row per case record per repeat; SETUP_FIELDS, `target`, `file`, `repeat`, CASE_FIELDS
    catalog: pd.DataFrame  # framework, function, decile (none: outside the study's sample), top20, paper_label
    cells: list[dict[str, Any]] = field(default_factory=list)  # matrix cells of merged.json files (status, reason)
    notes: list[str] = field(default_factory=list)  # what could not be read, and why
    census: pd.DataFrame = field(default_factory=pd.DataFrame)  # census case records (CENSUS_FIELDS), apart
    derived: dict[str, Any] = field(default_factory=dict)  # tables computed once per report (tables.functions)
    packages: dict[str, list[str]] = field(default_factory=dict)  # fingerprint -> the environment's "name==version"s
    # file -> its header record, less the catalog and packages kept above (the atlas's setup facts: driver, build)
    headers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # (framework, function) -> the catalog's `backward` (why it has none) and `upstream` (upstream.rows), where given
    upstream: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    # (framework, target, function, pass) with cases a time budget cut short, without a result (compare: not a change)
    cut_short: set[tuple[str, str, str, str]] = field(default_factory=set)
    # a source that is a kept run's unpacked archive -> the kept folder (results/reference/<name>) it came from
    kept: dict[Path, Path] = field(default_factory=dict)

    def shown(self, source: Path) -> Path:
        """A source as its reader named it: a kept folder, not the temporary one its archive was unpacked into."""
        return self.kept.get(source, source)

    @property
    def quick(self) -> bool:
        """Some records were measured with --quick: their latencies are not results."""
        return bool(self.cases["quick"].any()) if "quick" in self.cases else False

    def targets(self, framework: str | None = None) -> list[str]:
        """The measured setups, in a stable order (device kind, then order of appearance)."""
        frame = self.cases if framework is None else self.cases[self.cases["framework"] == framework]
        first = frame.drop_duplicates("target")
        order = first["device"].map(DEVICE_ORDER).fillna(len(DEVICE_ORDER))
        return list(first.assign(order=order).sort_values("order", kind="stable")["target"])


def load(paths: Iterable[Path], curated_root: Path | None = None, samples: bool = False) -> Results:
    """Read every results file under `paths`. `samples`: keep each case's raw warm samples (for compare).
    `curated_root`: where to find usage deciles for records older than the header catalog (schema 1)."""
    sources = [Path(p) for p in paths]
    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    census_rows: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    catalogs: dict[tuple[str, str], dict[str, Any]] = {}
    packages: dict[str, list[str]] = {}
    headers: dict[str, dict[str, Any]] = {}
    old_schema = set()
    spans: dict[str, tuple] = {}  # a file run in a lane (runner.lanes): (run_id, host, lane, start, end, image)
    cut: dict[str, set[tuple[str, str]]] = {}  # file -> (function, pass) of its cases cut short
    for source in sources:
        files, source_cells = _files(source, notes)
        cells += source_cells
        for path in files:
            header = _read_file(path, notes, rows, samples, census_rows, spans, cut)
            if header is None:
                continue
            if header.get("packages_fingerprint"):
                packages[header["packages_fingerprint"]] = list(header.get("packages") or [])
            headers[str(path)] = {k: v for k, v in header.items() if k not in ("catalog", "packages")}
            written = header.get("schema")
            if not isinstance(written, int) or written > schema.SCHEMA:
                notes.append(f"{path}: written by a newer runner (schema {written}, this one reads {schema.SCHEMA}); "
                             "read what is known, upgrade the runner for the rest")
            elif written < 2:
                old_schema.add(header.get("framework"))
            for name, facts in (header.get("catalog") or {}).items():
                key = (header.get("framework"), name)
                # A run from a team's own folder may hold a study function without its usage facts; another
                # run's facts for it still count.
                if key not in catalogs or facts.get("decile") is not None:
                    catalogs[key] = facts
    # A folder whose cells were all found incompatible still has a verdict to show (the grid's `incompatible`).
    if not rows and not census_rows and not any(c.get("status") == "incompatible" for c in cells):
        raise UserError(f"no case records in {', '.join(map(str, sources))}; run `runner matrix` or "
                        "`runner bench --out FOLDER` first, and pass that folder")
    cases = pd.DataFrame(rows, columns=None if rows else [*SETUP_FIELDS, "file", "repeat", "run_id", "quick",
                                                            "position", *RUN_FIELDS, "numerics", *CASE_FIELDS])
    cases["target"] = _target_labels(cases) if rows else pd.Series(dtype=object)
    beside = _beside(spans)
    cases["beside"] = cases["file"].map(lambda f: beside.get(f, "")) if rows else pd.Series(dtype=object)
    census = pd.DataFrame(census_rows)
    if census_rows:
        census["target"] = _target_labels(census)
    for framework in sorted(f for f in old_schema if f):
        if curated_root is None or not (curated_root / framework).is_dir():
            notes.append(f"{framework}: records of schema 1 carry no usage deciles and no curated/ folder is at "
                         "hand; the decile and top-20 sections leave them out")
            continue
        notes.append(f"{framework}: records of schema 1 carry no usage deciles; taken from {curated_root}")
        for name, facts in usage_by_name(curated(str(curated_root), framework)).items():
            catalogs.setdefault((framework, name), facts)
    cat = pd.DataFrame([{"framework": fw, "function": name, "decile": facts.get("decile"),
                         "top20": bool(facts.get("top20")), "paper_label": facts.get("paper_label")}
                        for (fw, name), facts in sorted(catalogs.items())],
                       columns=["framework", "function", "decile", "top20", "paper_label"])
    upstream = {key: {k: facts[k] for k in ("backward", "upstream") if facts.get(k) is not None}
                for key, facts in catalogs.items()}
    setups = cases.drop_duplicates("file").set_index("file")[["framework", "target"]].to_dict("index") if rows else {}
    cut_short = {(setups[f]["framework"], setups[f]["target"], function, kind)
                 for f, pairs in cut.items() if f in setups for function, kind in pairs}
    return Results(sources, cases, cat, cells, notes, census=census, packages=packages, headers=headers,
                   upstream=upstream, cut_short=cut_short)


def _files(source: Path, notes: list[str]) -> tuple[list[Path], list[dict[str, Any]]]:
    if not source.exists():
        raise UserError(f"{source} does not exist; pass a results folder (results/<run-id>) or a .jsonl file")
    if source.is_file():
        return [source], []
    rundir = RunDir(source)
    try:
        cells = [dict(c, source=str(source)) for c in rundir.merged_cells()]
    except (ValueError, KeyError, TypeError):
        cells = []
        notes.append(f"{rundir.path / RunDir.MERGED}: not a readable merged.json; cell states are left out, the cell "
                     "files are read")
    return rundir.result_files(), cells


def _beside(spans: dict[str, tuple]) -> dict[str, str]:
    """Per file run in a lane: the images another lane of the same run ran while it ran ("" where none did)."""
    out = {}
    for path, (run_id, host, lane, start, end, _) in spans.items():
        out[path] = ", ".join(sorted({o[5] for p, o in spans.items() if p != path and o[:2] == (run_id, host)
                                      and o[2] != lane and o[3] < end and start < o[4]}))
    return out


def _read_file(path: Path, notes: list[str], rows: list[dict[str, Any]], samples: bool,
               census_rows: list[dict[str, Any]] | None = None,
               spans: dict[str, tuple] | None = None,
               cut: dict[str, set[tuple[str, str]]] | None = None) -> dict[str, Any] | None:
    contents = store.read(str(path))
    header = contents.header
    lane = ((header or {}).get("engine") or {}).get("lane")
    footer = contents.footer or {}
    if spans is not None and lane is not None and footer.get("supervisor_ended_at"):
        spans[str(path)] = (header.get("run_id"), header.get("host"), lane, footer["supervisor_started_at"],
                            footer["supervisor_ended_at"], header.get("image"))
    notes += [f"{path}: {p}" for p in contents.problems()]
    if header is None:
        if contents.records or contents.torn or contents.damaged:
            notes.append(f"{path}: no readable header record; the file's {len(contents.cases)} case records are "
                         "left out")
        return None
    if contents.torn is not None:
        notes.append(f"{path}: the last line is torn (the run was killed); its {len(contents.cases)} whole "
                     "case records are read")
    interrupted = [c for c in contents.cases if c.get("outcome") == "interrupted" and not c.get("cut_short")]
    if interrupted:
        notes.append(f"{path}: {len(interrupted)} case{'s were' if len(interrupted) > 1 else ' was'} interrupted "
                     "and not run again; `--resume` on that run measures them")
    functions = list(dict.fromkeys(c["function"] for c in contents.cases if c.get("cut_short")))
    if functions:
        n = sum(bool(c.get("cut_short")) for c in contents.cases)
        notes.append(f"{path}: {view.counted(n, 'case')} of {view.counted(len(functions), 'function')} cut short by a "
                     f"time budget, without a result ({view.first_of(functions, 8)}); `--resume` on that run measures "
                     "those the run's budget left, a run without --quick those cut at the quick pass's limit a case")
        if cut is not None:
            cut[str(path)] = {(c["function"], c.get("pass") or "forward") for c in contents.cases if c.get("cut_short")}
    setup = {k: header.get(k) or "" for k in SETUP_FIELDS}
    setup["device_model"] = setup["device_model"] or "unknown model"
    if header.get("task") == "census":  # never counted in the study's tables
        if census_rows is not None:
            database = header.get("database") or {}
            for c in contents.cases:
                if c.get("outcome") != "interrupted":
                    census_rows.append({**setup, "file": str(path), "run_id": header.get("run_id"),
                                        "quick": bool(header.get("quick")), "database": database.get("name", ""),
                                        "database_version": database.get("version", ""),
                                        **{k: c.get(k) for k in CENSUS_FIELDS}})
        return header
    for position, c in enumerate(contents.cases):
        if c.get("outcome") == "interrupted":
            continue  # no result (noted above)
        row = {**setup, "file": str(path), "repeat": header.get("repeat") or 1, "run_id": header.get("run_id"),
               "quick": bool(header.get("quick")), "position": position,
               **{k: header.get(k) or "" for k in RUN_FIELDS},
               # strict or vendor (matrix.toml numerics); "" in records from before the setting was recorded
               "numerics": (header.get("numerics") or {}).get("numerics", "")}
        row.update({k: c.get(k) for k in CASE_FIELDS})
        if samples:
            row["warm_samples_s"] = c.get("warm_samples_s") or []
        rows.append(row)
    return header


def _target_labels(cases: pd.DataFrame) -> pd.Series:
    """A setup's short name: the device kind, plus whichever of model, profile, mode and compiler vary in the data.

    Framework versions are not part of it: they follow from the profile, and each table shows them.
    """
    setups = cases.drop_duplicates(["framework", "device", "device_model", "profile", "mode", "compiler"])
    models = setups.groupby("device")["device_model"].nunique()
    vary_profile = cases["profile"].nunique() > 1
    vary_mode = cases["mode"].nunique() > 1
    vary_compiler = cases["compiler"].nunique() > 1
    # Only model cells have dtype rules: named where two of them differ by them alone.
    vary_rules = cases.loc[cases["tpu_dtypes"] != "", "tpu_dtypes"].nunique() > 1

    def label(row: pd.Series) -> str:
        parts = [row["device"]]
        if models.get(row["device"], 1) > 1:
            parts.append(f"({row['device_model']})")
        if vary_profile:
            parts.append(row["profile"])
        if vary_mode:
            parts.append(row["mode"])
        if vary_compiler:
            parts.append(row["compiler"])
        if vary_rules and row["tpu_dtypes"]:
            parts.append(f"{row['tpu_dtypes']} dtypes")
        return " ".join(parts)

    return cases.apply(label, axis=1)

