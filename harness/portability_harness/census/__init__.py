"""The census: every op and dtype a framework's own test database knows, run through the same harness.

A census cell (Config.task == "census") collects its cases from the framework's database instead of curated
modules: one case per op x variant x dtype, generated at collection time by `cases.py` (the one pytest module
the supervisor hands the worker), and run by the same plugin, with the same records, timeouts, memory limit,
child cleanup, interruption and classification as a curated case.

What each framework's database is (and what a sample and a reference are there):
- torch (census/torch.py): the OpInfo database (torch.testing._internal.common_methods_invocations.op_db);
  samples are the OpInfo's `sample_inputs`; on the CPU a sample is checked against the OpInfo's NumPy `ref`
  where PyTorch's own tests check it (test_numpy_ref's dtypes, and every dtype of the elementwise ufuncs);
- jax (census/jax.py): the primitive test harnesses (jax._src.internal_test_util.test_harnesses), grouped by
  primitive and dtype; each harness is a sample; on the CPU checked against lax_reference where lax's own
  tests pair the op with it (lax_test_util.lax_ops);
- tensorflow (census/tensorflow.py): no test database ships in the wheel; the kernel registry is the
  declared table, and inputs are generated from each op's definition: a sample is one input recipe, and a
  case checks that the kernel exists and launches.
On an accelerator every sample is also computed on the CPU in the same cell and the two results compared:
that covers every op and dtype where references are sparse.

A case's id is `census/<framework>/<op>[:<variant>]/<dtype>`: made of names only, so it is the same in every
run, worker and node, and a resumed run skips exactly what it holds. The database's own declarations (the
dtypes it lists per device kind, its skips, expected failures and limitations) are data of the record
(`declared`, `db_rules`), never a pytest skip or xfail: every declared pair runs and gets an outcome.

This module is standard library only: the host (runner.census) and the supervisor import it without any
framework; the per-framework modules import their framework lazily, inside the worker.
"""
from __future__ import annotations

import fnmatch
import json
import os
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

PREFIX = "census"
DEVICE_KINDS = ("cpu", "cuda", "tpu")  # the kinds a record's `declared` answers for
UNTYPED = "untyped"  # the dtype of a case whose op has no dtype (a TensorFlow op without a type attribute)

# What the header's `database` names per framework; the version is the framework's (the database ships in it).
DATABASES = {
    "torch": {"name": "OpInfo op_db", "module": "torch.testing._internal.common_methods_invocations"},
    "jax": {"name": "primitive test harnesses", "module": "jax._src.internal_test_util.test_harnesses"},
    "tensorflow": {"name": "kernel registry", "module": "tensorflow.python.framework.kernels"},
}

# Why a case or sample has no framework outcome, in the records' `category_source` (beside the plugin's
# classifier, annotation and supervisor): "db" (the database itself rules the case out: a failure it expects,
# a sample it says must not run) and "generator" (the census could not build inputs; not the framework's).
SOURCES = ("db", "generator")


def case_id(framework: str, op: str, variant: str, dtype: str) -> str:
    return f"{PREFIX}/{framework}/{op}{':' + variant if variant else ''}/{dtype}"


def parse_id(text: str) -> Optional[Dict[str, str]]:
    """framework, op, variant and dtype of a census case id; None for any other id."""
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != PREFIX:
        return None
    op, _, variant = parts[2].partition(":")
    return {"framework": parts[1], "op": op, "variant": variant, "dtype": parts[3]}


def seed_of(text: str) -> int:
    """A seed made of a name, so that a case draws the same inputs in every run (and on both devices)."""
    return zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF


@dataclass
class Options:
    """What the census covers (Config's census_* fields)."""
    ops: List[str] = field(default_factory=list)  # fnmatch patterns over op names (op or op.variant); empty: all
    dtypes: List[str] = field(default_factory=list)  # canonical dtype names; empty: all
    undeclared: bool = False  # also the dtypes the cell's device does not declare

    def wants_op(self, op: str, variant: str = "") -> bool:
        names = [op] + ([f"{op}.{variant}", f"{op}:{variant}"] if variant else [])
        return not self.ops or any(fnmatch.fnmatchcase(n, p) for n in names for p in self.ops)

    def wants_dtype(self, dtype: str) -> bool:
        return not self.dtypes or dtype in self.dtypes


@dataclass
class Case:
    """One op x variant x dtype of the database, as collected. `payload` is what the framework module needs
    to rebuild its samples (an OpInfo, a list of harnesses); it never reaches a record."""
    framework: str
    op: str
    variant: str
    dtype: str
    declared: Dict[str, Optional[bool]]  # device kind -> the database lists the dtype there (None: it cannot say)
    rules: List[Dict[str, Any]] = field(default_factory=list)  # the database's declarations that apply here
    function: str = ""  # the name progress shows and the record's `function` holds
    payload: Any = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        return case_id(self.framework, self.op, self.variant, self.dtype)

    @property
    def name(self) -> str:
        """What the plugin writes as the case's parameter (pytest ids and `params` read a value's name)."""
        return self.id

    def fields(self) -> Dict[str, Any]:
        """The record fields known before the case runs (also what a supervisor's record of a lost case gets)."""
        return {"op": self.op, "variant": self.variant, "dtype": self.dtype, "declared": dict(self.declared),
                "db_rules": [dict(r) for r in self.rules]}


def declared_here(case: Case, device: str) -> Optional[bool]:
    """Whether the database declares the case's dtype on the cell's device kind (xla-cpu: the tpu column)."""
    return case.declared.get("tpu" if device == "xla-cpu" else device)


def selected(cases: Iterable[Case], device: str, options: Options) -> List[Case]:
    """The cases a cell runs: declared on its device (or every one, with --undeclared), in the database's order
    (the worker runs them in run_order's)."""
    return [c for c in cases if options.wants_op(c.op, c.variant) and options.wants_dtype(c.dtype)
            and (options.undeclared or declared_here(c, device) is not False)]


# --- the manifest: what a supervisor needs to record a case that killed its worker -------------------------

def manifest_path(out: str) -> str:
    return os.path.splitext(out)[0] + ".census.json"


def write_manifest(out: str, cases: Sequence[Case]) -> None:
    """Each case's record fields, beside the results: the supervisor gives a case that crashed, hung or
    ran out of memory the same fields as one the worker recorded. Written whole (a rename), so a reader
    never sees half of it."""
    path = manifest_path(out)
    data = {c.id: dict(c.fields(), function=c.function) for c in cases}
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
    os.replace(tmp, path)


def manifest(out: str) -> Dict[str, Any]:
    """The manifest beside `out` (empty where there is none yet)."""
    try:
        with open(manifest_path(out), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def manifest_fields(out: str, case: str, known: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The fields the manifest holds for a case (parsed from its id where there is no manifest); `known`: the
    manifest read once already (for many cases at a time)."""
    found = (manifest(out) if known is None else known).get(case)
    if found:
        return {k: v for k, v in found.items() if k != "function"}
    parsed = parse_id(case) or {}
    return {k: parsed[k] for k in ("op", "variant", "dtype") if k in parsed}


# --- running one case ---------------------------------------------------------------------------------------

class Rejected(Exception):
    """The census's generated inputs were refused before any kernel ran them (a generator's limit, not a
    framework failure)."""


class Unchecked(Exception):
    """A sample ran but its result could not be compared (no reference, or the reference itself failed)."""


@dataclass
class Sample:
    """One input of a case. `run(bench)` computes the op on the cell's device (through `bench` when given,
    which times it) and returns its output; `check(output)` compares it with the reference and raises
    AssertionError when it differs, Unchecked when there is nothing to compare with."""
    index: int
    run: Callable[[Optional[Callable[..., Any]]], Any]
    check: Callable[[Any], None] = lambda out: None
    skip: Optional[str] = None  # the database says this sample must not run (JAX's skip_run): why
    rules: List[Dict[str, Any]] = field(default_factory=list)  # the database's declarations for this sample
    # Why this sample was drawn on the CPU and moved to the device, not drawn for the device (None: it was not)
    moved_from_cpu: Optional[str] = None


@dataclass
class Tally:
    """What happened to a case's samples; becomes the record's census fields."""
    samples: int = 0
    run: int = 0
    failed: int = 0
    rejected: int = 0
    unchecked: int = 0
    skipped: int = 0
    timed: Optional[int] = None
    first_failure: Optional[Dict[str, Any]] = None
    first_rejection: Optional[str] = None
    reference: str = "none"
    # Where the case's time went after its timed sample: the other samples' calls (each compiles its own shapes
    # where the framework compiles) and every sample's check against its reference (on an accelerator, the
    # reference is the sample run again on the CPU).
    calls_s: float = 0.0
    checks_s: float = 0.0

    def fields(self) -> Dict[str, Any]:
        return {"samples": self.samples, "samples_run": self.run, "samples_failed": self.failed,
                "samples_rejected": self.rejected, "samples_unchecked": self.unchecked,
                "samples_skipped": self.skipped, "timed_sample": self.timed, "first_failure": self.first_failure,
                "reference": self.reference, "samples_calls_s": round(self.calls_s, 6),
                "samples_checks_s": round(self.checks_s, 6)}


def first_line(text: str, limit: int = 300) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {first_line(str(e))}"


def run_samples(samples: Sequence[Sample], bench: Callable[..., Any], sync: Callable[[Any], None],
                reference: str) -> Tuple[Tally, Optional[BaseException], Optional[Sample]]:
    """Run every sample of a case: the first that runs is timed with `bench`, the rest run once; each
    result is checked. Returns the tally, the first failure's exception (None if none failed) and its
    sample. A sample that raises or differs counts as failed; one whose inputs were refused (Rejected),
    whose result has nothing to compare with (Unchecked) or that the database says must not run does not."""
    tally = Tally(samples=len(samples), reference=reference)
    first: Optional[BaseException] = None
    first_sample: Optional[Sample] = None
    for sample in samples:
        if sample.skip is not None:
            tally.skipped += 1
            continue
        stage = "call"
        began = time.perf_counter()
        try:
            tally.run += 1
            if tally.timed is None:
                out = sample.run(bench)
                tally.timed = sample.index
            else:
                out = sample.run(None)
                sync(out)
                tally.calls_s += time.perf_counter() - began
            stage, began = "check", time.perf_counter()
            sample.check(out)
        except Rejected as e:
            tally.run -= 1
            tally.rejected += 1
            tally.first_rejection = tally.first_rejection or first_line(str(e))
        except Unchecked:
            tally.unchecked += 1
        except Exception as e:  # the framework's failure (or a reference that differs): counted, then the rest
            tally.failed += 1
            if first is None:
                first, first_sample = e, sample
                tally.first_failure = {"sample": sample.index, "stage": stage, "message": describe(e)}
        if stage == "check":
            tally.checks_s += time.perf_counter() - began
        out = None  # a sample's output must not outlive it (device memory)
    return tally, first, first_sample


def ruling(rules: Sequence[Dict[str, Any]], stage: str) -> Optional[Dict[str, Any]]:
    """The first of the database's declarations that expects a failure at this stage ("call": running the op
    at all; "check": its comparison with a reference or the CPU), or None."""
    for rule in rules:
        if stage in rule.get("stages", ("call", "check")):
            return rule
    return None


def rule_text(rule: Dict[str, Any]) -> str:
    where = f" ({rule['test']})" if rule.get("test") else ""
    reason = f": {rule['reason']}" if rule.get("reason") else ""
    return f"the database declares {rule.get('what', 'a limitation')}{where}{reason}"


def database_header(framework: str, version: str, options: Options, extra: Optional[Dict[str, Any]] = None
                    ) -> Dict[str, Any]:
    """The header's `database`: which database, of which framework version, and what this census selected."""
    info = dict(DATABASES[framework], version=version, census=asdict(options))
    info.update(extra or {})
    return info


__all__ = ["Case", "DATABASES", "DEVICE_KINDS", "Options", "Rejected", "Sample", "Tally", "UNTYPED", "Unchecked",
           "case_id", "database_header", "declared_here", "manifest_fields", "manifest_path", "parse_id",
           "rule_text", "ruling", "run_samples", "seed_of", "selected", "write_manifest"]
