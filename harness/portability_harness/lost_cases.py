"""The records the supervisor writes itself, for a case its worker could not record: the case in flight when the
worker died (a crash, the per-case timeout, the memory limit) or when the run was stopped."""
from __future__ import annotations

import signal
from typing import Any, Callable, Dict, Optional, Tuple

from portability_harness import classify as clf
from portability_harness import run_budget
from portability_harness.protocol import Config
from portability_harness.records import schema, store
from portability_harness.worker_process import WorkerEnd, describe_exit, log_tail


def describer(cfg: Config, kinds: Dict[str, Dict[str, str]]) -> Callable[[str], Tuple[str, Dict[str, Any]]]:
    """case id -> (the module its record names, the fields known before it ran), for the records the supervisor
    writes: its pass and layout where not forward and dense (the worker's plan, Plan.kinds), and a census case's
    own (op, dtype, what its database declares: the manifest the worker wrote when it collected them, read once
    here), whose module is its op."""
    manifest: Optional[Dict[str, Any]] = None
    if cfg.task == "census":
        from portability_harness import census

        manifest = census.manifest(cfg.out)

    def describe(case_id: str) -> Tuple[str, Dict[str, Any]]:
        fields: Dict[str, Any] = dict(kinds.get(case_id, {}))
        if manifest is not None:
            fields.update(census.manifest_fields(cfg.out, case_id, manifest))
            if fields.get("op"):
                return f"{census.PREFIX}/{cfg.framework}/{fields['op']}", fields
        return case_id.split("::")[0], fields

    return describe


def lost(cfg: Config, end: WorkerEnd, module: str, fields: Dict[str, Any]) -> Dict[str, Any]:
    """The failed record of the case in flight when the worker died (cut short where a quick pass's limit a case
    stopped it); `fields`: what was known of it before it ran (describer)."""
    case_id, function = end.in_flight  # type: ignore[misc]
    if end.timed_out and run_budget.case_budget_first(cfg):
        return run_budget.cut(case_id, function, module, run_budget.CASE_BUDGET.format(cfg.case_budget_s), fields,
                              "case")
    if end.timed_out:
        category = "timeout"
    elif end.memory_bytes is not None or end.returncode == -signal.SIGKILL:
        category = "memory"  # our watch, or a SIGKILL the supervisor did not send: the kernel's OOM killer
    else:
        category = "crash"
    message = describe_exit(end, cfg.timeout_s, cfg.memory_limit_mb)
    detail = log_tail(cfg.log_path)
    if detail and category == "crash":
        message += f": {detail}"
    # duration_s: the time it ran before it was killed or died, which a run's wall and the estimates count.
    rec = schema.case(function=function, module=module, case_id=case_id, params={}, outcome="failed",
                      category=category, message=message, duration_s=end.in_flight_s, category_source="supervisor",
                      **fields)
    header = store.read(cfg.out).header or {}  # the worker wrote it
    annotation = clf.annotated(clf.load_annotations(cfg.annotations_path()), case_id, cfg.device,
                               header.get("framework_version") or "", (header.get("host_cpu") or {}).get("features"))
    if annotation is not None:
        rec.update(category=annotation.category, category_source="annotation", annotation=annotation.reason)
    return rec


def interrupted(end: WorkerEnd, module: str, fields: Dict[str, Any]) -> Dict[str, Any]:
    """The record of the case in flight when the run was stopped: no result; a resumed run runs it again."""
    case_id, function = end.in_flight  # type: ignore[misc]
    return schema.case(function=function, module=module, case_id=case_id, params={}, outcome="interrupted",
                       duration_s=end.in_flight_s, category_source="supervisor",
                       message="the run was stopped while this case ran; --resume runs it again", **fields)
