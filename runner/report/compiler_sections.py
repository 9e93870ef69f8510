"""The report's sections on the compiler axis: eager against compiled on the same setup (does my function compile
whole?), and each setup's outputs against the CPU's eager ones. The TPU column's forecast is tpu_section.py's."""
from __future__ import annotations


import numpy as np
import pandas as pd

from runner.report import rerun, tables
from runner.report.blocks import Block, Section, Table, first_of
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
