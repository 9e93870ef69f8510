"""The report's section on declared support: what each framework version says its device supports, beside
what was measured, per case."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from runner.report import declared_vs_measured, figures
from runner.report.blocks import Block, Section, Table, counted
from runner.report.load import Results

TITLE = "Declared against measured"


def declared_anchor(framework: str, target: str, cell: str) -> str:
    return "declared-" + figures.slug(f"{framework} {target} {cell}")


def section(r: Results) -> Section:
    from runner import declared

    cases = declared_vs_measured.declared_cases(r, declared.report_folders(r))
    summary = declared_vs_measured.declared_summary(cases, r)
    blocks: list[Block] = [
        "What each framework version declares its device supports (its own registry or test database, read by "
        "`runner declared`; the tables say what \"declared\" means per framework) set beside what was measured, "
        "per case: declared and passed; declared but failed (a framework bug worth reporting upstream); not "
        "declared but passed (a registry that undersells, or a silent fallback); not declared and failed "
        "(expected). Unknown: the table does not know the function (or its dtype, or the device). Click a count "
        "for its cases."]
    if summary.empty:
        return Section(TITLE, summary="No case ran that a declared-support table could place (`runner declared "
                                      "--framework F` reads one for a version).")

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column not in declared_vs_measured.DECLARED_CELLS or not row[column]:
            return None
        return declared_anchor(row["framework"], row["target"], column)

    blocks.append(Table(summary, link=link))
    absent = [kind for kind in ("cuda", "tpu") if kind not in set(r.cases["device"])]
    if absent:
        blocks.append(f"These records hold no {' and no '.join(absent)} cells: those columns fill in when the "
                      "cells run on machines with the devices (the tables already hold their declarations).")
    for (fw, target, cell), g in cases.groupby(["framework", "target", "cell"], sort=False):
        if cell == "declared, passed":
            continue  # the expected case; its count says enough
        blocks.append(Table(g[["function", "case_id", "dtypes", "declared"]],
                            f"{fw} on {target}: {cell} ({len(g)} case{'s' if len(g) > 1 else ''})",
                            anchor=declared_anchor(fw, target, cell)))
    totals = summary[list(declared_vs_measured.DECLARED_CELLS)].sum()
    return Section(TITLE, blocks, summary=(
        f"{counted(int(totals.sum()), 'case')} on {counted(len(summary), 'setup')}: "
        + ", ".join(f"{int(totals[c])} {c}" for c in declared_vs_measured.DECLARED_CELLS) + "."
        + (" Declared but failed is where to look first: a framework bug worth reporting." if totals["declared, failed"]
           else "")))
