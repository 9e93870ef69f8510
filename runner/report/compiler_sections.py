"""The report's sections on the compiler axis: eager against compiled on the same setup, and XLA on the CPU as the
measured forecast of the TPU column (XLA's lowering on the CPU is, op for op, largely the one a TPU uses)."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from runner.report import baseline, rerun, tables
from runner.report.blocks import Block, Section, Table, counted, first_of
from runner.report.load import Results

# The setup facts besides the compiler that must agree for an eager and a compiled target to be a pair.
_PAIR = ["framework", "device", "profile", "mode"]
# Divergence bands, in units in the last place of the computed dtype (divergence.py): bit-identical, the rounding
# of one operation, a few, many.
_ULP_BANDS = ((0, "identical"), (1, "<= 1 ulp"), (16, "<= 16 ulp"), (np.inf, "> 16 ulp"))


def _targets(r: Results) -> pd.DataFrame:
    return r.cases.drop_duplicates(["framework", "target"])[["framework", "target", *_PAIR[1:], "compiler"]]


def _pairs(r: Results) -> list[tuple[str, str, str]]:
    """(framework, eager target, compiled target) of the setups measured both ways."""
    t = _targets(r)
    found = []
    for _, g in t.groupby(_PAIR, sort=False):
        eager, compiled = g[g["compiler"] == "eager"], g[g["compiler"] == "compiled"]
        if len(eager) and len(compiled):
            found.append((g["framework"].iloc[0], eager["target"].iloc[0], compiled["target"].iloc[0]))
    return found


def _band(ulp: float) -> str:
    return next(name for top, name in _ULP_BANDS if ulp <= top)


def _divergences(cases: pd.DataFrame) -> pd.DataFrame:
    """The compiled cases that passed with a measured divergence: max_ulp and max_abs per case (worst repeat)."""
    rows = []
    for _, c in cases.iterrows():
        d = c.get("divergence")
        if isinstance(d, dict) and "max_ulp" in d and c["outcome"] in ("passed", "fallback"):
            rows.append({"function": c["function"], "case_id": c["case_id"], "max_ulp": float(d["max_ulp"]),
                         "max_abs": float(d["max_abs"]), "max_rel": float(d["max_rel"])})
    frame = pd.DataFrame(rows, columns=["function", "case_id", "max_ulp", "max_abs", "max_rel"])
    return frame.groupby(["function", "case_id"], sort=False).max().reset_index() if len(frame) else frame


def eager_against_compiled(r: Results) -> Section:
    title = "Eager against compiled"
    pairs = _pairs(r)
    if not pairs:
        return Section(title, summary="No setup was measured both eager and compiled: `runner matrix --compiler all` "
                                      "(or compiler = [\"eager\", \"compiled\"] in matrix.toml) measures both.")
    verdicts = tables.function_verdicts(r)
    rows, only_compiled, spread = [], [], []
    for fw, eager, compiled in pairs:
        v = verdicts[verdicts["framework"] == fw]
        e = v[v["target"] == eager].set_index("function")["verdict"]
        c = v[v["target"] == compiled].set_index("function")["verdict"]
        both = e.index.intersection(c.index)
        ran_e, ran_c = e[e.isin(tables.RAN)], c[c.isin(tables.RAN)]
        worse = [f for f in both if e[f] == "pass" and c[f] in tables.FAILED]
        better = [f for f in both if c[f] == "pass" and e[f] in tables.FAILED]
        cases = r.cases[(r.cases["framework"] == fw) & (r.cases["target"] == compiled)]
        div = _divergences(cases)
        bands = div["max_ulp"].map(_band).value_counts() if len(div) else pd.Series(dtype=int)
        rows.append({"framework": fw, "eager": eager, "compiled": compiled,
                     "eager pass": int((ran_e == "pass").sum()), "eager ran": len(ran_e),
                     "compiled pass": int((ran_c == "pass").sum()), "compiled fallback": int((ran_c == "fallback").sum()),
                     "compiled ran": len(ran_c), "fail only compiled": len(worse), "fail only eager": len(better),
                     **{f"divergence {name}": int(bands.get(name, 0)) for _, name in _ULP_BANDS},
                     "largest ulp": float(div["max_ulp"].max()) if len(div) else np.nan})
        failed = cases[(cases["outcome"] == "failed") & cases["function"].isin(worse)]
        for function, g in failed.groupby("function", sort=False):
            only_compiled.append({"framework": fw, "target": compiled, "function": function,
                                  "stage": tables.joined(g["stage"].dropna()), "category": tables.joined(g["category"]),
                                  "cases": g["case_id"].nunique(), "message": g["message"].iloc[0]})
        spread.append(div.assign(framework=fw, target=compiled))
    summary_frame = pd.DataFrame(rows)
    worse = pd.DataFrame(only_compiled, columns=["framework", "target", "function", "stage", "category", "cases",
                                                 "message"])
    blocks: list[Block] = [
        "Each setup measured twice: eager (the call as written; JAX with jit disabled, as the 2023 study ran it) "
        "and compiled (jax.jit, tf.function(jit_compile=True), torch.compile; XLA on a torch_xla device). A "
        "compiled case that cannot compile fails at the stage it reached (trace, lower, compile, execute, check); "
        "nothing falls back to eager quietly, and a case that ran partly off the compiler is a fallback. "
        "Divergence: the compiled output against one eager call on the same device and inputs, in units in the "
        "last place of the computed dtype (functions that draw random numbers differ by design).",
        Table(summary_frame, "Functions passing each way, those that fail only when compiled, and how far compiled "
                             "outputs are from eager ones (cases that passed compiled)")]
    if len(worse):
        worse = rerun.with_commands(worse, r.cases)
        blocks.append(Table(worse, "Functions that pass eager and fail compiled, with the stage they reached"))
    several = summary_frame["framework"].duplicated(keep=False)  # torch on cpu and on xla-cpu: name the setup
    counts = "; ".join((f"{row['framework']} ({row['eager'].removesuffix(' eager')})" if twice else row['framework'])
                       + f": {row['eager pass']} of {row['eager ran']} pass eager, "
                       f"{row['compiled pass']} of {row['compiled ran']} compiled"
                       + (f" ({row['compiled fallback']} fall back)" if row["compiled fallback"] else "")
                       for twice, (_, row) in zip(several, summary_frame.iterrows()))
    names = first_of([f"{w['function']} ({w['stage']})" for _, w in worse.iterrows()], 6) if len(worse) else ""
    return Section(title, blocks, summary=counts + "." + (f" Failing only when compiled: {names}." if names else ""))


def _forecast_targets(r: Results, fw: str) -> tuple[Optional[str], Optional[str], Optional[str]]:
    """(eager CPU, XLA on the CPU, TPU) targets of a framework: XLA on the CPU is JAX's and TensorFlow's compiled
    CPU cell, PyTorch's torch_xla device on the CPU (xla-cpu); the TPU target is any that ran."""
    t = _targets(r)
    t = t[t["framework"] == fw]

    def first(mask: pd.Series) -> Optional[str]:
        return t[mask]["target"].iloc[0] if mask.any() else None

    eager = first((t["device"] == "cpu") & (t["compiler"] == "eager"))
    # torch_xla's own path (lazy tensors, what a TPU user of 2023 ran) before torch.compile's openxla backend.
    xla = (first((t["device"] == "xla-cpu") & (t["compiler"] == "eager")) or first(t["device"] == "xla-cpu")
           if fw == "torch" else first((t["device"] == "cpu") & (t["compiler"] == "compiled")))
    return eager, xla, first(t["device"] == "tpu")


def tpu_forecast(r: Results) -> Section:
    title = "XLA on the CPU as a forecast of the TPU"
    from portability_harness import declared

    from runner import declared as declared_tables

    where = declared_tables.report_folders(r.sources)
    verdicts = tables.function_verdicts(r)
    study = baseline.read("portability")
    study = study[study["device"] == "tpu_v3"].set_index("framework")
    ran_on_tpu = baseline.read("latency-t4-v3").set_index(["framework", "function"])["tpu_v3_ms"]
    rows, summaries = [], []
    for fw in tables.FRAMEWORKS:
        eager, xla, tpu = _forecast_targets(r, fw)
        if xla is None:
            continue
        v = verdicts[verdicts["framework"] == fw].pivot_table(index="function", columns="target", values="verdict",
                                                              aggfunc="first")
        cases = r.cases[(r.cases["framework"] == fw) & (r.cases["target"] == xla)]
        ops = cases.dropna(subset=["fallback"]).groupby("function")["fallback"].agg(
            lambda f: ", ".join(sorted({op for x in f if isinstance(x, dict) for op in x.get("ops", [])})))
        # Where the function's failing cases stopped, and whether each failure is the function not compilable whole
        # (at trace, or a value XLA cannot hold at the compiled function's boundary: category not_compilable; records
        # before it say stage trace): such a function may still run on a TPU, whose user's eager program sends its
        # ops one by one through XLA. (A case killed at the timeout has no stage: it is not counted here.)
        failed = cases[cases["outcome"] == "failed"]
        stopped = failed.groupby("function")["stage"].agg(lambda st: tables.joined(st.dropna()))
        not_whole = (failed["category"] == "not_compilable") | (failed["stage"] == "trace")
        only_not_whole = not_whole.groupby(failed["function"]).all()
        version = cases["framework_version"].iloc[0]
        table = declared_tables.table_for(fw, version, where)
        forecast = v.get(xla, pd.Series(dtype=object)).dropna()
        agree = []
        for function, verdict in forecast.items():
            measured = v[tpu].get(function) if tpu in v else None
            if measured in tables.RAN and verdict in tables.RAN:
                agree.append((measured in tables.FAILED) == (verdict in tables.FAILED))
            published = ran_on_tpu.get((fw, function))
            rows.append({"framework": fw, "function": function,
                         "CPU eager": v[eager].get(function) if eager in v else "-", "XLA on CPU": verdict,
                         "failed at": stopped.get(function, ""), "fallback ops": ops.get(function, ""),
                         "declared on TPU": declared.declared(table, function, "tpu") if table else "unknown",
                         "study v3-8": f"ran ({published:g} ms)" if published is not None and published == published
                         else "-", "TPU measured": measured or "-"})
        ran = forecast[forecast.isin(tables.RAN)]
        text = (f"{fw}: {int((ran == 'pass').sum())} of {len(ran)} functions pass under XLA on the CPU "
                f"({100 * (ran == 'pass').mean():.0f} %)" if len(ran) else f"{fw}: no function ran under XLA")
        only_trace = [f for f in ran.index if ran[f] in tables.FAILED and only_not_whole.get(f, False)]
        if only_trace:
            text += (f", {len(only_trace)} more fail only as not compilable whole (at trace, or a value XLA cannot "
                     f"hold at its boundary; op by op they may run)")
        if fw in study.index:
            text += f"; the study's v3-8 TPU: {study.loc[fw, 'pass_pct']:.0f} % pass"
        if agree:
            text += f"; the measured TPU agrees on {100 * np.mean(agree):.0f} % of {counted(len(agree), 'function')}"
        summaries.append(text)
    if not rows:
        return Section(title, summary="No XLA cell on the CPU in these records: JAX's and TensorFlow's compiled CPU "
                                      "cells and the torch-xla-cpu cell make the forecast (`make matrix` runs them).")
    frame = pd.DataFrame(rows)
    blocks: list[Block] = [
        "A TPU runs only what XLA can lower, and XLA's lowering tables on the CPU are largely the ones a TPU uses: "
        "per function, the eager CPU verdict, the verdict under XLA on this CPU (JAX's jax.jit and TensorFlow's "
        "jit_compile=True on the CPU; PyTorch through torch_xla on its CPU device), the ops that left XLA, what "
        "the framework version declares for the TPU (`runner declared`), whether the 2023 study timed the function "
        "on its v3-8 TPU, and where a TPU cell has run, its verdict. A forecast: XLA's CPU backend lacks the "
        "TPU's memory limits, dtypes (no float64 on a TPU) and a few TPU-only lowerings; and a compiled case "
        "compiles the whole function, while the study's eager runs on a TPU sent one op at a time through XLA, "
        "so a failure at trace (Python that cannot be traced as a whole) forecasts less than one at lower or "
        "compile (an op XLA has no kernel for).",
        Table(frame, "Per function: the forecast beside the declarations, the study and any measured TPU")]
    return Section(title, blocks, summary="; ".join(summaries) + ".")



def different_answers(r: Results) -> Section:
    """Same function, different answer: every setup's outputs against the CPU's eager ones for the same cases."""
    from portability_harness.divergence import compare_digests

    title = "Same function, different answer"
    t = _targets(r)
    ok = r.cases[r.cases["outcome"].isin(["passed", "fallback"]) & r.cases["output"].notna()]
    ok = ok.drop_duplicates(["framework", "target", "case_id"])
    rows, worst = [], []
    for _, target in t.iterrows():
        if target["device"] == "cpu" and target["compiler"] == "eager":
            continue
        same = t[(t["framework"] == target["framework"]) & (t["device"] == "cpu") & (t["compiler"] == "eager")
                 & (t["profile"] == target["profile"]) & (t["mode"] == target["mode"])]
        if same.empty:
            continue
        ref_target = same["target"].iloc[0]
        mine = ok[(ok["framework"] == target["framework"]) & (ok["target"] == target["target"])]
        ref = ok[(ok["framework"] == target["framework"]) & (ok["target"] == ref_target)].set_index("case_id")
        bands = {name: 0 for _, name in _ULP_BANDS}
        compared = mismatched = 0
        for _, c in mine.iterrows():
            if c["case_id"] not in ref.index:
                continue
            d = compare_digests(ref.loc[c["case_id"], "output"], c["output"])
            if not d:
                continue
            compared += 1
            if "mismatch" in d:
                mismatched += 1
                continue
            bands[_band(d["max_ulp"])] += 1
            if d["max_ulp"] > 16:
                worst.append({"framework": target["framework"], "target": target["target"], "against": ref_target,
                              "function": c["function"], "case_id": c["case_id"], "max ulp": d["max_ulp"],
                              "max rel": d["max_rel"]})
        if compared:
            rows.append({"framework": target["framework"], "target": target["target"], "against": ref_target,
                         "cases compared": compared, **bands, "other shape": mismatched})
    if not rows:
        return Section(title, summary="No case here can be set against a CPU eager result of the same case: measure "
                                      "the CPU eager cell beside a compiled, accelerator or XLA cell (records from "
                                      "before schema 4 keep no output to compare).")
    frame = pd.DataFrame(rows)
    blocks: list[Block] = [
        "Each case's output (a few evenly strided values of each array, kept in its record) on every setup against "
        "the same case's CPU eager output, for the cases that passed on both, in units in the last place of the "
        "computed dtype. Both passed their own checks; a difference beyond a few ulp is a different answer to "
        "look at, not a failure (functions that draw random numbers differ by design).",
        Table(frame, "Cases per setup by how far their outputs are from the CPU eager ones")]
    if worst:
        far = pd.DataFrame(worst).sort_values("max ulp", ascending=False, kind="stable")
        blocks.append(Table(far, "Cases more than 16 ulp from the CPU eager output, farthest first"))
    return Section(title, blocks, summary="; ".join(
        f"{row['framework']} {row['target']}: {row['cases compared']} cases, {row['identical']} identical, "
        f"{row['> 16 ulp']} beyond 16 ulp" for _, row in frame.iterrows()) + ".")
