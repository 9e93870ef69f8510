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


# How a function trains on a setup, beside how it infers (its verdict over forward cases, and over backward ones):
# backward cases are a second pass of the same function (records' `pass`), judged apart so that "runs forward, fails
# backward" is a verdict of its own, and the study's tables stay forward, as the study measured.
FORWARD_ONLY, TRAINS, FAILS_BACKWARD, FAILS_FORWARD = ("forward only", "forward and backward",
                                                       "runs forward, fails backward", "fails forward")
TRAINING = (TRAINS, FAILS_BACKWARD, FAILS_FORWARD, FORWARD_ONLY)


def by_pass(cases: Iterable[Dict[str, Any]]) -> "tuple[List[Dict[str, Any]], List[Dict[str, Any]]]":
    """(forward cases, backward cases); a record without `pass` (schema 5 and before) is forward."""
    forward, backward = [], []
    for c in cases:
        (backward if c.get("pass") == "backward" else forward).append(c)
    return forward, backward


def training(forward: str, backward: "str | None") -> str:
    """A function's TRAINING verdict from its forward verdict and its backward one (None: no backward cases)."""
    if forward in ("partial", "complete"):
        return FAILS_FORWARD
    if forward not in ("pass", "fallback") or backward is None or backward not in ("pass", "fallback", "partial",
                                                                                    "complete"):
        return FORWARD_ONLY
    return FAILS_BACKWARD if backward in ("partial", "complete") else TRAINS


def by_function(cases: Iterable[Dict[str, Any]]) -> "OrderedDict[str, List[Dict[str, Any]]]":
    groups: "OrderedDict[str, List[Dict[str, Any]]]" = OrderedDict()
    for c in cases:
        groups.setdefault(c["function"], []).append(c)
    return groups
