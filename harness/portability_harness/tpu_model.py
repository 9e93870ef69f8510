"""The TPU's execution model on this CPU: what a case run the way a TPU runs it forecasts for a TPU, and why.

A TPU runs a framework's eager program one op at a time through XLA: TensorFlow places each eager op on the TPU
device, where XLA compiles that op alone; JAX with jit off runs primitive by primitive; PyTorch/XLA records lazy
tensors and runs them when a value is read. The model cell (device kind `xla-cpu`, compiler eager) runs each case
that way on XLA's CPU backend. What the CPU backend cannot show comes from the TPU's own rules, per framework
(the adapters' `executed_ops` and `tpu_gaps`): an op or dtype the TPU has no kernel or lowering for; and, apart
from pass and fail, the TPU's arithmetic (the numerics probe below).

Each case of a model cell carries `tpu`: {verdict, reason, ops}, the verdict one of VERDICTS:
- `fails`: with the op and dtype the TPU lacks, or how the case failed on the XLA device (placement, lowering,
  its check), always with the reason;
- `not_applicable`: the case's input cannot exist on an XLA device (a strided view, a storage pointer): no verdict;
- `numerics_risk`: it ran, and its own check refuses an output moved by the error of the TPU's default arithmetic;
- `runs`.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from portability_harness.records.schema import first_line

VERDICTS = ("runs", "fails", "numerics_risk", "not_applicable")

# The TPU's default arithmetic, as a relative error of a float32 result (complex64 alike):
# - a float32 matmul or convolution at the default precision is one bfloat16 pass: each input rounded to bfloat16
#   (8 significant bits, unit roundoff 2**-9), products summed in float32, so each product is off by up to about
#   2**-8 of itself, and a sum of same-signed products by as much;
# - float32 transcendentals are the TPU's own approximations, accurate to a few units in the last place: 4 ulp of
#   float32 (2**-23 each) is 2**-21.
MATMUL_ERROR = 2.0 ** -8
TRANSCENDENTAL_ERROR = 2.0 ** -21
PROBED_DTYPES = ("float32", "complex64")  # the TPU computes these at reduced precision by default
MAX_OPS = 40  # ops listed in a record: enough to name every kind a case runs


def risk_error(ops: Iterable[Tuple[str, str]], matmuls: Iterable[str],
               transcendentals: Iterable[str]) -> Tuple[Optional[float], List[str]]:
    """The relative error the TPU's default arithmetic puts on the output of a call that executed `ops` ([op,
    dtype] pairs), with the ops that cause it; (None, []) when none of them is computed at reduced precision.
    `matmuls` and `transcendentals` are the framework's op names of each class (lower case)."""
    matmuls, transcendentals = {m.lower() for m in matmuls}, {t.lower() for t in transcendentals}
    error, causes = None, []
    for op, dtype in ops:
        if dtype not in PROBED_DTYPES:
            continue
        name = op.lower()
        if name in matmuls:
            error = max(error or 0.0, MATMUL_ERROR)
            causes.append(f"{op} ({dtype}: one bfloat16 pass)")
        elif name in transcendentals:
            error = max(error or 0.0, TRANSCENDENTAL_ERROR)
            causes.append(f"{op} ({dtype}: the TPU's approximation)")
    return error, sorted(set(causes))


def probe(run_case: Callable[[], None], relative: float, causes: Sequence[str],
          describe: Callable[[BaseException], str], settle: Callable[[], None]) -> Optional[str]:
    """Run the case again with its timed call's output moved by `relative` (the case's bench does it while the probe
    runs): what its check then says, when it refuses, as the numerics risk's reason; None when it accepts.

    `settle` (the device's sync) then runs what the probe left unrun, here and not in the next case's first sync:
    there it would be timed with that case, and on torch_xla a graph of that case failing to lower left it without
    data, which failed every later sync ("Check failed: tensor_data" after a conv2d case's probe)."""
    try:
        run_case()
    except ProbeVoid:
        return None  # the call itself did not run again: nothing is known of the check
    except Exception as e:  # the case's check, with its own tolerance, refused the output
        return (f"its check refuses an output {relative:.1e} (relative) from the exact one, the TPU's default "
                f"arithmetic for {', '.join(causes)}: {describe(e)}")
    finally:
        try:
            settle()
        except Exception:  # the probe's leftovers failing say nothing of the case, as ProbeVoid
            pass
    return None


class ProbeVoid(Exception):
    """The probe's call raised or was skipped: the probe says nothing (the case's verdict stands)."""


def forecast(outcome: str, category: Optional[str], message: Optional[str], gaps: Sequence[str],
             risk: Optional[str], ops: Sequence[Tuple[str, str]], stage: Optional[str] = None,
             fallback: Optional[Dict[str, Any]] = None, reason: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """A case's forecast for a TPU from its run in the model cell: its outcome there, the ops the TPU lacks
    (`gaps`: "op (dtype): why"), and `risk` (what its check refused in the numerics probe, or None); `reason`: what a
    failure was, where the adapter reads more than its message says (Adapter.failure_reason). None where the
    case says nothing of the TPU (skipped, missing from this version, interrupted, our own case's error)."""
    listed = [list(o) for o in sorted(set(map(tuple, ops)))][:MAX_OPS]
    if outcome in ("skipped", "missing_api", "interrupted") or category == "case_error":
        return None
    if outcome == "not_applicable":
        return {"verdict": "not_applicable", "reason": message or "the case's input cannot exist on an XLA device",
                "ops": listed}
    if gaps:
        return {"verdict": "fails", "reason": "no TPU kernel: " + "; ".join(gaps), "ops": listed}
    if outcome == "failed" and reason:
        return {"verdict": "fails", "reason": reason, "ops": listed}
    if outcome == "failed":
        where = f" at {stage}" if stage and stage not in ("execute", "setup") else ""
        return {"verdict": "fails", "reason": f"{category or 'failed'}{where}: {first_line(message) or 'no message'}",
                "ops": listed}
    if risk:
        return {"verdict": "numerics_risk", "reason": risk, "ops": listed}
    reason = None
    if outcome == "fallback" and fallback:
        reason = "runs, partly on the host: " + ", ".join(fallback.get("ops") or fallback.get("devices") or [])
    return {"verdict": "runs", "reason": reason, "ops": listed}


def function_forecast(verdicts: Sequence[str]) -> str:
    """A function's forecast over its cases' verdicts: `runs` (every applicable case runs), `fails` (none runs),
    `partial`, `numerics_risk` (every case runs, some only within the TPU's arithmetic), `not_applicable` (no
    case applies), or `unknown` (no case said anything)."""
    applicable = [v for v in verdicts if v != "not_applicable"]
    if not verdicts:
        return "unknown"
    if not applicable:
        return "not_applicable"
    failing = sum(v == "fails" for v in applicable)
    if failing == len(applicable):
        return "fails"
    if failing:
        return "partial"
    return "numerics_risk" if "numerics_risk" in applicable else "runs"


# --- in the case (plugin.bench): the ops of the timed call, and the probe's call ---

def executed(adapter: Any, state: Any, setup: Any, call: Any, fn: Any, args: Any, kwargs: Any) -> None:
    """The TPU model: the ops the timed call executes (one untimed call, a trace, or what its timed run recorded),
    those a TPU lacks, and the error its arithmetic would put on the output (what the numerics probe then tries on
    the case's check). The case's setup runs before an untimed call only: run with nothing after it, it would undo
    what the timed call left for the case's check (simple_save's export)."""
    def again() -> Any:
        setup()
        return call()

    state.ops = adapter.executed_ops(call if setup is None else again, fn, args, kwargs)
    state.gaps = adapter.tpu_gaps(state.ops)
    state.risk_error, state.risk_causes = risk_error(state.ops, adapter.matmul_ops,
                                                               adapter.transcendental_ops)


def probed_call(adapter: Any, state: Any, setup: Any, fn: Any, args: Any, kwargs: Any) -> Any:
    """bench in the numerics probe: one untimed call, its output moved by the TPU's arithmetic error."""
    try:
        if setup is not None:
            setup()
        out = fn(*args, **kwargs)
        adapter.sync(out)
    except Exception as e:
        raise ProbeVoid(f"{type(e).__name__}: {e}")
    moved = adapter.perturb(out, state.risk_error)
    if moved is None:
        raise ProbeVoid("the output holds no float32 or complex64 array to move")
    return moved
