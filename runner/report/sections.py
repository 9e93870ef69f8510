"""What the report says, as a list of sections of text, tables and figures; render.py writes them out.

Every section is built from the records. Where the data cannot support a section (one setup only, no
repeats, no deciles), the section stays and says what is missing and how to get it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd

from runner import view
from runner.report import (accelerator_state, census, compiler_sections, declared_section, figures, latency_tables,
                           measurement_sections, over_releases, overview, rerun, tables, tpu_section, training)
from runner.report.blocks import RERUN, Block, Section, Table, counted, first_of, percent
from runner.report.load import Results


def case_anchor(framework: str, target: str, category: str) -> str:
    return "cases-" + figures.slug(f"{framework} {target} {category}")


def banner(r: Results) -> Optional[str]:
    """What a reader must know before any table: shown above everything."""
    if not r.quick:
        return None
    files = sorted({Path(f).name for f in r.cases.loc[r.cases["quick"], "file"]})
    # Short enough to leave the grid on the first screen however many cells ran quick.
    which = ", ".join(files) if len(files) <= 3 else f"{len(files)} of {r.cases['file'].nunique()} results files"
    return f"{view.QUICK} Quick records: {which}."


def build(r: Results, figure_dir: Path) -> list[Section]:
    if r.cases.empty:  # census records only, or cells with a verdict and no case: the rest has nothing to show
        verdicts = any(c.get("status") in ("incompatible", "failed") for c in r.cells)
        return [*([overview.section(r)] if verdicts else []), _sources(r), census.section(r, figure_dir)]
    return [
        overview.section(r),
        _sources(r),
        _setups(r),
        _portability(r),
        _top20(r, figure_dir),
        _deciles(r, figure_dir),
        _categories(r, figure_dir),
        training.coverage_section(r),
        declared_section.section(r),
        compiler_sections.eager_against_compiled(r),
        tpu_section.section(r),
        compiler_sections.different_answers(r),
        over_releases.section(r, figure_dir),
        measurement_sections.latency_pairs(latency_tables.pairs(r), figure_dir),
        measurement_sections.densities(r, figure_dir),
        measurement_sections.generations(r),
        measurement_sections.cold_warm(r),
        measurement_sections.method(r),
        measurement_sections.precision(r, figure_dir),
        measurement_sections.spread(r),
        accelerator_state.section(r),
        _listing("Measured beside another lane", latency_tables.beside(r),
                 "Repeats that ran while verdict work ran in another lane beside them (runner matrix --lanes), each "
                 "on CPUs of its own: their latencies may differ from a repeat measured alone.",
                 "No repeat was measured while another lane ran beside it."),
        _listing("Measured while waiting for the CPU", latency_tables.waited(r),
                 "Repeats whose cases waited for their CPU (another process on it) over "
                 f"{latency_tables.WAITED:.0%} of their time: their latencies read slower than the CPU is, and their "
                 "calibration, timed within one of the scheduler's time slices, does not show it.",
                 latency_tables.unwaited_note(r)),
        _listing("Fallbacks", tables.fallbacks(r), "Cases where an op ran on another device than the cell's, or off "
                 "the compiler (a torch_xla op run on the CPU, a TorchDynamo graph break, a JAX host callback).",
                 "No case recorded a fallback (an op run on another device than the cell's, or off the compiler)."),
        _listing("Recompiling steady state", tables.recompiling(r),
                 "Cases whose warm samples still compiled: their warm median includes compilation.",
                 "No case compiled during its warm samples (or the framework does not report compilations)."),
        _listing("Functions missing from a framework version", tables.missing(r),
                 "The function's name does not resolve in that version (outcome missing_api).",
                 "Every function measured exists in every version measured."),
        _our_bugs(r),
        census.section(r, figure_dir),
    ]


def _sources(r: Results) -> Section:
    blocks: list[Block] = ["Read from: " + ", ".join(str(r.shown(s)) for s in r.sources) + ". The rerun command measures a "
                           "cell again into a new folder, or continues one that did not finish in its own."]
    summary = f"{counted(r.cases['file'].nunique() if not r.cases.empty else 0, 'results file')} read"
    if r.cells:
        cells = pd.DataFrame(r.cells)
        quick = rerun.quick_folders(r.cases)
        per_folder = cells.groupby("source")["image"].transform("size") if "source" in cells else 1
        cells[RERUN] = [rerun.for_cell(c, str(c.get("source")) in quick, int(n))
                        for c, n in zip(r.cells, per_folder if "source" in cells else [1] * len(cells))]
        keep = [c for c in ("image", "profile", "status", "backend", "reason", RERUN) if c in cells.columns]
        blocks.append(Table(cells[keep].fillna(""), "Cells the matrix planned, and why any did not run"))
        states = cells["status"].value_counts()
        summary += "; cells planned: " + ", ".join(f"{n} {status}" for status, n in states.items())
    blocks += [f"Note: {n}" for n in r.notes]
    if r.notes:
        summary += f"; {counted(len(r.notes), 'note')} on what could not be read (below)"
    return Section("Sources", blocks, summary=summary + ".")


def _setups(r: Results) -> Section:
    t = tables.setups(r)
    return Section("Setups", ["Each column of this report is one setup: a framework on a device kind, with the "
                              "profile and measurement mode when the data holds more than one.", Table(t)],
                   summary=f"{counted(len(t), 'setup')}: " + ", ".join(
                       f"{row['framework']} {row['version']} on {row['target']}" for _, row in t.iterrows()) + ".")


def _portability(r: Results) -> Section:
    t = tables.portability(r)
    return Section("Portability", [
        "Per function, over every case and repeat on the setup: pass (every case that ran passed), partial, "
        "complete (every case failed). Percentages are of the functions that ran (pass + partial + complete), "
        "as in Tables 1 and 8 of the study. Missing: the name does not exist in that version. Skipped: no case "
        "applied to the device. not_applicable: no case's input can exist on the device (a strided view on an XLA "
        "device), neither run nor failed. case_error: only our own broken cases ran (listed at the end).",
        Table(t)], summary="Functions passing: " + ", ".join(
            f"{row['framework']} {row['target']} {row['pass']} of {row['functions']}" for _, row in t.iterrows())
        + ".")


def _top20(r: Results, out: Path) -> Section:
    t = tables.top20(r)
    blocks: list[Block] = ["Failure rate (partial + complete) of the 20 most used functions of each framework "
                           "against all functions of the study's sample (Table 4 and Figure 5 of the study).",
                           _sample_scope(r)]
    if t.empty:
        return Section("Most used functions", blocks, summary=_no_sample_ran(r) + ".")
    blocks.append(Table(t))
    if t["top-20 functions"].sum() == 0:
        blocks.append("No top-20 function ran: the top-20 rate is empty.")
    if (t["all failure %"].fillna(0) > 0).any():
        blocks += figures.failure_top20(t, out)
    else:  # a chart of zero-height bars says nothing a sentence cannot
        blocks.append("No function of the study's sample failed on any setup, so there is no failure rate to chart.")
    return Section("Most used functions", blocks, summary="Failure rate, top 20 against all sampled functions: " + ", ".join(
        f"{row['framework']} {row['target']} {percent(row['top-20 failure %'])} against "
        f"{percent(row['all failure %'])}" for _, row in t.iterrows()) + ".")


def _deciles(r: Results, out: Path) -> Section:
    blocks: list[Block] = ["Share of functions failing (partial or complete) in each usage decile of the study: "
                           "decile 10 is the least used tenth of the API, decile 100 the most used (Figure 4 of "
                           "the study).", _sample_scope(r)]
    d = tables.deciles(r)
    if d.empty:
        return Section("Failure by usage decile", blocks, summary=_no_sample_ran(r) + ": there is no decile to show.")
    blocks.append(Table(_decile_table(d, r), "Functions failing in each decile: % (failing / ran)"))
    # A setup where nothing failed gets a sentence, not a flat line at zero.
    failing = d.groupby(tables.KEYS)["failed"].transform("sum") > 0
    blocks += figures.failure_by_decile(d[failing], out)
    calm = tables.ordered(d[~failing].drop_duplicates(tables.KEYS), r)
    if len(calm):
        blocks.append("No function of the study's sample failed in any decile on "
                      + ", ".join(f"{fw} {t}" for fw, t in zip(calm["framework"], calm["target"]))
                      + ", so there is no failure rate to chart there.")
    worst = d.sort_values("failure %", ascending=False, kind="stable").iloc[0]
    summary = (f"{int(d['functions'].sum())} sampled functions in {d['decile'].nunique()} deciles; "
               + (f"the highest failure rate is {worst['failure %']} % ({worst['failed']}/{worst['functions']}) in "
                  f"decile {worst['decile']} on {worst['framework']} {worst['target']}." if worst["failed"]
                  else "none failed."))
    return Section("Failure by usage decile", blocks, summary=summary)


def _decile_table(d: pd.DataFrame, r: Results) -> pd.DataFrame:
    """One row per setup, one column per decile, headed as a decile (not as a percentage): "25.0 % (1/4)"."""
    cells = d.assign(text=[f"{p:.1f} % ({k}/{n})" for p, k, n in zip(d["failure %"], d["failed"], d["functions"])])
    wide = cells.pivot(index=tables.KEYS, columns="decile", values="text")
    names = {c: f"decile {c}" + {10: " (least used)", 100: " (most used)"}.get(c, "") for c in wide.columns}
    wide = wide[sorted(wide.columns)].rename(columns=names).reset_index()
    wide.columns.name = None
    return tables.ordered(wide, r)


def _sample_scope(r: Results) -> str:
    """What the study's views (top 20, deciles) leave out: functions outside its sample, named."""
    outside = tables.outside_sample(r)
    own = outside[outside["sample"] == tables.OWN]
    unknown = outside[outside["sample"] == tables.UNKNOWN]
    text = "This view covers the study's sample only (the functions whose marker gives a usage decile)"
    if outside.empty:
        return text + "; every function of these records is in it."
    parts = []
    if len(own):
        parts.append(f"{counted(len(own), 'function')} of these records {'is' if len(own) == 1 else 'are'} outside "
                     f"it and counted in Portability only: {first_of(sorted(own['function']), 6)}")
    if len(unknown):
        parts.append(f"{counted(len(unknown), 'function')} {'has' if len(unknown) == 1 else 'have'} no usage facts "
                     f"({first_of(sorted(unknown['function']), 6)}): records of schema 1 carry none; run the report from the "
                     "checkout, whose curated/ folder gives them")
    return text + ". " + "; ".join(parts) + "."


def _no_sample_ran(r: Results) -> str:
    if (tables.outside_sample(r)["sample"] == tables.UNKNOWN).any():  # they may be of the sample: we cannot tell
        return "No function of these records is known to be in the study's sample"
    return "No function of the study's sample ran in these records"



def _categories(r: Results, out: Path) -> Section:
    cats = tables.categories(r)
    if cats.empty:
        ours = len(tables.failed_cases(r, include_case_errors=True))
        return Section("Failure categories", summary=(
            f"No case failed in the framework; {counted(ours, 'case')} of our own failed (see Bugs in our own cases)."
            if ours else "No case failed."))

    def link(row: pd.Series, column: str) -> Optional[str]:
        if column in ("framework", "target") or not row[column]:
            return None
        return case_anchor(row["framework"], row["target"], column)

    blocks: list[Block] = [
        "Failing cases per category, each case once per category it failed with (Figure 6 of the study). "
        "Click a count for the cases behind it.", Table(cats, link=link), *figures.failure_categories(cats, out)]
    shown = set(zip(cats["framework"], cats["target"]))
    setups = tables.setups(r)
    calm = [f"{fw} {t}" for fw, t in zip(setups["framework"], setups["target"]) if (fw, t) not in shown]
    if calm:
        blocks.append(f"No case failed in the framework on {', '.join(calm)}.")
    failed = rerun.with_commands(tables.failed_cases(r), r.cases)
    for (fw, target, category), g in failed.groupby(["framework", "target", "category"], sort=False):
        vendor = category == "precision" and (g["numerics"] == "vendor").any()
        blocks.append(Table(g[["function", "case_id", "pass", "repeats", "message", RERUN]],
                            f"{fw} on {target}: {category} ({counted(len(g), 'case')})" + (
                                "; run with the vendor's default arithmetic (numerics = vendor: TF32 or reduced-"
                                "precision matmuls may be on), not the framework's full precision" if vendor else ""),
                            anchor=case_anchor(fw, target, category)))
    by_category = failed.groupby("category")["case_id"].size().sort_values(ascending=False)
    return Section("Failure categories", blocks, summary=(
        f"{counted(len(failed), 'failing case')} of {counted(failed['function'].nunique(), 'function')} in "
        f"{len(by_category)} categor{'y' if len(by_category) == 1 else 'ies'}: " + ", ".join(f"{c} {n}" for c, n in by_category.items()) + "."))


def _our_bugs(r: Results) -> Section:
    about = ("Failures in the curated cases themselves (category case_error): left out of every count above; "
             "fix the case.")
    ours = tables.failed_cases(r, include_case_errors=True)
    if not ours.empty:
        return Section("Bugs in our own cases", [about, Table(rerun.with_commands(ours, r.cases))],
                       summary=f"{counted(len(ours), 'case')} of ours failed in our own code; fix them.")
    failing = r.cases[r.cases["outcome"] == "failed"].drop_duplicates([*tables.KEYS, "case_id"])
    if failing.empty:
        return Section("Bugs in our own cases", summary="No case failed at all, so none of ours either.")
    which = "the one failing case" if len(failing) == 1 else f"all {len(failing)} failing cases"
    return Section("Bugs in our own cases", summary=f"None of ours: {which} failed in the framework, not in our "
                                                    "case code.")


def _listing(title: str, frame: pd.DataFrame, about: str, when_empty: str) -> Section:
    if frame.empty:
        return Section(title, summary=when_empty)
    return Section(title, [about, Table(frame)], summary=f"{counted(len(frame), 'row')} listed below.")
