"""The census on the host: what one census record says about its op x dtype, shared by `runner census`'s table
and the report's census section (runner/report/census.py). The cases themselves are generated and run by the
harness (portability_harness.census); this reads their records.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Optional

# A case's place in the support map, in the order the map's legend shows them.
STATUSES = (
    "declared, passed",
    "declared, partial",  # some samples failed, some passed
    "declared, failed",
    "declared, failed as the database expects",  # category_source db: its skip, expected failure or limitation
    "undeclared, passed",
    "undeclared, failed",
    "unknown, passed",  # the database cannot say for this device kind (OpInfo on XLA)
    "unknown, failed",
    "no input",  # skipped: the generator (or the database's sample generator) built no input that ran
)
SHORT = {"declared, passed": "ok", "declared, partial": "partial", "declared, failed": "FAIL",
         "declared, failed as the database expects": "xfail", "undeclared, passed": "+ok", "undeclared, failed": "-",
         "unknown, passed": "?ok", "unknown, failed": "?fail", "no input": "."}


def declared_on(case: dict[str, Any], device: str) -> Optional[bool]:
    """Whether the database declares the case's dtype on this device kind (xla-cpu: the tpu column)."""
    return (case.get("declared") or {}).get("tpu" if device == "xla-cpu" else device)


def partial(case: dict[str, Any]) -> bool:
    run, failed = case.get("samples_run") or 0, case.get("samples_failed") or 0
    return case.get("outcome") == "failed" and 0 < failed < run


def status(case: dict[str, Any], device: str) -> Optional[str]:
    """The support-map status of one census case record on a device kind (None: no result, interrupted)."""
    outcome = case.get("outcome")
    if outcome == "interrupted":
        return None
    if outcome in ("skipped", "missing_api"):
        return "no input"
    declared = declared_on(case, device)
    passed = outcome == "passed"
    if declared is None:
        return "unknown, passed" if passed else "unknown, failed"
    if not declared:
        return "undeclared, passed" if passed else "undeclared, failed"
    if passed:
        return "declared, passed"
    if case.get("category_source") == "db":
        return "declared, failed as the database expects"
    return "declared, partial" if partial(case) else "declared, failed"


def summary(cases: Iterable[dict[str, Any]], device: str) -> dict[str, Any]:
    """Counts over a census cell's case records: cases (op x dtype pairs), ops, samples, and statuses."""
    cases = [c for c in cases if c.get("outcome") != "interrupted"]
    statuses = Counter(status(c, device) for c in cases)
    failed = [c for c in cases if c.get("outcome") == "failed"]
    return {
        "pairs": len(cases),
        "declared pairs": sum(bool(declared_on(c, device)) for c in cases),
        "ops": len({(c.get("op"), c.get("variant")) for c in cases}),
        "samples": sum(c.get("samples") or 0 for c in cases),
        "samples run": sum(c.get("samples_run") or 0 for c in cases),
        "samples failed": sum(c.get("samples_failed") or 0 for c in cases),
        "samples rejected": sum(c.get("samples_rejected") or 0 for c in cases),
        "statuses": dict(statuses),
        "categories": dict(Counter(f"{c.get('category')} ({c.get('category_source')})" for c in failed)),
        "skipped": dict(Counter(c.get("category_source") or "?" for c in cases if c.get("outcome") == "skipped")),
    }
