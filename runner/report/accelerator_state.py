"""The report's account of the accelerator's state during the measurements (the records' `device_state`, read by the
harness's device_state.py before and after each case's measurement): which cases were measured while the GPU held
its clocks down, or at changing clocks, per setup, and those cases listed with their readings.

A case is throttled where NVML gave a reason other than a setting (idle, application or display clocks) at either
end of its measurement, or where the power or thermal policy held the clocks down in between; its clocks changed
where the SM clock of the two readings differs by more than CLOCK_CHANGE. Either way its latency describes the card
in that state, not at its boost clocks (docs/method.md, "The accelerator's state").
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from runner.report.blocks import Section, Table, counted
from runner.report.load import Results

SETTINGS = ("gpu_idle", "applications_clocks_setting", "display_clock_setting")  # set clocks, not a slowdown
CLOCK_CHANGE = 0.02  # relative: H100 and H200 clocks move in steps of about 15 MHz of some 2000


def flags(state: Any) -> list[str]:
    """What a case's `device_state` says of its measurement: throttled (by which reasons and policies) and
    changing clocks; empty for a steady, unthrottled card or a case without readings."""
    if not isinstance(state, dict):
        return []
    out = []
    held = [r for r in state.get("reasons") or [] if r not in SETTINGS]
    policies = [f"{p} policy {s:.3g} s" for p, s in (state.get("held_s") or {}).items() if s > 0]
    if held or policies:
        out.append("throttled: " + ", ".join(held + policies))
    sm = state.get("sm_mhz")
    if sm and max(sm) > 0 and (max(sm) - min(sm)) / max(sm) > CLOCK_CHANGE:
        out.append(f"clocks changing: SM {sm[0]} to {sm[1]} MHz")
    return out


def _span(values: pd.Series, key: str) -> str:
    numbers = [v for state in values for v in (state.get(key) or [])]
    return f"{min(numbers):g}-{max(numbers):g}" if numbers else "-"


def section(r: Results) -> Section:
    title = "Accelerator state"
    read = r.cases[r.cases["device_state"].map(lambda s: isinstance(s, dict))] if "device_state" in r.cases else \
        r.cases.iloc[:0]
    if read.empty:
        return Section(title, summary="No case carries the accelerator's state: a GPU cell reads it through NVML "
                                      "where nvidia-ml-py is installed (the cuda images have it); CPU and TPU cells "
                                      "record none.")
    marked = read.assign(flags=read["device_state"].map(flags))
    per_setup = []
    for (framework, target), g in marked.groupby(["framework", "target"], sort=False):
        per_setup.append({"framework": framework, "setup": target, "cases read": len(g),
                          "throttled": int(g["flags"].map(lambda f: any(x.startswith("throttled") for x in f)).sum()),
                          "changing clocks": int(g["flags"].map(lambda f: any(x.startswith("clocks") for x in f)).sum()),
                          "SM MHz": _span(g["device_state"], "sm_mhz"), "power W": _span(g["device_state"], "power_w"),
                          "temperature C": _span(g["device_state"], "temp_c")})
    table = pd.DataFrame(per_setup)
    flagged = marked[marked["flags"].map(bool)]
    listing = pd.DataFrame({"framework": flagged["framework"], "setup": flagged["target"],
                            "function": flagged["function"], "case": flagged["case_id"],
                            "state": flagged["flags"].map("; ".join),
                            "warm median s": flagged["warm_median_s"]})
    blocks = ["The GPU's SM clock, power draw and temperature at the start and end of each case's measurement, over "
              "the cases of each setup, and how many were measured while the card held its clocks down (a power or "
              "thermal limit) or while its clocks moved: their latencies describe the card in that state.",
              Table(table)]
    blocks.append(Table(listing, "Cases measured while throttled or at changing clocks") if not listing.empty
                  else "No case was measured while throttled or at changing clocks.")
    return Section(title, blocks, summary=(
        f"{counted(len(read), 'case')} carry the GPU's state; {int(table['throttled'].sum())} were measured while "
        f"throttled and {int(table['changing clocks'].sum())} at changing clocks."))
