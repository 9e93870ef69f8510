"""What the frameworks declare, beside what was measured: per case, whether its device declares its function
(and dtype) in the framework version's own table, and whether it passed."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from runner.report.load import Results
from runner.report.tables import KEYS, ordered


DECLARED_CELLS = ("declared, passed", "declared, failed", "not declared, passed", "not declared, failed",
                  "unknown")


def declared_cases(r: Results, where: list[Path]) -> pd.DataFrame:
    """Per case that ran (our own broken cases aside) and setup: whether its device declares its function for its
    dtype (the framework version's table, runner/declared.py), and whether it passed in every repeat."""
    from portability_harness import declared
    from portability_harness.declared.dtypes import canonical, in_name

    from runner import declared as declared_tables

    ran = r.cases[r.cases["outcome"].isin(["passed", "fallback", "failed"]) & (r.cases["category"] != "case_error")]
    rows = []
    for (fw, version, device), g in ran.groupby(["framework", "framework_version", "device"], sort=False):
        table = declared_tables.table_for(fw, version, where)
        for (target, function, case_id), c in g.groupby(["target", "function", "case_id"], sort=False):
            params = c["params"].iloc[0] if isinstance(c["params"].iloc[0], dict) else {}
            dtypes = [d for d in (canonical(v) for v in params.values()) if d] or in_name(case_id)
            answers = ({declared.declared(table, function, device, d) for d in dtypes} if dtypes
                       else {declared.declared(table, function, device)}) if table else {"unknown"}
            says = ("declared" if "declared" in answers else "not declared"
                    if answers <= {"op_not_declared", "dtype_not_declared"} else "unknown")
            passed = bool(c["outcome"].isin(["passed", "fallback"]).all())  # a fallback ran: it says so apart
            cell = "unknown" if says == "unknown" else f"{says}, {'passed' if passed else 'failed'}"
            rows.append({"framework": fw, "target": target, "device": device, "function": function,
                         "case_id": case_id, "dtypes": ", ".join(dtypes), "declared": ", ".join(sorted(answers)),
                         "cell": cell, "table": f"{fw} {version}" if table else "none"})
    return pd.DataFrame(rows, columns=[*KEYS, "device", "function", "case_id", "dtypes", "declared", "cell", "table"])


def declared_summary(cases: pd.DataFrame, r: Results) -> pd.DataFrame:
    """Per framework and setup: cases in each of the four cells (and those the table cannot place)."""
    if cases.empty:
        return pd.DataFrame(columns=[*KEYS, "table", *DECLARED_CELLS])
    counts = pd.crosstab([cases["framework"], cases["target"], cases["table"]], cases["cell"]).reindex(
        columns=list(DECLARED_CELLS), fill_value=0).reset_index()
    counts.columns.name = None
    return ordered(counts, r)
