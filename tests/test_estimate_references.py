"""Which reference run a setup is expected from (runner/estimate.py): the newest of the setup's, and of those the
ones made on this host's CPU identity first, on the real torch-xla-cpu records of 2026-11-26 made into runs of their
own."""
from __future__ import annotations

import io
import json
import re
import statistics
import tarfile

import pytest
from conftest import ROOT
from portability_harness import host_cpu
from test_estimate import TORCH_XLA, xla_reference

from runner import estimate, host_speed
from runner.archive import ARCHIVE


def _archive(into, records):
    """`records` (torch-xla-cpu's, altered by a test) as the reference archive of a run of their own in `into`."""
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    info = tarfile.TarInfo("torch-xla-cpu-current.jsonl")
    info.size = len(data)
    into.mkdir(parents=True)
    with tarfile.open(into / ARCHIVE, "w:xz") as tar:
        tar.addfile(info, io.BytesIO(data))


def test_a_reference_of_this_hosts_cpu_identity_comes_before_a_newer_one_of_another(tmp_path, monkeypatch):
    """The real torch-xla-cpu records of 2026-11-26 as two reference runs: an older one made on this host's CPU
    identity (its walls scaled by the calibrations' ratio, squared) and a newer one of another identity (by the
    ratio's square root). The older is the one expected from, until this host's identity is neither's; then the
    newest, as before."""
    _, records = xla_reference(tmp_path)
    assert records[0]["record"] == "header"
    cpuinfo = (ROOT / "tests" / "data" / "cpuinfo")
    amd = host_cpu.parse((cpuinfo / "amd-epyc-2-core-2026-12-02.txt").read_text())
    intel = host_cpu.parse((cpuinfo / "intel-xeon-2-core-2026-12-02.txt").read_text())
    results = tmp_path / "two" / "results"
    _archive(results / "reference" / "older", [dict(records[0], started_at="2026-11-26T10:00:00", host_cpu=amd)]
             + records[1:])
    _archive(results / "reference" / "newer", [dict(records[0], started_at="2026-12-02T10:00:00", host_cpu=intel)]
             + records[1:])
    cases = [r for r in records if r["record"] == "case"]
    calibration = statistics.median(c["calibration_s"] for c in cases if c.get("calibration_s"))
    functions = sorted({c["function"] for c in cases})
    want = estimate.setup(**TORCH_XLA, later=False)
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: amd)
    on_amd = estimate.History(results).expect(want, functions, 2 * calibration)
    assert on_amd.source == "reference" and on_amd.scale == pytest.approx(4)  # the older, of this identity
    assert not on_amd.by_name and "by its name only" not in estimate.describe([on_amd])
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: intel)
    assert estimate.History(results).expect(want, functions, 2 * calibration).scale == pytest.approx(4)  # the newer
    other = dict(amd, model="17")  # a third kind of CPU: neither reference's, the newest by the square root
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: other)
    elsewhere = estimate.History(results).expect(want, functions, 2 * calibration)
    assert elsewhere.scale == pytest.approx(2 ** 0.5) and elsewhere.seconds == pytest.approx(on_amd.seconds / 2 ** 1.5)


def test_the_newest_reference_run_of_a_setup_predicts_it(tmp_path):
    """The curated cases change between reference runs: of two runs of one setup, the newer one is the estimate."""
    results, records = xla_reference(tmp_path)
    header = next(r for r in records if r["record"] == "header")
    # The same run again, dated a day later, whose every case took twice as long (its wall too).
    later = []
    for r in records:
        r = dict(r)
        if r["record"] == "header":
            r["started_at"] = "2026-11-28" + header["started_at"][10:]  # two days later: another run of that name
        elif r["record"] == "case":
            r["duration_s"] = 2 * (r["duration_s"] or 0.0)
        elif r["record"] == "footer":
            r["supervisor_ended_at"] += r["supervisor_ended_at"] - r["supervisor_started_at"]
        later.append(r)
    _archive(results / "reference" / "later", later)
    footer = records[-1]
    wall = footer["supervisor_ended_at"] - footer["supervisor_started_at"]
    cases = [r for r in records if r["record"] == "case"]
    calibration = statistics.median(c["calibration_s"] for c in cases if c.get("calibration_s"))
    functions = sorted({c["function"] for c in cases})
    got = estimate.History(results, tmp_path / "estimates.json").expect(estimate.setup(**TORCH_XLA, later=False),
                                                                        functions, calibration)
    assert got.source == "reference" and got.seconds == pytest.approx(2 * wall, rel=0.01)


def test_a_reference_of_this_cpus_name_but_no_identity_is_scaled_and_the_dry_run_says_by_its_name_only(
        tmp_path, monkeypatch):
    """Two real 2-core guests both named "AMD EPYC", two models of one family (model 1 without AVX-512, model 17
    with it): a reference recording no identity (every one made before 2026-12-02) is scaled as of this host's CPU,
    by the name the two share, and the dry run's total says so; with both identities recorded, a reference of the
    other model is taken as it ran."""
    _, records = xla_reference(tmp_path)
    cpuinfo = (ROOT / "tests" / "data" / "cpuinfo")
    model_1 = host_cpu.parse((cpuinfo / "amd-epyc-2-core-2026-12-02.txt").read_text())
    model_17 = host_cpu.parse((cpuinfo / "amd-epyc-avx512-2-core-2026-12-03.txt").read_text())
    assert model_1["model"] != model_17["model"] and "avx512f" in model_17["features"]
    names = {re.search(r"^model name\s*: (.*)$", (cpuinfo / f).read_text(), re.M).group(1)
             for f in ("amd-epyc-2-core-2026-12-02.txt", "amd-epyc-avx512-2-core-2026-12-03.txt")}
    assert names == {"AMD EPYC"}
    name = names.pop()
    header = dict(records[0], device_model=name)
    header.pop("host_cpu", None)
    results = tmp_path / "named" / "results"
    _archive(results / "reference" / "named", [header] + records[1:])
    cases = [r for r in records if r["record"] == "case"]
    calibration = statistics.median(c["calibration_s"] for c in cases if c.get("calibration_s"))
    want = estimate.setup(**TORCH_XLA, later=False)
    functions = sorted({c["function"] for c in cases})
    monkeypatch.setattr(host_speed, "this_cpu", lambda: name)
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: model_17)
    named = estimate.History(results).expect(want, functions, 2 * calibration)
    assert named.by_name and named.scale == pytest.approx(4)
    assert "squared on the same kind of CPU, its square root on another; the same kind known by its name only" in \
        estimate.describe([named])
    _archive(results / "reference" / "identified", [dict(header, host_cpu=model_1, started_at="2026-12-03")]
             + records[1:])
    identified = estimate.History(results).expect(want, functions, 2 * calibration)
    assert not identified.by_name and identified.scale == pytest.approx(2 ** 0.5)
