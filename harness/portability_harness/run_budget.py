"""Time budgets that cut a run short instead of failing its cases: the whole run's (Config.stop_at: a quick pass's,
or a machine lent by the minute) and a quick pass's per case (Config.case_budget_s).

Once the worker has planned its cases (before that, nothing says which cases the run has), the supervisor stops it
when the run's budget ends and records every planned case without a result as `interrupted` with `cut_short` set:
the case running then, and those never started (`cut_short: "run"`). A case still running at a quick pass's limit
a case (below the per-case timeout) is stopped and recorded the same way (`cut_short: "case"`), and the run goes on
with the next. None is dropped silently: the footer counts them (`cut_short`), a results file with cases the run's
budget left is not finished (a resumed run runs them, on a budget of its own; one cut at the limit a case would
only meet it again, so it counts as done: a run without --quick measures it), and a report lists them apart from
the cases a signal interrupted.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from portability_harness.protocol import Config
from portability_harness.records import schema, store

STOPPED = "cut short: the run's time budget ended while this case ran"
NOT_STARTED = "cut short: the run's time budget ended before this case started"
CASE_BUDGET = "cut short: still running after a quick pass's {:g} s a case; a run without --quick measures it"


class Budget:
    def __init__(self, stop_at: Optional[float]):
        # The host gives a wall-clock time (it planned the run in another process, perhaps on another node); it is
        # kept as a monotonic one here, so that a clock step during the run does not move it.
        self.ends = math.inf if stop_at is None else time.monotonic() + (stop_at - time.time())
        # The first plan's [case id, function] pairs: the budget applies once they are known (a worker starting up
        # past it still plans, so that its cases are recorded as cut short, not left out).
        self.planned: Optional[List[List[str]]] = None
        self.stopped_worker = False  # the supervisor stopped the worker when the budget ended

    def until(self) -> float:
        """When the run stops (monotonic): the budget's end once the cases are planned."""
        return self.ends if self.planned is not None else math.inf

    def spent(self) -> bool:
        return time.monotonic() >= self.until()


def case_limit(cfg: Config) -> float:
    """How long a case may run before the supervisor stops it."""
    return cfg.case_budget_s if cfg.case_budget_s is not None and case_budget_first(cfg) else cfg.timeout_s


def case_budget_first(cfg: Config) -> bool:
    """Whether a case that runs too long meets the quick pass's limit before the per-case timeout."""
    return cfg.case_budget_s is not None and cfg.case_budget_s < cfg.timeout_s


def cut(case_id: str, function: str, module: str, message: str, fields: Dict[str, Any], by: str) -> Dict[str, Any]:
    """A cut-short record: no result (`interrupted`), why, and `by` which budget: run or case."""
    return schema.case(function=function, module=module, case_id=case_id, params={}, outcome="interrupted",
                       category_source="supervisor", cut_short=by, message=message, **fields)


def record(cfg: Config, planned: Iterable[Sequence[str]], in_flight: Optional[str],
           describe: Callable[[str], Tuple[str, Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """Append to cfg.out the cut-short record of each planned [case id, function] without a result, in the plan's
    order, and return them; `describe(case id)`: the module its record names and the fields known before it ran
    (lost_cases.describer)."""
    done = store.read(cfg.out).done
    out = []
    for case_id, function in planned:
        if case_id in done:
            continue
        module, fields = describe(case_id)
        out.append(cut(case_id, function, module, STOPPED if case_id == in_flight else NOT_STARTED, fields, "run"))
    with store.Writer(cfg.out) as writer:
        for rec in out:
            writer.append(rec)
    return out


def counted(cases: Iterable[Dict[str, Any]]) -> Dict[str, int]:
    """The footer's count of cases cut short, where there are any."""
    n = sum(bool(c.get("cut_short")) for c in cases)
    return {"cut_short": n} if n else {}
