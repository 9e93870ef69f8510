"""The results record: one JSON object a line, three kinds (header, case, footer).

Plain dicts built by small functions (the harness has the standard library only); the keys written here
are the schema. Bump SCHEMA when a key changes meaning, and teach `migrate` to read the older one.
"""
from __future__ import annotations

import datetime
from typing import Any, Dict, List, Optional

# 1: the first version.
# 2: the header carries `catalog` (each curated function's usage decile, top-20 flag and paper label).
# 3: the outcome `interrupted` (the run was stopped while the case ran; a resumed run runs it again and
#    its result supersedes this record); the header carries `memory_limit_mb`; header and footer carry
#    `engine` (how the host ran the cell: {"name": "ray", "node": ..., "ray_version": ...} on a cluster);
#    a case carries the median's confidence interval and why sampling stopped (`warm_ci_low_s`,
#    `warm_ci_high_s`, `warm_confidence`, `warm_stop`: precise, cap, unreachable, quick or single), `warm_min_s`, and
#    `calibration_s`, the host's speed just before the case; the header carries the sampling `policy`
#    and the worker's `cpus`.
# Census records (schema 3, Config.task "census"; portability_harness.census) add, without changing any key
# above: in the header, `task: "census"` (a report keeps these records apart from the curated cases) and
# `database` ({name, module, version: the framework's, census: the selected ops, dtypes and undeclared flag,
# and per framework facts such as jax_enable_x64}); in each case, whose id is census/<framework>/<op>[:<variant>]/
# <dtype>: `op`, `variant`, `dtype` (canonical, or "untyped"), `declared` ({cpu, cuda, tpu: true, false or
# null}: whether the database lists the dtype on that device kind), `db_rules` (the database's skips,
# expected failures, device restrictions and limitations that apply here: {what, reason, test, stages}),
# `samples` (inputs the database or generator gave), `samples_run`, `samples_failed` (raised, or differed
# from the reference), `samples_rejected` (generated inputs the op's validation refused: the generator's
# limit), `samples_unchecked` (ran with nothing to compare with), `samples_skipped` (the database says they
# must not run), `timed_sample` (the index of the sample `bench` timed, the first that ran), `first_failure`
# ({sample, stage: call or check, message}), `reference` (numpy, cpu, launch or none: what a sample was
# checked against), and `db_ruling` where a failure is one the database declares (its category_source is
# then "db"). A census case skipped because no input could be built has category_source "generator" (our
# generator's limit) or "db" (the database's own sample generator failed, or it rules every sample out).
# 4: the compiler axis (protocol.COMPILERS): the header and each case carry `compiler` (eager or compiled); a case
#    carries `stage` (how far it got: setup, trace, lower, compile, execute, check; None for a case that never
#    called bench and passed), `compile_s` (compiled: trace, lower and compile, apart from the timed calls, which
#    start after them), `divergence` (compiled: {max_abs, max_rel, max_ulp} of the output against one eager call
#    on the same device, or {mismatch} / {reference_failed}); the outcome `fallback` (the case ran, but part of it
#    off the compiler or the device: `fallback` lists the ops or devices); category_source "divergence" (a
#    compiled case's own check refused an output that differs from the eager one: category precision); `output`
#    (a few evenly strided values of each output array with its dtype and shape, divergence.digest: what a report
#    compares between cells of the same case, such as any device against the CPU's eager result).
#    Records of schema 3 read as eager.
#    Added later in schema 4 without changing a key (older records lack them; benchmarks/harness_overhead.py
#    skips such files): a case carries `measure_wall_s` (the host calibration, compiling where compiled, the cold
#    call, warm-up and samples: its measurement's wall time), `phases_s` (the whole case by phase: measure, setup,
#    inputs, harness, checks, teardown; CaseState.phases) and `began_at` (time.time() at its start); the footer
#    `supervisor_started_at`, `supervisor_ended_at` and `workers` ([{spawned, imported, collected, running,
#    ended}], time.time() of each worker's start-up steps and end).
# 5: the TPU's execution model (device kind xla-cpu, eager: tpu_model.py): the outcome `not_applicable` (the case's
#    input cannot exist on the device, e.g. a strided view on an XLA device: no verdict, counted apart), and in such
#    a cell's cases `tpu` ({verdict: runs, fails, numerics_risk or not_applicable; reason; ops: the [op, dtype]
#    pairs the call executed}); the header's `tpu_dtypes` (which TPU generation's dtype rules the model applies);
#    the category `not_compilable` (compiled: the function cannot be compiled whole, whatever the device: a failure
#    at trace, or a value XLA cannot hold crossing into or out of the compiled function; category_source
#    "compiler"); the header's framework_facts may carry `timed_soft_device_placement` (TensorFlow: soft placement
#    around the timed calls, off in paper mode and in the TPU model; `soft_device_placement` is the rest's); a case
#    may carry `called_as` (the path the study called its function by, where this release lacks the public name).
#    Added later in schema 5 without changing a key: a case's `cut_short` (on an `interrupted` record of a case a
#    time budget left without a result, run_budget.py: "run", the run's budget, Config.stop_at, or "case", a quick
#    pass's limit a case, Config.case_budget_s) and the footer's `cut_short` (how many); a GPU case's `device_state`
#    (device_state.py: its SM and memory clocks, temperature and power draw [before, after] its measurement, the
#    NVML reasons holding its clocks at either end, `held_s` by the power or thermal policy in between; absent
#    where NVML cannot be read); a census case's `samples_calls_s` and `samples_checks_s` (the time after its
#    timed sample: the other samples' calls, every sample's check against its reference).
#    Also later in schema 5: the header's `compile_caches` says which caches the repeat's
#    compilers started from (compile_caches.py: "fresh per repeat", "fresh, kept for the cell's later repeats" or
#    "reused from an earlier repeat of the cell"), and a case carries `cold_cached` (true where its first call, and
#    so `cold_s` and `compile_s`, may have been served by a cache an earlier repeat filled; older records: false).
# 6: training as well as inference (backward.py, case_kinds.py): each case carries `pass` (forward, or backward: the
#    case timed the backward call alone, after an untimed forward, and its output is the gradients) and `layout`
#    (its input's layout or kind: dense, sparse_coo, sparse_csr, quantized, pinned, channels_last, complex); a
#    backward case carries `gradient_divergence` ({max_abs, max_rel, max_ulp} of its gradients against the CPU's
#    float64 gradients of the same inputs, in units of the gradients' own dtype, or {mismatch} / {reference_failed});
#    the header's catalog gives, for a function that declares them, `backward` (why it has no backward cases) and
#    `upstream` (the upstream test methods its module cites, each with what represents it: upstream.py). Records of
#    schema 5 and before read as forward cases (with no layout).
#    Added later in schema 6 without changing a key: a PyTorch census case on a device whose samples could not be
#    drawn for that device (the database's generator itself failed there) and were drawn on the CPU and moved
#    carries `samples_moved_from_cpu` (why); every other census sample is drawn for the cell's device.
SCHEMA = 6

OUTCOMES = ("passed", "failed", "skipped", "missing_api", "interrupted", "fallback", "not_applicable")
CATEGORIES = (
    "not_implemented",
    "type",
    "precision",
    "memory",
    "timeout",
    "crash",
    "not_compilable",
    "case_error",
    "other",
)


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def header(**fields: Any) -> Dict[str, Any]:
    """fields: run_id, framework, framework_version, device, device_model, image, profile, python,
    mode, host, runner_version, git_commit, catalog (and any extra facts, such as placement mode)."""
    return {"record": "header", "schema": SCHEMA, "started_at": now(), **fields}


def case(
    *,
    function: str,
    module: str,
    case_id: str,
    params: Dict[str, str],
    outcome: str,
    category: Optional[str] = None,
    message: Optional[str] = None,
    duration_s: float = 0.0,
    timing: Optional[Dict[str, Any]] = None,
    fallback: Optional[Dict[str, Any]] = None,
    **extra: Any,
) -> Dict[str, Any]:
    """One case's record. `timing` holds the bench measurement (see harness.timing.Measurement.as_record)."""
    assert outcome in OUTCOMES, outcome
    assert category is None or category in CATEGORIES, category
    timing = timing or {}
    return {
        "record": "case",
        "function": function,
        "module": module,
        "case_id": case_id,
        "params": params,
        "outcome": outcome,
        "category": category,
        "message": first_line(message),
        "duration_s": duration_s,
        "cold_s": timing.get("cold_s"),
        "warm_samples_s": timing.get("warm_samples_s", []),
        "warm_count": timing.get("warm_count", 0),
        "warm_median_s": timing.get("warm_median_s"),
        "warm_q1_s": timing.get("warm_q1_s"),
        "warm_q3_s": timing.get("warm_q3_s"),
        "warm_min_s": timing.get("warm_min_s"),
        "warm_ci_low_s": timing.get("warm_ci_low_s"),
        "warm_ci_high_s": timing.get("warm_ci_high_s"),
        "warm_confidence": timing.get("warm_confidence"),
        "warm_stop": timing.get("warm_stop"),
        "compiled": timing.get("compiled"),
        "recompiles": timing.get("recompiles"),
        "fallback": fallback,
        "pass": extra.pop("pass", "forward"),
        **extra,
    }


def footer(counts: Dict[str, int], **fields: Any) -> Dict[str, Any]:
    return {"record": "footer", "finished_at": now(), "counts": counts, **fields}


def first_line(message: Optional[str], limit: int = 500) -> Optional[str]:
    if message is None:
        return None
    for line in str(message).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def count_outcomes(cases: List[Dict[str, Any]]) -> Dict[str, int]:
    counts = {o: 0 for o in OUTCOMES}
    for c in cases:
        counts[c["outcome"]] += 1
    return counts


# Header facts that must agree for a resumed run to append to a results file.
RESUME_KEYS = ("framework", "framework_version", "device", "mode", "compiler", "profile")


def incompatibility(existing: Dict[str, Any], new: Dict[str, Any]) -> Optional[str]:
    """Why records of the `new` header cannot be appended after the `existing` one, or None when they can."""
    diff = [k for k in RESUME_KEYS if existing.get(k) != new.get(k)]
    if not diff:
        return None
    return "it holds results of another configuration (" + ", ".join(
        f"{k}={existing.get(k)!r} not {new.get(k)!r}" for k in diff) + ")"


def migrate(record: Dict[str, Any]) -> Dict[str, Any]:
    """A record of an older schema in the current shape. A header keeps its `schema` (what was written);
    schema 1 headers had no catalog."""
    if record.get("record") == "header" and isinstance(record.get("schema"), int) and record["schema"] < 2:
        record = dict(record, catalog=record.get("catalog"))
    old = record.get("record") == "header" and isinstance(record.get("schema"), int) and record["schema"] < 4
    if (old or record.get("record") == "case") and "compiler" not in record:
        record = dict(record, compiler="eager")  # before schema 4 every cell ran eagerly
    if record.get("record") == "case" and "pass" not in record:
        record = dict(record, **{"pass": "forward"})  # before schema 6 every case called its function forward
    return record
