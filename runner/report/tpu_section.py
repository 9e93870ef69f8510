"""The report's TPU column, forecast: per function of each model cell (the TPU's execution model on this CPU,
portability_harness.tpu_model), the forecast verdict and its reason beside what the framework declares for the
TPU, the eager CPU verdict, the numerics risk, the 2023 study's TPU figure and, where a TPU cell ran, its verdict."""
from __future__ import annotations

import pandas as pd

from runner.report import baseline, tables, tpu_tables
from runner.report.blocks import Block, Section, Table, counted
from runner.report.load import Results

TITLE = "The TPU column, forecast"
MODEL = ("The model: a TPU runs a framework's eager ops one at a time through XLA; the model cell (device kind "
         "xla-cpu, eager) runs each case that way on XLA's CPU backend and checks every op it executed against the "
         "TPU's kernels, lowerings and dtypes; numerics risk is a case whose own check refuses an output moved by "
         "the TPU's default arithmetic (bfloat16 matmul passes, its float32 transcendentals).")
IMAGES = {"tensorflow": "tf-xla-cpu", "jax": "jax-xla-cpu", "torch": "torch-xla-cpu"}
# How a summary names the function forecasts, in this order.
_COUNTED = (("runs", "run"), ("fails", "fail"), ("partial", "partly fail"), ("numerics_risk", "run with numerics "
            "risk"), ("not_applicable", "not applicable"))
_COLUMNS = ["framework", "setup", "function", "forecast", "reason", "backward forecast", "backward reason",
            "declared on TPU", "CPU eager", "numerics risk", "study v3-8", "TPU measured"]


def section(r: Results) -> Section:
    models = tpu_tables.model_targets(r)
    if not models:
        return Section(TITLE, [MODEL, *_unmodelled(r, set())], summary=(
            "No model cell in these records: `make matrix` runs the three (" + ", ".join(IMAGES.values()) + ")."))
    from portability_harness import declared

    from runner import declared as declared_tables

    where = declared_tables.report_folders(r)
    verdicts = tables.function_verdicts(r)
    study = baseline.read("portability")
    study = study[study["device"] == "tpu_v3"].set_index("framework")
    rows, summaries, reasons = [], [], []
    for fw, target in models:
        frame = tpu_tables.forecasts(r, fw, target)
        backward = tpu_tables.forecasts(r, fw, target, "backward")  # training, judged apart as the grid does
        trains = backward.set_index("function")[["forecast", "reason"]].to_dict("index")
        cases = r.cases[(r.cases["framework"] == fw) & (r.cases["target"] == target)]
        version = tables.joined(cases["framework_version"])
        table = declared_tables.table_for(fw, cases["framework_version"].iloc[0], where)
        profile = tpu_tables.profile_of(r, target)
        eager, tpu = tpu_tables.eager_cpu_target(r, fw, profile), tpu_tables.tpu_target(r, fw, profile)
        eager_v = _verdicts_of(verdicts, fw, eager)
        measured = _verdicts_of(verdicts, fw, tpu)
        studied = _study_figures(r, fw)
        for f in frame.to_dict("records"):
            function = f["function"]
            rows.append({"framework": fw, "setup": target, **{k: f[k] for k in ("function", "forecast", "reason")},
                         "backward forecast": trains.get(function, {}).get("forecast", "-"),
                         "backward reason": trains.get(function, {}).get("reason", ""),
                         "declared on TPU": declared.declared(table, function, "tpu") if table else "unknown",
                         "CPU eager": eager_v.get(function, "-"), "numerics risk": f["numerics risk"],
                         "study v3-8": studied.get(function, "-"), "TPU measured": measured.get(function, "-")})
        counts = frame["forecast"].value_counts()
        rules = tables.joined(cases["tpu_dtypes"]) or "current"
        text = (f"{fw} {version} ({target}, {rules} dtype rules): of {counted(len(frame), 'function')}, "
                + ", ".join(f"{int(counts.get(v, 0))} {words}" for v, words in _COUNTED))
        if len(backward):
            done = backward["forecast"].value_counts()
            text += (f"; backward, of {counted(len(backward), 'function')} with backward cases: "
                     + ", ".join(f"{int(done[v])} {words}" for v, words in _COUNTED if done.get(v, 0)))
        if fw in study.index:
            text += f"; the study's v3-8 TPU: {study.loc[fw, 'pass_pct']:.0f} % pass"
        if tpu:
            text += f"; against the TPU measured here ({tpu}): " + tpu_tables.agreement_text(
                tpu_tables.agreement(frame, pd.Series(measured, dtype=object)))
        summaries.append(text)
        common = tpu_tables.common_reasons(frame)
        reasons.append(f"{fw} ({target}), the most common reasons of failing functions: " + (
            "; ".join(f"{kind} ({counted(n, 'function')})" for kind, n in common) if common else "none fails") + ".")
    blocks: list[Block] = [
        MODEL,
        "Per function of each model cell: the forecast (runs: every case that applies runs; fails: none runs; "
        "partial; numerics risk: every case runs, some only outside their own tolerance under the TPU's "
        "arithmetic; not applicable: no case's input can exist on an XLA device) of its forward cases, the most "
        "common reason of the cases that decide it with their count, the same forecast of its backward cases "
        "and its reason (training; - without any), what the framework version declares for the TPU (`runner "
        "declared`), the verdict of the same framework eager on the CPU, the cases flagged with numerics risk of "
        "those that apply, whether the 2023 study timed the function on its v3-8 TPU, and the verdict of a TPU "
        "cell where one ran (`runner compare` sets a TPU run of its own against this forecast).",
        *reasons, *_unmodelled(r, {fw for fw, _ in models}),
        Table(pd.DataFrame(rows, columns=_COLUMNS), "Per function: the TPU forecast and its reason, beside the "
                                                    "declarations, the CPU, the study and any measured TPU")]
    return Section(TITLE, blocks, summary="; ".join(summaries) + ".")


def _verdicts_of(verdicts: pd.DataFrame, framework: str, target: str | None) -> dict[str, str]:
    v = verdicts[(verdicts["framework"] == framework) & (verdicts["target"] == target)]
    return dict(zip(v["function"], v["verdict"]))


def _study_figures(r: Results, framework: str) -> dict[str, str]:
    """Per function: "ran (948 ms)" where the 2023 study timed it on its v3-8 TPU, found under its paper label."""
    timed = baseline.read("latency-t4-v3")
    timed = dict(zip(timed.loc[timed["framework"] == framework, "function"],
                     timed.loc[timed["framework"] == framework, "tpu_v3_ms"]))
    labels = r.catalog[r.catalog["framework"] == framework]
    label_of = dict(zip(labels["function"], labels["paper_label"]))
    functions = set(r.cases.loc[r.cases["framework"] == framework, "function"])
    out = {}
    for function in functions:
        ms = timed.get(label_of.get(function) or function, timed.get(function))
        if ms is not None and ms == ms:
            out[function] = f"ran ({ms:g} ms)"
    return out


def _unmodelled(r: Results, modelled: set[str]) -> list[str]:
    """A line per framework of these records without a model cell: what its cells can say of the TPU (nothing), and
    which cell makes its forecast."""
    lines = []
    for fw in (fw for fw in tables.FRAMEWORKS if fw in set(r.cases["framework"]) and fw not in modelled):
        c = r.cases[r.cases["framework"] == fw]
        if ((c["device"] == tpu_tables.MODEL_DEVICE) & (c["compiler"] == "eager")).any():
            said = ("its eager cell on XLA's CPU device is older than the TPU model (records of schema 5 carry it), "
                    "so its cases carry no forecast")
        elif (c["compiler"] == "compiled").any():
            said = ("its compiled cells compile each function whole, which answers \"does my function compile?\" "
                    "(Eager against compiled), not how a TPU runs it op by op: the forecast is not available from "
                    "them")
        else:
            said = "no model cell in these records"
        lines.append(f"{fw}: {said}; `runner bench --image {IMAGES[fw]}` runs its model cell.")
    return lines
