"""The pytest plugin that runs inside the worker: fixtures `device` and `bench`, the `function`
marker, missing-API detection, classification, and one record per case.

Loaded with `-p portability_harness.plugin` by the supervisor, which names the config file in the
environment. Loaded any other way (by a project's own tests), the fixtures skip. The hooks only route pytest's
calls; the worker's state, its start-up and the records they write are worker.py's.
"""
from __future__ import annotations

import faulthandler
import os
import re
import sys
import time
import traceback
from typing import Any, Dict, List, Optional

import pytest

from portability_harness import classify as clf
from portability_harness import backward as gradients
from portability_harness import case_kinds, device_state, divergence, processes, run_order, tpu_model
from portability_harness.case_state import CaseState
from portability_harness.protocol import DUMP_SIGNAL, ENV_CONFIG, Config, Plan, Start
from portability_harness.timing import calibrate, measure
from portability_harness.worker import Worker
from portability_harness.worker_process import RERUN, RETIRED

_MISSING_PREFIX = "missing_api: "

_worker: Optional[Worker] = None
_adopting = False  # the worker adopts orphans (processes.adopt_orphans): its descendants are what it started
_running: Optional[set] = None  # the worker's processes after the last case ended (one /proc scan a case, not two)
_gpu: Optional[device_state.Reader] = None  # the cell's GPU through NVML, where it can be read


def pytest_configure(config: pytest.Config) -> None:
    global _worker, _adopting, _gpu
    config.addinivalue_line(
        "markers", "function(name, decile=None, top20=False, paper_label=None, backward=None, called_as=None): the "
                   "function a curated module covers (the study's sample gives its usage decile, top-20 flag and label; "
                   "your own, the name); backward: why it has no backward cases (not differentiable); called_as: the "
                   "path the study called it by, where a release lacks the public name"
    )
    for line in case_kinds.MARKERS:
        config.addinivalue_line("markers", line)
    config.addinivalue_line(
        "markers", "case_id(id, module=None): the case's id in the records instead of its node id (census cases, "
                   "whose ids are made of the database's names)")
    if ENV_CONFIG not in os.environ:
        return  # loaded outside a cell run (e.g. by the project's own tests): fixtures are inert
    cfg = Config.read(os.environ[ENV_CONFIG])
    # Where a case hangs: the supervisor asks for every thread's stack in the log before it kills the worker.
    faulthandler.register(DUMP_SIGNAL, file=sys.stderr, all_threads=True)
    # The curated modules of a framework share helpers in curated/<framework>/_support.py; pytest's
    # importlib mode puts no test folder on sys.path, so the worker does (one framework per worker).
    sys.path.insert(0, os.path.join(os.path.abspath(cfg.curated_root), cfg.framework))
    pytest.register_assert_rewrite("_support")
    _adopting = processes.adopt_orphans()  # so that what a case starts stays the worker's descendant
    _worker = Worker(cfg)
    _gpu = device_state.Reader.for_config(cfg)
    _worker.start()
    _worker.times["imported"] = time.time()


def pytest_make_parametrize_id(config: pytest.Config, val: Any, argname: str) -> Optional[str]:
    """Readable case ids for dtypes and devices: test_x[float32] rather than test_x[dtype0]."""
    if isinstance(val, (str, int, float, bool)) or val is None:
        return None
    name = getattr(val, "name", None)
    if isinstance(name, str) and name:
        return name
    name = getattr(val, "__name__", None) or str(val)
    return name if len(name) < 40 and not re.search(r"[\s<>]", name) else None


def _marker_function(item: pytest.Item) -> str:
    marker = item.get_closest_marker("function")
    if marker is None:
        return f"<no function marker: {item.nodeid.split('::')[0]}>"
    return marker.args[0] if marker.args else marker.kwargs["name"]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: List[pytest.Item]) -> None:
    w = _worker
    if w is None:
        return
    w.times["collected"] = time.time()
    w.wait_for_turn()
    w.times["running"] = time.time()
    keep, dropped, done = [], [], []
    for item in items:
        function = _marker_function(item)
        marker = item.get_closest_marker("case_id")
        case_id = marker.args[0] if marker else w.case_id(item.nodeid)
        module = (marker.kwargs.get("module") if marker else None) or item.nodeid.split("::")[0]
        item.stash[_STATE] = CaseState(function=function, case_id=case_id, module=module)
        item.stash[_STATE].extra.update(case_kinds.fields(item))  # pass and layout
        item.stash[_STATE].host_output = item.get_closest_marker(case_kinds.HOST_OUTPUT) is not None
        if not w.selected(function):
            dropped.append(item)
        elif case_id in w.done:
            dropped.append(item)
            done.append([case_id, function])
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    keep = run_order.spread(keep, lambda i: i.stash[_STATE].case_id)
    items[:] = keep
    kinds = {i.stash[_STATE].case_id: {k: i.stash[_STATE].extra[k] for k in ("pass", "layout")} for i in keep
             if (i.stash[_STATE].extra["pass"], i.stash[_STATE].extra["layout"]) != ("forward", "dense")}
    w.emit(Plan(pending=[[i.stash[_STATE].case_id, i.stash[_STATE].function] for i in keep], done=done,
                times=w.times, kinds=kinds))


_STATE = pytest.StashKey[CaseState]()


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A module that cannot be imported is recorded as one failed case, so it is never silently lost."""
    w = _worker
    if w is not None and report.failed and w.case_id(report.nodeid) not in w.done:
        w.record_import_failure(report.nodeid, str(report.longrepr))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Optional[pytest.Item]):
    global _running
    w = _worker
    if w is None:
        yield
        return
    state = item.stash[_STATE]
    w.emit(Start(case_id=state.case_id, function=state.function))
    w.begun += 1
    state.began_at = time.time()
    state.mark("start")
    # The processes running before the case: those the last case left (nothing starts any between cases).
    before = _running if _running is not None else _started_processes()
    state.calibration_s = calibrate()
    state.mark("calibrated")
    t0 = time.perf_counter()
    yield
    state.mark("end")
    duration = time.perf_counter() - t0
    # A case that started processes (a server, a pool, a forked child) must not leave them running into the
    # next case or past the run: end what this case started.
    now = _started_processes()
    started = now - before - {os.getpid()}
    processes.kill(started, collect=True)
    _running = now - started
    fields: Dict[str, Any] = {}
    if state.missing is not None:
        outcome, message = "missing_api", state.missing
    elif state.failed:
        params = getattr(getattr(item, "callspec", None), "params", {})
        outcome, (message, fields) = "failed", w.failure(state, params.values())
    elif state.skip_reason is not None:
        outcome, message = "skipped", state.skip_reason
    elif state.fallback:
        outcome, message = "fallback", "ran off the compiler or the device: " + ", ".join(
            state.fallback.get("ops") or state.fallback.get("devices") or [])
    else:
        outcome, message = "passed", None
    inapplicable = w.adapter.not_applicable(state.chain, state.function) if outcome == "failed" else None
    if inapplicable:
        outcome, message, fields = "not_applicable", inapplicable, {}
    if w.adapter.model:
        fields["tpu"] = tpu_model.forecast(outcome, fields.get("category"), message, state.gaps, state.risk,
                                           state.ops, state.stage, state.fallback,
                                           w.adapter.failure_reason(state.chain) if outcome == "failed" else None)
    unusable = w.unusable_after(outcome, message)
    if unusable == RERUN:
        w.leave(RERUN)  # not this case's own error: unrecorded, the next worker runs it first
    params = {k: _param_text(v) for k, v in getattr(getattr(item, "callspec", None), "params", {}).items()}
    phases = state.phases()
    w.write_case(
        function=state.function,
        module=state.module,
        case_id=state.case_id,
        params=params,
        outcome=outcome,
        message=message,
        duration_s=duration,
        timing=state.measurement.as_record() if state.measurement else None,
        fallback=state.fallback,
        calibration_s=state.calibration_s,
        compiler=w.cfg.compiler,
        stage=state.stage if state.measurement is not None or outcome == "failed" else None,
        compile_s=state.compile_s,
        divergence=state.divergence,
        output=state.output,
        measure_wall_s=round(phases["measure"], 6),
        phases_s=phases,
        began_at=state.began_at,
        **{**state.extra, **fields},
    )
    if unusable == RETIRED:
        # The record is in the file; the process's device context is not usable any more. The supervisor
        # starts a new worker, which skips every recorded case as a resumed run does.
        w.leave(RETIRED)


def _started_processes() -> set:
    """The processes the worker has started (cases' servers, pools, children, adopted orphans): its descendants,
    where the kernel lists them (about 50 us), else its session's members (a scan of every process: ms)."""
    found = processes.descendants(os.getpid()) if _adopting else None
    return found if found is not None else processes.session_members(os.getsid(0))


def _after_first_call(call: Any, state: CaseState) -> Any:
    """`call`, marking the case's stage `execute` once its first call (which compiled) has returned."""
    def staged() -> Any:
        out = call()
        if state.stage != "execute":
            state.enter("execute")
        return out
    return staged


def _param_text(value: Any) -> str:
    return pytest_make_parametrize_id(None, value, "") or repr(value)  # type: ignore[arg-type]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    w = _worker
    if w is None:
        return
    state = item.stash[_STATE]
    if item.get_closest_marker("function") is None:
        raise clf.CaseError('curated module has no function marker; add pytestmark = pytest.mark.function("<name>")')
    if case_kinds.problem(state.extra):
        raise clf.CaseError(case_kinds.problem(state.extra))
    if w.cfg.task == "census":
        return  # a census op is named by its database (an OpInfo, a primitive, a kernel), not a public name
    try:
        w.adapter.resolve(state.function)
    except LookupError as e:
        # Where the public name is absent, the path the study called it by (the marker's called_as), recorded.
        called_as = item.get_closest_marker("function").kwargs.get("called_as")
        if called_as and w.adapter.resolves(called_as):
            state.extra["called_as"] = called_as
            return
        state.missing = str(e)
        pytest.skip(_MISSING_PREFIX + str(e))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    w = _worker
    if w is None:
        yield
        return
    state = item.stash[_STATE]
    state.mark("call")
    with w.adapter.scope():
        try:
            result = yield
            if result.excinfo is not None:
                # A failed call's frames hold what it made, and pytest keeps them (sys.last_value) until the next
                # case: on torch_xla, a tensor whose graph failed to run fails every sync while it lives ("Check
                # failed: tensor_data"), the one below included, whose error would replace the case's own.
                traceback.clear_frames(result.excinfo[2])
            # An asynchronous device error lands on the case that caused it, not on the next one (raised here, it
            # fails this case's call).
            w.adapter.synchronize()
            if result.excinfo is None and state.risk_error:
                state.probing = True  # bench hands the check the output the TPU's arithmetic may give
                state.risk = tpu_model.probe(item.runtest, state.risk_error, state.risk_causes,
                                             lambda e: clf.describe(clf.exception_chain(e)), w.adapter.synchronize)
        finally:
            state.probing = False
            state.mark("called")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    w = _worker
    if w is None or _STATE not in item.stash:
        return
    state = item.stash[_STATE]
    if report.failed and not state.failed:
        state.failed = True
        if call.excinfo is not None:
            state.chain = clf.exception_chain(call.excinfo.value)
            innermost = call.excinfo.traceback[-1] if call.excinfo.traceback else None
            state.raised_in_case = bool(innermost) and str(innermost.path).startswith(w.root + os.sep)
            if w.cfg.compiler == "compiled":
                state.stage = w.adapter.failed_stage(call.excinfo.value, state.stage)
    elif report.skipped and state.skip_reason is None and state.missing is None:
        longrepr = report.longrepr
        state.skip_reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)


def pytest_internalerror(excrepr: Any, excinfo: Any) -> None:
    if _worker is not None:
        _worker.internal_error(excinfo.value)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _worker is not None and _worker.writer is not None:
        _worker.session_finished(session, exitstatus)


@pytest.fixture
def device() -> Any:
    """The framework's own handle for the cell's device (torch.device, jax.Device, TF device string)."""
    if _worker is None:
        pytest.skip("curated cases run inside `python -m portability_harness`")
    return _worker.adapter.handle


@pytest.fixture
def record_fields(request: pytest.FixtureRequest) -> Dict[str, Any]:
    """A dict whose items the case's record carries beside the standard fields (the census's per-case facts:
    its samples, its first failure, what its database declares)."""
    if _worker is None:
        pytest.skip("curated cases run inside `python -m portability_harness`")
    return request.node.stash[_STATE].extra


@pytest.fixture
def bench(request: pytest.FixtureRequest):
    """bench(fn, *args, **kwargs): time fn by the protocol of design.md and return its first result."""
    w = _worker
    if w is None:
        pytest.skip("curated cases run inside `python -m portability_harness`")
    state = request.node.stash[_STATE]
    adapter = w.adapter
    compiled = w.cfg.compiler == "compiled"

    def timed(setup: Optional[Any], fn: Any, args: Any, kwargs: Any, prepare: Optional[Any] = None) -> Any:
        if state.probing:
            return tpu_model.probed_call(adapter, state, setup, fn, args, kwargs)
        if state.measurement is not None:
            raise clf.CaseError("bench may be called once per case: the timed region is one call")
        state.mark("bench_in")
        if compiled:
            t0 = time.perf_counter()
            call, known_ops = prepare(state.enter) if prepare else adapter.compile(fn, args, kwargs, state.enter)
            state.compile_s = state.aot_s = time.perf_counter() - t0
            state.enter("compile" if adapter.compiles_on_first_call else "execute")
            call = _after_first_call(call, state)
        else:
            call, known_ops = prepare(state.enter) if prepare else (adapter.prepare(fn, args, kwargs), [])
            call = adapter.prepared(call) if prepare else call  # (a backward case's call, made by its plan)
            state.enter("execute")
        before = adapter.snapshot()
        reading = _gpu.read() if _gpu else None  # the GPU's state around the measurement, outside its samples
        with adapter.timed():
            result, measurement = measure(call, adapter.sync, w.policy, counter=adapter.compilations, setup=setup)
        if reading is not None:
            state.extra["device_state"] = _gpu.window(reading, _gpu.read())
        measurement.compiled = compiled
        state.measurement = measurement
        state.fallback = case_kinds.expected_on_host(adapter.fallback(result, before), state.host_output)
        if known_ops:
            state.fallback = dict(state.fallback or {}, ops=sorted(set((state.fallback or {}).get("ops", []))
                                                                   | set(known_ops)))
        output = divergence.host_arrays(adapter, result)
        state.output = divergence.digest(output) if output else None
        if adapter.model:
            tpu_model.executed(adapter, state, setup, call, fn, args, kwargs)
        if compiled:
            if adapter.compiles_on_first_call:
                state.compile_s += measurement.cold_s  # the first call compiled: its time is not latency
            state.divergence = divergence.against_eager(adapter, output, setup, fn, args, kwargs)
        state.enter("check")
        state.mark("bench_out")
        return result

    def _bench(fn: Any, *args: Any, **kwargs: Any) -> Any:
        return timed(None, fn, args, kwargs)

    def with_setup(setup: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """bench.with_setup(setup, fn, *args): setup() runs untimed before every call of fn."""
        return timed(setup, fn, args, kwargs)

    _bench.with_setup = with_setup  # type: ignore[attr-defined]
    # backward.py's measurement: `prepare(stage)` makes the call to time in place of the adapter's prepare or compile.
    _bench.prepared = lambda prepare, fn, args, kwargs: timed(  # type: ignore[attr-defined]
        None, fn, args, kwargs, prepare)
    return _bench


@pytest.fixture
def backward(bench: Any, request: pytest.FixtureRequest):
    """backward(fn, *args, **kwargs): fn's gradients at a fixed cotangent, the backward call alone timed after one
    untimed forward, and measured against the CPU's float64 gradient (backward.py). A case takes it instead of bench."""
    return gradients.fixture(_worker.adapter, request.node.stash[_STATE], bench.prepared)
