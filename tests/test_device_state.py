"""The accelerator's state beside each timing (harness device_state.py) and the report's flags on it
(runner/report/accelerator_state.py), read against nvidia-ml-py's own constants (the reasons' bits are its public
API); on this machine, without a GPU, a cell reads nothing, imports nothing and writes no field."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pynvml
from conftest import FAULT_CASES, ROOT, config, harness
from portability_harness import device_state
from portability_harness.records import store

from runner.report import accelerator_state
from runner.report.load import Results

READER = device_state.Reader(pynvml, handle=None)  # window() reads nothing: the readings are given


def reading(sm: int, reasons: int = 0, power_ns: int = 0, thermal_ns: int = 0) -> dict:
    """A reading as Reader.read makes one, of an H200 (memory 3201 MHz)."""
    return {"sm_mhz": sm, "mem_mhz": 3201, "temp_c": 61, "power_w": 690.5, "reasons": reasons,
            "violation_ns": {"power": power_ns, "thermal": thermal_ns}}


def test_each_reason_is_named_from_the_packages_constants():
    names = device_state.reason_names(pynvml)
    assert names[pynvml.nvmlClocksThrottleReasonSwPowerCap] == "sw_power_cap"
    assert names[pynvml.nvmlClocksThrottleReasonHwThermalSlowdown] == "hw_thermal_slowdown"
    assert names[pynvml.nvmlClocksThrottleReasonGpuIdle] == "gpu_idle"
    # One name a bit, each a single bit (All and None are not reasons); an alias keeps one name.
    assert all(bit and bit & (bit - 1) == 0 for bit in names)
    assert pynvml.nvmlClocksThrottleReasonUserDefinedClocks == pynvml.nvmlClocksThrottleReasonApplicationsClocksSetting
    assert names[pynvml.nvmlClocksThrottleReasonApplicationsClocksSetting] == "applications_clocks_setting"
    mask = pynvml.nvmlClocksThrottleReasonSwPowerCap | pynvml.nvmlClocksThrottleReasonGpuIdle
    assert device_state.reasons(mask, names) == ["gpu_idle", "sw_power_cap"]
    assert device_state.reasons(pynvml.nvmlClocksThrottleReasonNone, names) == []


def test_a_power_capped_measurement_is_flagged_throttled_at_changing_clocks():
    """The H200's 8192 float16 matmul run for a minute: the SM clock falls from 1980 to 1455 MHz at the 700 W cap."""
    capped = READER.window(reading(1980, pynvml.nvmlClocksThrottleReasonNone),
                           reading(1455, pynvml.nvmlClocksThrottleReasonSwPowerCap, power_ns=int(0.8e9)))
    assert capped["sm_mhz"] == [1980, 1455] and capped["reasons"] == ["sw_power_cap"]
    assert capped["held_s"] == {"power": 0.8, "thermal": 0.0}
    assert accelerator_state.flags(capped) == ["throttled: sw_power_cap, power policy 0.8 s",
                                               "clocks changing: SM 1980 to 1455 MHz"]


def test_a_steady_card_at_its_clocks_is_not_flagged_and_an_idle_start_is_no_throttle():
    steady = READER.window(reading(1980, pynvml.nvmlClocksThrottleReasonGpuIdle, power_ns=5, thermal_ns=7),
                           reading(1980, pynvml.nvmlClocksThrottleReasonNone, power_ns=5, thermal_ns=7))
    assert steady["reasons"] == ["gpu_idle"] and steady["held_s"] == {"power": 0.0, "thermal": 0.0}
    assert accelerator_state.flags(steady) == []
    # Queries a GPU does not answer leave their fields out; the rest still reads.
    partial = READER.window({**reading(1980), "reasons": None, "violation_ns": {"power": None, "thermal": None}},
                            {**reading(1965), "reasons": None, "violation_ns": {"power": None, "thermal": None}})
    assert "reasons" not in partial and "held_s" not in partial and partial["sm_mhz"] == [1980, 1965]
    assert accelerator_state.flags(partial) == []  # 15 MHz: one clock step, not a change


def test_the_report_counts_and_lists_the_flagged_cases_per_setup():
    states = [READER.window(reading(1980), reading(1980)),
              READER.window(reading(1980), reading(1410, pynvml.nvmlClocksThrottleReasonSwPowerCap)), None]
    cases = pd.DataFrame({"framework": "torch", "target": "cuda", "function": ["torch.matmul", "torch.mm", "torch.add"],
                          "case_id": ["a", "b", "c"], "warm_median_s": [1.49e-3, 1.70e-3, 1e-5],
                          "device_state": states})
    section = accelerator_state.section(Results([], cases, pd.DataFrame()))
    assert section.summary == "2 cases carry the GPU's state; 1 were measured while throttled and 1 at changing clocks."
    per_setup, listing = section.blocks[1].frame, section.blocks[2].frame
    assert per_setup.loc[0, "SM MHz"] == "1410-1980" and per_setup.loc[0, "cases read"] == 2
    assert list(listing["case"]) == ["b"]
    empty = accelerator_state.section(Results([], cases.assign(device_state=None), pd.DataFrame()))
    assert empty.blocks == [] and "nvidia-ml-py" in empty.summary


def test_without_a_gpu_nothing_is_read_or_imported():
    cpu = config(ROOT / "x.jsonl", "jax")
    code = ("import json, sys; from portability_harness import device_state; from portability_harness.protocol import "
            f"Config; cfg = Config.from_dict(json.loads({cpu.to_json()!r})); "
            "print(device_state.Reader.for_config(cfg), 'pynvml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None", "False"]
    # A cuda cell on a machine with no NVIDIA driver: NVML does not start, and the reader is None, not an error.
    assert device_state.Reader.for_config(config(ROOT / "x.jsonl", "torch", device="cuda")) is None


def test_a_cpu_run_records_no_device_state(venv_for, tmp_path):
    venv = venv_for("torch-cpu")
    out = tmp_path / "steady.jsonl"
    code, _ = harness(venv, config(out, "torch", FAULT_CASES, cases=[str(FAULT_CASES / "torch" / "test_steady.py")],
                                   quick=True))
    assert code == 0
    cases = store.read(str(out)).cases
    assert len(cases) == 12 and all(c["warm_count"] and "device_state" not in c for c in cases)
