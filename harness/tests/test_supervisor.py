"""The supervisor's handling of its worker's events, with a scripted worker in place of pytest: a worker that
crashes or hangs mid-case gets that case recorded and is replaced; the replacement skips what is recorded;
an error stops the run with its code; a worker that dies before any case is an error, not a loop.

The scripted worker is a real process speaking the real protocol on the real pipe; only what it does per
case is written out in CASES below, so that each path of the supervisor can be made to happen on purpose.
"""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from portability_harness.errors import HarnessError
from portability_harness.protocol import Config, Exit, decode
from portability_harness.records import schema, store
from portability_harness.supervisor import Supervisor

WORKER = textwrap.dedent('''
    import json, os, sys, time
    from portability_harness.protocol import (ENV_CONFIG, ENV_EVENTS_FD, CaseEnd, Config, Emitter, Error,
                                              Finished, Plan, Start)
    from portability_harness.records import schema, store

    cfg = Config.read(os.environ[ENV_CONFIG])
    emit = Emitter(int(os.environ[ENV_EVENTS_FD]))
    actions = json.loads(sys.argv[1])
    if actions.get("*") == "die":  # dies at start-up, as a worker whose framework fails to import
        sys.exit(9)
    if actions.get("*") == "slow":  # a framework that takes longer to import than one case may take
        time.sleep(1.5)
    done = {c["case_id"] for c in store.read(cfg.out).cases}
    pending = [[case_id, "fn"] for case_id in actions if case_id not in done and case_id != "*"]
    emit(Plan(pending=pending, done=[[c, "fn"] for c in done]))
    with store.Writer(cfg.out) as w:
        if not store.read(cfg.out).header:
            w.append(schema.header(framework=cfg.framework, device=cfg.device, mode=cfg.mode, profile=""))
        for case_id, _ in pending:
            action = actions[case_id]
            emit(Start(case_id=case_id, function="fn"))
            if action == "crash":
                os.abort()
            if action == "crash-telling":  # as pytest's dots, then faulthandler's dump, then the module list
                sys.stdout.write("ss.Fatal Python error: Aborted\\n\\nCurrent thread:\\n  File x.py\\n"
                                 "Extension modules: numpy, h5py\\n")
                sys.stdout.flush()
                os.abort()
            if action == "crash-check":  # a C++ CHECK failure logged by glog before the abort
                sys.stdout.write("F0000 00:00:1795489553.083221 7347 kernel.cc:52] Check failed: n > 0\\n"
                                 "ss.Fatal Python error: Aborted\\n")
                sys.stdout.flush()
                os.abort()
            if action == "crash-tsl-check":  # XLA's CHECK in TSL's format, as torch_xla 2.9 logged it (Rprop, complex)
                sys.stdout.write("..F.s.2026-12-07 00:55:29.097412: F external/xla/xla/permutation_util.h:105] "
                                 "Check failed: p1.size() == p2.size() (3 vs. 2)\\n"
                                 "Fatal Python error: Aborted\\n")
                sys.stdout.flush()
                os.abort()
            if action == "hang":
                time.sleep(60)
            if action == "error":
                emit(Error(reason="device_unavailable", message="no such device", code=3))
                sys.exit(3)
            w.append(schema.case(function="fn", module="m", case_id=case_id, params={}, outcome="passed"))
            emit(CaseEnd(case_id=case_id, function="fn", outcome="passed"))
    emit(Finished())
''')


class ScriptedSupervisor(Supervisor):
    def __init__(self, cfg: Config, config_path: str, emit, actions: dict):
        super().__init__(cfg, config_path, emit)
        self.actions = actions

    def worker_command(self):
        return [sys.executable, "-c", WORKER, json.dumps(self.actions)]


def supervise(tmp_path, actions: dict, timeout_s: float = 30.0):
    cfg = Config(framework="torch", device="cpu", out=str(tmp_path / "r.jsonl"), curated_root=str(tmp_path),
                 timeout_s=timeout_s)
    path = cfg.write(str(tmp_path / "config.json"))
    events = []
    # What the supervisor emits, through the wire format and back, in order.
    code = ScriptedSupervisor(cfg, path, lambda e: events.append(decode(e.encode())), actions).run()
    return code, events, store.read(cfg.out)


def kinds(events):
    return [e.kind for e in events]


def test_a_clean_run_forwards_plan_starts_cases_and_writes_a_footer(tmp_path):
    code, events, contents = supervise(tmp_path, {"a": "ok", "b": "ok"})
    assert code == Exit.OK
    assert kinds(events) == ["plan", "start", "case", "start", "case", "finished"]
    assert events[0].pending == [["a", "fn"], ["b", "fn"]]
    assert [c["case_id"] for c in contents.cases] == ["a", "b"]
    assert contents.footer["counts"]["passed"] == 2 and contents.footer["worker_restarts"] == 0


def test_a_crash_records_the_case_in_flight_and_a_new_worker_goes_on(tmp_path):
    code, events, contents = supervise(tmp_path, {"a": "ok", "b": "crash", "c": "ok"})
    assert code == Exit.OK
    cases = {c["case_id"]: c for c in contents.cases}
    assert list(cases) == ["a", "b", "c"]  # each once, in order
    assert cases["b"]["outcome"] == "failed" and cases["b"]["category"] == "crash"
    assert "SIGABRT" in cases["b"]["message"] and cases["b"]["category_source"] == "supervisor"
    # One plan only: the replacement's plan is the rest of the first one.
    assert kinds(events).count("plan") == 1
    restart = next(e for e in events if e.kind == "restart")
    assert restart.restarts == 1 and "SIGABRT" in restart.reason
    assert contents.footer["worker_restarts"] == 1


def test_a_crash_is_described_by_the_most_telling_line_of_the_log(tmp_path):
    code, _, contents = supervise(tmp_path, {"a": "crash-telling", "b": "ok"})
    assert code == Exit.OK
    (a, b) = contents.cases
    assert a["message"] == "the worker died with SIGABRT: Fatal Python error: Aborted", a["message"]
    (tmp_path / "check").mkdir()
    code, _, contents = supervise(tmp_path / "check", {"a": "crash-check"})
    assert code == Exit.OK
    assert contents.cases[0]["message"] == ("the worker died with SIGABRT: F0000 00:00:1795489553.083221 7347 "
                                            "kernel.cc:52] Check failed: n > 0")
    (tmp_path / "tsl").mkdir()
    code, _, contents = supervise(tmp_path / "tsl", {"a": "crash-tsl-check"})
    assert code == Exit.OK
    assert contents.cases[0]["message"] == (
        "the worker died with SIGABRT: 2026-12-07 00:55:29.097412: F external/xla/xla/permutation_util.h:105] "
        "Check failed: p1.size() == p2.size() (3 vs. 2)")


def test_a_hang_past_the_timeout_is_killed_and_recorded_as_timeout(tmp_path):
    code, events, contents = supervise(tmp_path, {"a": "hang", "b": "ok"}, timeout_s=0.5)
    assert code == Exit.OK
    cases = {c["case_id"]: c for c in contents.cases}
    assert cases["a"]["category"] == "timeout" and "0.5 s" in cases["a"]["message"]
    assert cases["b"]["outcome"] == "passed"


def test_start_up_is_not_held_to_the_per_case_timeout(tmp_path):
    code, events, contents = supervise(tmp_path, {"*": "slow", "a": "ok"}, timeout_s=0.5)
    assert code == Exit.OK and [c["outcome"] for c in contents.cases] == ["passed"]


def test_an_error_event_stops_the_run_with_its_code(tmp_path):
    code, events, contents = supervise(tmp_path, {"a": "error", "b": "ok"})
    assert code == 3
    assert events[-1].kind == "error" and events[-1].message == "no such device"
    assert contents.footer is None and not contents.cases


def test_a_worker_that_dies_before_any_case_is_an_error(tmp_path):
    with pytest.raises(HarnessError, match="before running any case") as e:
        supervise(tmp_path, {"*": "die"})
    assert e.value.code == Exit.WORKER_DIED


def test_without_resume_a_file_with_results_is_refused(tmp_path):
    (tmp_path / "r.jsonl").write_text(json.dumps(schema.header(framework="torch")) + "\n")
    with pytest.raises(HarnessError, match="--resume"):
        supervise(tmp_path, {"a": "ok"})


@pytest.mark.parametrize("device, spare", [("cpu", True), ("xla-cpu", True), ("cuda", False), ("tpu", False)])
def test_a_census_keeps_a_spare_worker_only_where_the_device_can_be_shared(tmp_path, device, spare):
    cfg = Config(framework="jax", device=device, out=str(tmp_path / "r.jsonl"), curated_root=str(tmp_path),
                 task="census")
    assert Supervisor(cfg, cfg.write(str(tmp_path / "c.json")), lambda e: None).spare_allowed() is spare
    cases = Config(framework="jax", device="cpu", out=str(tmp_path / "r.jsonl"), curated_root=str(tmp_path))
    assert Supervisor(cases, cases.write(str(tmp_path / "d.json")), lambda e: None).spare_allowed() is False


def test_on_an_exclusive_device_a_new_worker_waits_for_the_last_ones_processes(tmp_path):
    import subprocess
    import threading
    import time

    from portability_harness import processes

    cfg = Config(framework="jax", device="tpu", out=str(tmp_path / "r.jsonl"), curated_root=str(tmp_path))
    supervisor = Supervisor(cfg, cfg.write(str(tmp_path / "c.json")), lambda e: None)
    # A process of the last worker's session that outlives it (as a child still releasing the chips), until the test
    # closes its input.
    lingering = subprocess.Popen(["setsid", "sh", "-c", "read line"], stdin=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not processes.session_members(lingering.pid):
        assert time.monotonic() < deadline, "waited 60 s for setsid to make the lingering process's session"
        time.sleep(0.05)
    supervisor.last_session = lingering.pid
    threading.Timer(0.5, lingering.stdin.close).start()  # whenever it ends, a new worker must wait for that
    supervisor.await_release()
    assert not processes.session_members(lingering.pid), "a new worker would have started beside the old one"
    assert lingering.wait() == 1  # `read` met the end of its input: the test ended it, not a timeout
