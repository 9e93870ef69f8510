"""The report's first screen: what runs where, and why not. One line of set-up, a grid of framework x device
with each cell's state beside the 2023 study's figure, and the failures grouped by cause."""
from __future__ import annotations

from typing import Optional

import pandas as pd
from portability_harness.protocol import FRAMEWORKS

from runner.report import tables, training
from runner.report.blocks import Block, Section, Table, counted, first_of
from runner.report.load import DEVICE_ORDER, Results

DEVICES = ("cpu", "cuda", "tpu")  # always shown: a device nobody measured is an answer too ("not run")
STUDY = {"cuda": ("gpu_t4", "T4"), "tpu": ("tpu_v3", "v3-8")}  # the study's device for each of ours
# A grid cell's state, worst first: the class the page colours it by.
STATES = ("complete failure", "partial", "fallback", "pass", "incompatible", "failed to run", "not run")
SHOWN = 8  # function names per finding before "and N more"


def section(r: Results) -> Section:
    grid = grid_frame(r)
    found = findings(r)
    measured = r.cases.drop_duplicates(["framework", "device"]) if not r.cases.empty else r.cases
    failing = tables.functions(r) if not r.cases.empty else pd.DataFrame(columns=["verdict", "training", "function"])
    failing = failing[failing["verdict"].isin(tables.FAILED) | (failing["training"] == training.FAILS_BACKWARD)]
    summary = (f"{counted(len(measured), 'framework x device cell')} measured"
               + (f" ({', '.join(sorted(set(measured['device']), key=_device_rank))})" if len(measured) else "")
               + f"; {counted(failing['function'].nunique(), 'function')} failed somewhere"
               + (", grouped by cause below." if len(failing) else "."))

    def css(row: pd.Series, column: str) -> Optional[str]:
        if column == "framework":
            return None
        # A cell with several setups (profiles, modes) is coloured by the worst of them.
        lines = str(row[column]).splitlines()
        return next((s.replace(" ", "-") for s in STATES if any(line.startswith(s) for line in lines)), None)

    blocks: list[Block] = [
        setup_line(r),
        Table(grid, "Per framework and device: the functions that pass, partly fail and completely fail on each "
                    "measured setup (of those that ran, forward), and of those with backward cases how many pass "
                    "backward too; or why the cell has no verdict; the 2023 study's figure beside it where it "
                    "published one", classes=css, anchor="grid"),
    ]
    blocks.append(Table(found, "Findings: the functions that failed, by cause and device; details under Failure "
                               "categories", anchor="findings") if not found.empty
                  else "Findings: no function failed on any measured setup.")
    return Section("At a glance", blocks, summary=summary)


def setup_line(r: Results) -> str:
    """Versions, devices, host, date and repeats, in one line."""
    c = r.cases
    if c.empty:
        return "Set-up: no case records" + (" (census records only)." if not r.census.empty else
                                            "; the grid says why each cell has none.")
    versions = ", ".join(f"{fw} {tables.joined(g['framework_version'])}" for fw, g in _by_framework(c))
    devices = ", ".join(f"{d} ({tables.joined(g['device_model'])})" for d, g in c.groupby("device", sort=False))
    hosts = tables.joined(h for h in c["host"] if h) or "unknown host"
    dates = sorted(str(s)[:10] for s in c["started_at"] if s)
    when = (dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}") if dates else "undated"
    per_setup = tables.repeats(c)
    low, high = int(per_setup.min()), int(per_setup.max())
    repeats = counted(high, "repeat") if low == high else f"{low} to {high} repeats"  # torch-xla-cpu runs 1
    modes = tables.joined(c["mode"])
    return (f"Set-up: {versions} · on {devices} · host {hosts} · {when} · {repeats} per "
            f"setup · {modes}{', quick (latencies not results)' if r.quick else ''}.")


def grid_frame(r: Results) -> pd.DataFrame:
    frameworks = [fw for fw in FRAMEWORKS if fw in set(r.cases.get("framework", ())) | _cell_values(r, "framework")]
    devices = list(DEVICES) + sorted((set(r.cases.get("device", ())) | _cell_values(r, "device")) - set(DEVICES),
                                     key=_device_rank)
    port = tables.portability(r) if not r.cases.empty else pd.DataFrame(columns=[*tables.KEYS, "functions"])
    device_of = dict(zip(r.cases["target"], r.cases["device"])) if not r.cases.empty else {}
    study = _study()
    rows = []
    for fw in frameworks:
        row = {"framework": fw}
        for device in devices:
            mine = port[(port["framework"] == fw) & (port["target"].map(device_of) == device)]
            texts = [_measured(p, several=len(mine) > 1) for _, p in mine.iterrows()] or [_unmeasured(r, fw, device)]
            texts += [line for _, p in mine.iterrows() for line in [training.grid_line(r, fw, p["target"])] if line]
            if (fw, device) in study:
                texts.append(study[(fw, device)])
            row[device] = "\n".join(texts)
        rows.append(row)
    return pd.DataFrame(rows, columns=["framework", *devices])


def _measured(p: pd.Series, several: bool) -> str:
    ran, passed, fell_back, partial, complete = (int(p[k]) for k in ("functions", "pass", "fallback", "partial",
                                                                      "complete"))
    inapplicable = int(p.get("not_applicable", 0))  # neither ran nor failed: said apart
    if ran == 0:
        state = "not run"
        text = "not run: no function of these records ran here (missing, skipped or not applicable)"
    else:
        state = ("complete failure" if complete == ran else "partial" if partial + complete
                 else "fallback" if fell_back else "pass")
        text = (f"{state}: {passed} of {ran} functions pass" + (f", {fell_back} fall back" if fell_back else "")
                + (f", {partial} partly fail" if partial else "") + (f", {complete} fail" if complete else "")
                + (f"; {inapplicable} not applicable" if inapplicable else ""))
    label = " ".join(str(p["target"]).split(" ")[1:])  # the setup's label beyond its device (profile, mode, model)
    if label.startswith("(") and label.endswith(")"):  # a device model is in parentheses already
        label = label[1:-1]
    return f"{text} ({label})" if several and label else text


def _unmeasured(r: Results, fw: str, device: str) -> str:
    """A cell with no records: why, from the matrix's plan where it had one."""
    planned = [c for c in r.cells if c.get("framework") == fw and c.get("device") == device]
    for c in planned:
        status, reason = c.get("status"), c.get("reason") or "no reason recorded"
        if status == "incompatible":
            return f"incompatible: {reason}"
        if status == "failed":
            return f"failed to run: {reason} ({c.get('image')}/{c.get('profile')})"
    for c in planned:
        if c.get("reason"):
            return f"not run: {c['reason']}"
    return "not run"


def _study() -> dict[tuple[str, str], str]:
    from runner.report import baseline

    published = baseline.read("portability")
    out = {}
    for device, (theirs, name) in STUDY.items():
        for _, p in published[published["device"] == theirs].iterrows():
            out[(p["framework"], device)] = (f"study 2023 ({name}): {p['pass_pct']:.0f} % pass, "
                                             f"{p['partial_pct']:.0f} % partial, {p['complete_pct']:.0f} % fail")
    return out


def findings(r: Results) -> pd.DataFrame:
    """One row per cause: the functions that failed with it, each with the setups it failed on; then cells that
    could not run at all (a set-up verdict, not a function's)."""
    rows = []
    failed = tables.failed_cases(r) if not r.cases.empty else pd.DataFrame()
    for category, g in failed.groupby("category", sort=False) if not failed.empty else ():
        where = g.groupby(["framework", "function"], sort=False)["target"].agg(tables.joined)
        names = [f"{fn} ({fw} {targets})" for (fw, fn), targets in where.items()]
        rows.append({"cause": category, "functions": len(names), "where": first_of(names, SHOWN)})
    rows += training.findings(r) if not r.cases.empty else []
    ours = tables.failed_cases(r, include_case_errors=True) if not r.cases.empty else pd.DataFrame()
    if not ours.empty:
        names = sorted(set(ours["function"]))
        rows.append({"cause": "our own case errors (not counted)", "functions": len(names), "where": first_of(names, SHOWN)})
    for c in r.cells:
        if c.get("status") in ("failed", "incompatible"):
            rows.append({"cause": f"cell {c['status']}", "functions": 0,
                         "where": f"{c.get('image')}/{c.get('profile')}: {c.get('reason') or 'no reason recorded'}"})
    out = pd.DataFrame(rows, columns=["cause", "functions", "where"])
    return out.sort_values("functions", ascending=False, kind="stable").reset_index(drop=True)


def _by_framework(c: pd.DataFrame):
    present = set(c["framework"])
    return [(fw, c[c["framework"] == fw]) for fw in FRAMEWORKS if fw in present]


def _cell_values(r: Results, key: str) -> set:
    return {c.get(key) for c in r.cells if c.get(key)}


def _device_rank(device: str) -> int:
    return DEVICE_ORDER.get(device, len(DEVICE_ORDER))
