"""A case's state while the worker runs it: what the plugin's hooks learn of it (its function, its measurement, how
it failed, how far it got) and when it reached each landmark, from which its record's `phases_s` are made."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from portability_harness import cpu_wait
from portability_harness.timing import Measurement


@dataclass
class CaseState:
    function: str
    measurement: Optional[Measurement] = None
    fallback: Optional[Dict[str, Any]] = None
    host_output: bool = False  # the case means its output to be on the host (case_kinds.HOST_OUTPUT)
    missing: Optional[str] = None
    chain: List = field(default_factory=list)
    raised_in_case: bool = False
    failed: bool = False
    skip_reason: Optional[str] = None
    calibration_s: Optional[float] = None  # the host's speed just before the case (timing.calibrate)
    case_id: str = ""  # the node id, or the id the case's `case_id` marker gives (census cases)
    stage: str = "setup"  # how far the case got: setup, trace, lower, compile, execute, check (protocol.COMPILERS)
    compile_s: Optional[float] = None  # compiled: tracing, lowering and compiling, apart from the timed calls
    aot_s: Optional[float] = None  # the part of compile_s spent before the timed calls (adapter.compile)
    divergence: Optional[Dict[str, Any]] = None  # compiled: the output against the eager call's (divergence.py)
    output: Optional[List[Dict[str, Any]]] = None  # a few values of the output (divergence.digest), for the report
    module: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)  # fields the case adds to its record (record_fields)
    # The TPU's execution model (tpu_model.py): the [op, dtype] pairs the call executed, those a TPU lacks, the
    # relative error the TPU's arithmetic would put on the output and what causes it, what the case's check said of
    # an output moved by it (None: it accepted it, or no probe), and whether that probe is running now.
    ops: List = field(default_factory=list)
    gaps: List[str] = field(default_factory=list)
    risk_error: Optional[float] = None
    risk_causes: List[str] = field(default_factory=list)
    risk: Optional[str] = None
    probing: bool = False
    # perf_counter at the case's landmarks (start, calibrated, call, bench_in, bench_out, called, end): where
    # the case's wall time went (phases), apart from the measurement itself
    marks: Dict[str, float] = field(default_factory=dict)
    began_at: float = 0.0  # time.time() at the case's start: the gaps between cases, across processes
    waited_before: Optional[cpu_wait.Reading] = None  # at the case's start (cpu_wait.read)

    def enter(self, stage: str) -> None:
        self.stage = stage

    def mark(self, landmark: str) -> None:
        # From the case's start to its end, the time its thread waited for the CPU while another process had it
        # (cpu_wait.py): the record's `cpu_wait_s`, which tells a case slowed by a process on its CPU, as the
        # calibration cannot. Read inside the marks, so that the phases still add up to the case's wall.
        if landmark == "end" and self.waited_before is not None:
            after = cpu_wait.read()
            if after is not None:
                self.extra["cpu_wait_s"] = round(cpu_wait.others_s(self.waited_before, after), 6)
        self.marks[landmark] = time.perf_counter()
        if landmark == "start":
            self.waited_before = cpu_wait.read()

    def phases(self) -> Dict[str, float]:
        """The case's wall time by what it was spent on (benchmarks/harness_overhead.py adds them up): `measure`
        (the host calibration, compiling where compiled, the cold call, warm-up and samples: measure_wall_s),
        `setup` (pytest's set-up: fixtures, resolving the function), `inputs` (the case's own code before bench),
        `harness` (in bench besides measuring: the output's digest, fallback, the eager reference),
        `checks` (the case's code after bench), `teardown` (pytest's teardown and reports)."""
        m = self.marks
        measured = (self.measurement.wall_s if self.measurement else 0.0) + (self.aot_s or 0.0)
        calibrate = m["calibrated"] - m["start"]
        call_end = m.get("called", m["end"])
        bench_in, bench_out = m.get("bench_in"), m.get("bench_out")
        phases = {"measure": calibrate + measured, "setup": m.get("call", call_end) - m["calibrated"]}
        if bench_in is None:  # no bench: the whole call is the case's own code
            phases.update(inputs=call_end - m.get("call", call_end), harness=0.0, checks=0.0)
        elif bench_out is None:  # compiling or a timed call raised: the rest of the call was measuring
            phases.update(inputs=bench_in - m["call"], harness=0.0, checks=0.0)
            phases["measure"] = calibrate + call_end - bench_in
        else:
            phases.update(inputs=bench_in - m["call"], harness=max(0.0, bench_out - bench_in - measured),
                          checks=call_end - bench_out)
        phases["teardown"] = m["end"] - call_end
        return {k: round(v, 6) for k, v in phases.items()}
