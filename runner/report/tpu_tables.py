"""The TPU column's forecast as tables: per function of a model cell (device kind xla-cpu run eagerly, each case
carrying `tpu` since schema 5: portability_harness.tpu_model), the forecast verdict with its reason and numerics
risk; and a forecast set against a real TPU cell's measured verdicts. The report's section (tpu_section.py) and
`runner compare` both read them.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Optional

import numpy as np
import pandas as pd
from portability_harness import tpu_model

from runner.report import tables
from runner.report.blocks import counted
from runner.report.load import Results

MODEL_DEVICE = "xla-cpu"
# A function's forecast set against a TPU's measured verdict, each side as "runs" or "fails". A numerics risk runs
# but may fail its check under the TPU's arithmetic: it is neither, and stays out of the agreement rate.
_FORECAST_SIDE = {"runs": "runs", "fails": "fails", "partial": "fails"}
_MEASURED_SIDE = {"pass": "runs", "fallback": "runs", "partial": "fails", "complete": "fails"}
# The case verdict that decides a function's forecast, whose reasons explain it.
_DECIDING = {"fails": "fails", "partial": "fails", "numerics_risk": "numerics_risk", "not_applicable": "not_applicable",
             "runs": "runs"}
AGREEMENT = ["function", "forecast", "measured", "agree", "reason"]


def _carries_tpu(cases: pd.DataFrame) -> pd.Series:
    return cases["tpu"].map(lambda t: isinstance(t, dict)) if "tpu" in cases else pd.Series(False, cases.index)


def model_targets(r: Results, framework: Optional[str] = None) -> list[tuple[str, str]]:
    """(framework, target) of every model cell: device xla-cpu, eager, with cases that carry the TPU model's
    verdict (older records of the same cell carry none and are not one)."""
    c = r.cases[(r.cases["device"] == MODEL_DEVICE) & (r.cases["compiler"] == "eager") & _carries_tpu(r.cases)]
    if framework is not None:
        c = c[c["framework"] == framework]
    return [(fw, t) for fw in tables.FRAMEWORKS for t in r.targets(fw) if t in set(c.loc[c["framework"] == fw,
                                                                                                   "target"])]


def profile_of(r: Results, target: str) -> str:
    return r.cases.loc[r.cases["target"] == target, "profile"].iloc[0]


def tpu_target(r: Results, framework: str, profile: Optional[str] = None) -> Optional[str]:
    """A framework's real TPU setup in these records: the one of `profile` where there are several, else the
    first."""
    return _setup(r, framework, r.cases["device"] == "tpu", profile)


def eager_cpu_target(r: Results, framework: str, profile: Optional[str] = None) -> Optional[str]:
    return _setup(r, framework, (r.cases["device"] == "cpu") & (r.cases["compiler"] == "eager"), profile)


def _setup(r: Results, framework: str, mask: pd.Series, profile: Optional[str]) -> Optional[str]:
    c = r.cases[mask & (r.cases["framework"] == framework)]
    found = [t for t in r.targets(framework) if t in set(c["target"])]
    if profile is not None and len(found) > 1:
        found = [t for t in found if (c.loc[c["target"] == t, "profile"] == profile).any()] or found
    return found[0] if found else None


def forecasts(r: Results, framework: str, target: str, which: str = "forward") -> pd.DataFrame:
    """Per function of a model cell: its forecast (tpu_model.function_forecast over its `which` cases, forward or
    backward, as the report judges the two apart), the most common reason of the cases that decide it with their
    count, and its numerics risk (cases flagged of cases that apply). Functions whose cases say nothing of the TPU
    (skipped, missing, our own case errors) are left out."""
    c = r.cases[(r.cases["framework"] == framework) & (r.cases["target"] == target) & _carries_tpu(r.cases)]
    backward = c["pass"] == "backward"  # as records.verdicts.by_pass splits them: a record without `pass` is forward
    c = c[backward if which == "backward" else ~backward]
    rows = []
    for function, g in c.groupby("function", sort=False):
        verdicts = [t["verdict"] for t in g["tpu"]]
        forecast = tpu_model.function_forecast(verdicts)
        deciding = g[[t["verdict"] == _DECIDING.get(forecast) for t in g["tpu"]]]
        reasons = deciding.assign(reason=[t.get("reason") for t in deciding["tpu"]]).dropna(subset=["reason"])
        reason = ""
        if len(reasons):
            text = Counter(reasons["reason"]).most_common(1)[0][0]
            cases = reasons.loc[reasons["reason"] == text, "case_id"].nunique()
            reason = f"{text} ({cases} of {counted(deciding['case_id'].nunique(), 'case')})"
        applicable = g[[t["verdict"] != "not_applicable" for t in g["tpu"]]]
        risky = applicable[[t["verdict"] == "numerics_risk" for t in applicable["tpu"]]]
        rows.append({"function": function, "forecast": forecast, "reason": reason,
                     "numerics risk": (f"{risky['case_id'].nunique()} of {applicable['case_id'].nunique()}"
                                       if len(applicable) else "-"),
                     "failing reasons": [t.get("reason") or "" for t in g["tpu"] if t["verdict"] == "fails"]})
    return pd.DataFrame(rows, columns=["function", "forecast", "reason", "numerics risk", "failing reasons"])


def reason_kinds(reason: str) -> list[str]:
    """What a failing case's reason says, without the case's details, to count reasons over functions: each op and
    dtype a TPU has no kernel for ("no TPU kernel: Eig (complex64)"), else the failure's category, stage and error
    type ("not_implemented at lower: XlaRuntimeError"), the op and dtype an XLA device could not place or lower
    ("placement: no XLA_CPU kernel for AsString (float32)"), or its first words."""
    prefix = "no TPU kernel: "
    if reason.startswith(prefix):
        return [prefix + gap.split(": ", 1)[0] for gap in reason[len(prefix):].split("; ")]
    head, _, rest = reason.partition(": ")
    kernel = re.match(r"no \S+ kernel for \S+( \([^)]*\))?", rest)
    if kernel:
        return [f"{head}: {kernel.group(0)}"]
    error = re.match(r"[A-Za-z_][\w.]*(?=[:(])", rest)
    return [f"{head}: {error.group(0)}" if error else head[:80]]


def common_reasons(frame: pd.DataFrame, shown: int = 5) -> list[tuple[str, int]]:
    """The most common reason kinds of a forecasts() frame, each counted once per function that fails with it."""
    counts = Counter(kind for reasons in frame["failing reasons"] for kind in {k for r in reasons
                                                                              for k in reason_kinds(r)})
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:shown]  # ties in name order


def agreement(forecast: pd.DataFrame, measured: pd.Series) -> pd.DataFrame:
    """Per function of a forecasts() frame, beside a TPU's measured verdict (a Series by function): whether they
    agree on running or failing ("-" where either side says neither: not run, numerics risk, not applicable)."""
    rows = []
    for f in forecast.itertuples(index=False):
        got = measured.get(f.function, "not run")
        sides = (_FORECAST_SIDE.get(f.forecast), _MEASURED_SIDE.get(got))
        rows.append({"function": f.function, "forecast": f.forecast, "measured": got,
                     "agree": "-" if None in sides else "yes" if sides[0] == sides[1] else "no", "reason": f.reason})
    return pd.DataFrame(rows, columns=AGREEMENT)


def agreement_text(table: pd.DataFrame) -> str:
    """"agree on 40 of 50 functions (80 %)", and what the TPU made of the numerics risks."""
    compared = table[table["agree"] != "-"]
    text = (f"agree on {int((compared['agree'] == 'yes').sum())} of {counted(len(compared), 'function')} "
            f"({100 * np.mean(compared['agree'] == 'yes'):.0f} %)" if len(compared)
            else "no function both forecast to run or fail and measured")
    risky = table[(table["forecast"] == "numerics_risk") & table["measured"].isin(list(_MEASURED_SIDE))]
    if len(risky):
        failed = int(risky["measured"].map(_MEASURED_SIDE).eq("fails").sum())
        text += f"; of {counted(len(risky), 'function')} with numerics risk, the TPU failed {failed}"
    return text
