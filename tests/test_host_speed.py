"""This host's speed now (runner/host_speed.py): what a reference run's walls are scaled by."""
from __future__ import annotations

import importlib.util
import shutil

import pytest
from conftest import ROOT
from test_estimate import TORCH_XLA

from runner import estimate, host_speed
from runner.archive import ARCHIVE


def test_the_calibration_now_is_the_host_undisturbed_over_seconds(monkeypatch, tmp_path):
    """A burst at a dry run's start (2026-11-28: a run's first second timed the calibration 1.45 times slower, and
    every cell was expected that much longer) is a share of calibration_now's samples, not all of them, and the host
    undisturbed is what it measures."""
    from portability_harness import timing

    calls = []

    # The harness's calibration in a burst for its first 1.5 s, then in every third sample: most of them slow (their
    # median is the burst), a third of them the host undisturbed, within a few percent of each other
    def bursty() -> float:
        calls.append(None)
        if len(calls) <= 1.5 / host_speed.NOW_SPACING_S or len(calls) % 3 == 0:
            return 340e-6
        return 245e-6 if len(calls) % 3 == 1 else 255e-6

    monkeypatch.setattr(timing, "calibrate", bursty)
    # Timed only where a reference run is to be scaled, and once: no history at all asks nothing of it
    lazy = host_speed.calibration_when_needed()
    assert estimate.History(tmp_path).expect(estimate.setup(**TORCH_XLA, later=False), None, lazy).source == "default"
    assert not calls
    assert lazy() == pytest.approx(250e-6, rel=0.03) and lazy() == lazy()
    assert len(calls) * host_speed.NOW_SPACING_S >= 2.5  # spread over seconds (a burst can last two), and timed once
    assert len(calls) == host_speed.NOW_SAMPLES


REFERENCE = ROOT / "results" / "reference"
# benchmarks/cross_cpu_scaling.py, which expects kept runs from each other's references (not a package: by its path)
_spec = importlib.util.spec_from_file_location("cross_cpu_scaling", ROOT / "benchmarks" / "cross_cpu_scaling.py")
CROSS_CPU = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CROSS_CPU)


def test_on_the_references_cpu_a_slower_calibration_is_expected_squared(monkeypatch, tmp_path):
    """A reference of this host's CPU model scaled by its calibration's ratio squared (the host shared with other
    work: the cases slow more than the loop does), one of another CPU model as it ran. Squared is what the
    real runs say: the 2026-11-27 run (a day of bursts) expected from the calm 2026-11-28 one, at each repeat's own
    calibration, comes within 25 % for more of its cells squared than as they ran."""
    bursty = estimate.summarize_archive(REFERENCE / "matrix-cpu-2026-11-27" / ARCHIVE)
    cpu = {s["cpu"] for s in bursty}
    assert len(cpu) == 1 and None not in cpu  # the CPU model is kept for the CPU cells, one machine's
    (tmp_path / "results" / "reference" / "calm").mkdir(parents=True)
    shutil.copy(REFERENCE / "matrix-cpu-2026-11-28" / ARCHIVE, tmp_path / "results" / "reference" / "calm" / ARCHIVE)
    history = estimate.History(tmp_path / "results", tmp_path / "estimates.json")
    squared, as_ran = _cells_within(monkeypatch, history, bursty, cpu.pop()), \
        _cells_within(monkeypatch, history, bursty, "another CPU")
    assert squared[0] > as_ran[0] and squared[0] >= 0.8 * squared[1], (squared, as_ran)
    # The factor itself: 1.4 times the calibration is 1.96 times the wall on the same CPU model, 1.18 on another
    monkeypatch.setattr(host_speed, "this_cpu", lambda: "Some CPU")
    assert host_speed.slower_by(350e-6, 250e-6, "Some CPU") == pytest.approx(1.96)
    assert host_speed.slower_by(350e-6, 250e-6, "Another CPU") == pytest.approx(1.4 ** 0.5)
    assert host_speed.slower_by(350e-6, None, "Some CPU") == host_speed.slower_by(350e-6, 250e-6, None) == 1.0


def _cells_within(monkeypatch, history: estimate.History, repeats: list[dict], this_cpu: str) -> tuple[int, int]:
    """The benchmark's cells_within on a host whose CPU model is `this_cpu`."""
    monkeypatch.setattr(host_speed, "this_cpu", lambda: this_cpu)
    return CROSS_CPU.cells_within(repeats, history)


AMD = REFERENCE / "matrix-cpu-eager-2026-12-01" / ARCHIVE
ZEN5 = ROOT / "tests" / "data" / "amd-epyc-zen5-eager-2026-12-04" / ARCHIVE


def test_a_reference_of_another_cpu_model_is_scaled_by_the_ratios_square_root():
    """The calibration loop's speed carries only partly from one CPU model to another: four models' eager matrices
    (two references, two runs kept as test data), each expected from each other's by the runner's rule
    (benchmarks/cross_cpu_scaling.py), come within 25 % for more cells with the ratio's square root on another
    model than taken as they ran, by the ratio itself, or squared."""
    exponents = [0.0, host_speed.OTHER_CPU_EXPONENT, 1.0, 2.0]
    assert exponents[1] == 0.5
    found = CROSS_CPU.pairs(exponents)
    assert len(found) == 12 and all(of >= 5 for counts in found.values() for _, of in counts)
    totals = [sum(counts[i][0] for counts in found.values()) for i in range(len(exponents))]
    assert totals[1] > max(totals[0], totals[2], totals[3]), totals
    # The Zen 5 guest from the AMD reference of its CPU's name: every cell within 25 %
    assert found["amd-epyc-zen5-2026-12-04", "amd-epyc-2026-12-01"][1] == (6, 6)


def test_a_host_far_quicker_than_a_reference_of_its_cpus_name_is_another_cpu(monkeypatch, tmp_path):
    """A Zen 5 guest (family 26) names its CPU "AMD EPYC" as the 2026-12-01 reference's host did, which records no
    identity: matched by that name, it was scaled as the reference's kind at 0.59-0.68 of its calibration, squared,
    and every cell came out about half its wall. Timing the loop that much quicker than its namesake, it is taken for
    another CPU, and more of its cells come within 25 %. Quicker by an identity that matches, or slower by a name,
    the ratio is still squared."""
    repeats = estimate.summarize_archive(ZEN5)
    assert {s["cpu"] for s in repeats} == {"AMD EPYC"}
    (tmp_path / "results" / "reference" / "kept").mkdir(parents=True)
    shutil.copy(AMD, tmp_path / "results" / "reference" / "kept" / ARCHIVE)
    history = estimate.History(tmp_path / "results", tmp_path / "estimates.json")
    assert {s["cpu"] for s in history.reference} == {"AMD EPYC"} and not any(s.get("cpu_identity")
                                                                             for s in history.reference)
    monkeypatch.setattr(host_speed, "this_cpu", lambda: "AMD EPYC")
    for s in repeats:
        got = history.expect_again(s, s["calibration_s"])
        reference = next(r for r in history.reference if r["key"]["image"] == s["key"]["image"])
        ratio = s["calibration_s"] / reference["calibration_s"]
        assert ratio < host_speed.NAME_ONLY_QUICKEST and not got.by_name
        assert got.scale == pytest.approx(ratio ** host_speed.OTHER_CPU_EXPONENT, rel=0.05)
    another = _cells_within(monkeypatch, history, repeats, "AMD EPYC")
    monkeypatch.setattr(host_speed, "NAME_ONLY_QUICKEST", 0.0)  # the name taken for the model, as before
    squared = _cells_within(monkeypatch, history, repeats, "AMD EPYC")
    assert another[1] == squared[1] == 6 and another[0] > squared[0], (another, squared)
    monkeypatch.undo()
    identity = {"vendor": "AuthenticAMD", "family": "25", "model": "17"}
    monkeypatch.setattr(host_speed, "this_cpu", lambda: "AMD EPYC")
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: identity)
    assert host_speed.slower_by(150e-6, 220e-6, "AMD EPYC", identity) == pytest.approx((150 / 220) ** 2)
    assert host_speed.slower_by(150e-6, 220e-6, "AMD EPYC") == pytest.approx((150 / 220) ** 0.5)
    assert host_speed.slower_by(300e-6, 220e-6, "AMD EPYC") == pytest.approx((300 / 220) ** 2)
