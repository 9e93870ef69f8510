"""Training beside inference in the report: a function's backward cases judged apart from its forward ones
(records.verdicts.training), in the grid's cells and the findings; and the Upstream coverage section (the upstream
test methods each function's module cites, from the catalog in the results' headers: runner.upstream_table)."""
from __future__ import annotations

import pandas as pd
from portability_harness.records import verdicts

from runner import upstream_table, view
from runner.report import tables
from runner.report.blocks import Section, Table, counted, first_of
from runner.report.load import Results

SHOWN = 8  # function names per finding before "and N more"
FAILS_BACKWARD = verdicts.FAILS_BACKWARD


def grid_line(r: Results, framework: str, target: str) -> str:
    """The grid cell's line on training for one setup ("backward: 2 of 3 pass, 1 runs forward, fails backward"), or
    "" where no function of it has backward cases."""
    f = tables.functions(r)
    mine = f[(f["framework"] == framework) & (f["target"] == target) & f["backward"].notna()]
    return view.backward_text(mine["training"].value_counts().to_dict())


def findings(r: Results) -> list[dict]:
    """The findings' row of functions that run forward and fail backward, each with the setups it does so on."""
    f = tables.functions(r)
    failing = f[f["training"] == verdicts.FAILS_BACKWARD]
    if failing.empty:
        return []
    where = failing.groupby(["framework", "function"], sort=False)["target"].agg(tables.joined)
    names = [f"{fn} ({fw} {targets})" for (fw, fn), targets in where.items()]
    return [{"cause": verdicts.FAILS_BACKWARD, "functions": len(names), "where": first_of(names, SHOWN)}]


def coverage_section(r: Results) -> Section:
    """Per function of these records that declares them: the upstream test methods its module cites, how many its
    tests represent and which it leaves out, with the reasons; whether it has backward cases or why not."""
    measured = r.cases.drop_duplicates(["framework", "function"])[["framework", "function"]]
    entries = [(fw, fn, r.upstream.get((fw, fn), {}).get("backward"), r.upstream.get((fw, fn), {}).get("upstream"))
               for fw, fn in zip(measured["framework"], measured["function"])]
    about = ("Per function: the upstream test methods its curated module cites (UPSTREAM_TESTS; `runner list "
             "--coverage` shows each with its tests, layouts and dtypes), how many its cases represent, and the ones "
             "left out with the reason; its backward cases, or why it has none. From the catalog in the results' "
             "headers.")
    declared = [e for e in entries if e[3] is not None]
    summary = upstream_table.summary(entries).replace("\n", "; ") + "."
    if not declared:
        return Section("Upstream coverage", [about], summary=summary)
    rows = []
    for fw, fn, backward, methods in declared:
        left = [f"{m['method'].split('::')[-1]}: {m['left_out']}" for m in methods if "left_out" in m]
        rows.append({"framework": fw, "function": fn, "methods cited": len(methods),
                     "represented": len(methods) - len(left), "left out": "; ".join(left) or "-",
                     "backward cases": f"none: {backward}" if backward else
                     "yes" if any(m.get("backward") for m in methods) else "no"})
    undeclared = len(entries) - len(declared)
    blocks = [about, Table(pd.DataFrame(rows))]
    if undeclared:
        blocks.append(f"{counted(undeclared, 'function')} of these records declare{'s' if undeclared == 1 else ''} "
                      "no upstream tests yet (their modules cite them in prose).")
    return Section("Upstream coverage", blocks, summary=summary)
