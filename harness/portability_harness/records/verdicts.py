"""Per-function verdicts from case records (the study's pass / partial / complete).

`case_error` failures are our own bugs, not the framework's: they are left out of the verdict
(design.md, Outcomes) and listed separately by the report.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, Iterable, List

# fallback: every case ran and none failed, but some ran part of their work off the compiler or the device.
# not_applicable: no case could exist on the device (its inputs' layout has no meaning there): no verdict.
VERDICTS = ("pass", "fallback", "partial", "complete", "skipped", "missing", "not_applicable", "case_error")


def verdict(cases: Iterable[Dict[str, Any]]) -> str:
    ran = []
    skipped = missing = errors = fell_back = inapplicable = 0
    for c in cases:
        if c["outcome"] == "interrupted":
            continue  # no result: a resumed run measures it
        if c["outcome"] == "not_applicable":
            inapplicable += 1
            continue  # counted apart: the case's input cannot exist on this device
        if c["outcome"] == "missing_api":
            missing += 1
        elif c["outcome"] == "skipped":
            skipped += 1
        elif c["outcome"] == "failed" and c.get("category") == "case_error":
            errors += 1
        else:
            ran.append(c["outcome"] in ("passed", "fallback"))
            fell_back += c["outcome"] == "fallback"
    if ran:
        if all(ran):
            return "fallback" if fell_back else "pass"
        return "complete" if not any(ran) else "partial"
    if missing:
        return "missing"
    if inapplicable and not errors and not skipped:
        return "not_applicable"
    # Only our own broken cases: no verdict on the framework at all.
    return "case_error" if errors and not skipped else "skipped"


def by_function(cases: Iterable[Dict[str, Any]]) -> "OrderedDict[str, List[Dict[str, Any]]]":
    groups: "OrderedDict[str, List[Dict[str, Any]]]" = OrderedDict()
    for c in cases:
        groups.setdefault(c["function"], []).append(c)
    return groups
