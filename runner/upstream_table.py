"""The upstream coverage of the curated functions as rows of text: per function, each upstream test method its module
cites (portability_harness.upstream) with what represents it (forward and backward tests, layouts, dtypes) or why it
is left out. `runner list --coverage` prints them from the checkout; the report's Upstream coverage section from the
catalog in the results' headers. docs/curated-cases.md is the guide."""
from __future__ import annotations

from typing import Any, Optional

COLUMNS = ("framework", "function", "upstream test", "forward", "backward", "layouts", "dtypes", "left out")
NOT_DECLARED = "(not declared yet: its docstring cites them in prose)"


def rows(framework: str, function: str, backward: Optional[str], upstream: Optional[list[dict[str, Any]]]) \
        -> list[dict[str, str]]:
    """One function's rows. `backward`: why it has no backward cases (its marker's backward=); `upstream`: its
    module's rows (upstream.rows), None where it declares none."""
    no_backward = f"none: {backward}" if backward else "-"
    if upstream is None:
        return [dict(zip(COLUMNS, (framework, function, NOT_DECLARED, "", no_backward if backward else "", "", "",
                                   "")))]
    out = []
    for r in upstream:
        if "left_out" in r:
            values = ("", "", "", "", r["left_out"])
        else:
            values = (str(r["forward"] or "-"), str(r["backward"] or no_backward), ", ".join(r["layouts"]),
                      ", ".join(r["dtypes"]), "")
        out.append(dict(zip(COLUMNS, (framework, function, r["method"], *values))))
    return out


def summary(entries: list[tuple[str, str, Optional[str], Optional[list[dict[str, Any]]]]]) -> str:
    """A line per framework: how many functions declare their upstream tests, the methods cited, represented and
    left out, and the functions with backward cases and those not differentiable."""
    lines = []
    for fw in sorted({e[0] for e in entries}):
        mine = [e for e in entries if e[0] == fw]
        declared = [e for e in mine if e[3] is not None]
        methods = [r for e in declared for r in e[3]]
        left = sum("left_out" in r for r in methods)
        with_backward = sum(any(r.get("backward") for r in e[3]) for e in declared)
        lines.append(f"{fw}: {len(declared)} of {len(mine)} functions declare their upstream tests; "
                     f"{len(methods)} methods cited, {len(methods) - left} represented, {left} left out with a "
                     f"reason; {with_backward} with backward cases, {sum(bool(e[2]) for e in mine)} not "
                     "differentiable")
    return "\n".join(lines)
