"""The host's CPU identity (harness host_cpu.py) and what the estimate makes of it (runner host_speed.slower_by): a
reference's walls are taken at this host's speed, the calibrations' ratio squared, only on the same kind of CPU,
told by its identity where both records have one and by its name in the records before it."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from portability_harness import host_cpu
from runner import host_speed

# A real /proc/cpuinfo, captured on a 2-core AMD EPYC guest (2026-12-02): two processor blocks, no AVX-512
AMD = (ROOT / "tests" / "data" / "cpuinfo" / "amd-epyc-2-core-2026-12-02.txt").read_text()


def test_the_identity_is_the_first_processors_vendor_family_model_stepping_and_kernel_extensions():
    got = host_cpu.parse(AMD)
    assert {k: got[k] for k in ("vendor", "family", "model", "stepping")} == \
        {"vendor": "AuthenticAMD", "family": "25", "model": "1", "stepping": "1"}
    # The extensions a framework's kernels are chosen by, of the ones it has; none of the others (sse2, aes, ...)
    assert got["features"] == ["avx", "avx2", "f16c", "fma"]
    # What changes from boot to boot or from one processor to the next is not part of it
    assert not {"microcode", "cpu MHz", "bogomips", "apicid"} & set(got)
    second = AMD.split("\n\n")[1]
    assert host_cpu.parse(second) == got  # every processor of the machine says the same


def test_an_unreadable_cpuinfo_is_no_identity_rather_than_a_wrong_one():
    assert host_cpu.parse("") is None
    assert host_cpu.parse("model name\t: AMD EPYC\n") is None  # a name alone does not tell two CPUs apart


@pytest.mark.skipif(not Path(host_cpu.CPUINFO).exists(), reason="no /proc/cpuinfo on this host")
def test_this_hosts_identity_is_read_from_its_cpuinfo():
    live = host_cpu.identity()
    assert live == host_cpu.parse(Path(host_cpu.CPUINFO).read_text()) and live["features"] is not None
    assert host_cpu.model() in Path(host_cpu.CPUINFO).read_text()


def _with_flags(text: str, *added: str) -> str:
    """The captured cpuinfo as a CPU of the same name and model with more extensions would give it (a host whose
    hypervisor passes AVX-512 through, or the next stepping's silicon)."""
    return "\n".join(line + " " + " ".join(added) if line.startswith("flags") else line for line in text.split("\n"))


def test_one_name_two_cpus_are_told_apart_by_their_identity(monkeypatch):
    amd = host_cpu.parse(AMD)
    wider = host_cpu.parse(_with_flags(AMD, "avx512f", "avx512_bf16"))
    assert wider["features"] == ["avx", "avx2", "avx512_bf16", "avx512f", "f16c", "fma"] and wider != amd
    monkeypatch.setattr(host_speed, "this_cpu", lambda: "AMD EPYC")
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: amd)
    # Same identity: the host shared, the calibrations' ratio squared
    assert host_speed.slower_by(300e-6, 200e-6, "AMD EPYC", amd) == pytest.approx(2.25)
    # The same name on another CPU: the ratio's square root
    assert host_speed.slower_by(300e-6, 200e-6, "AMD EPYC", wider) == pytest.approx(1.5 ** 0.5)
    # A reference whose records name their CPU only (before 2026-12-02): by its name, as before
    assert host_speed.scaled_by_name(300e-6, 200e-6, "AMD EPYC", None)
    assert not host_speed.scaled_by_name(300e-6, 200e-6, "Intel(R) Xeon(R) Processor", None)
    assert host_speed.slower_by(300e-6, 200e-6, "AMD EPYC", None) == pytest.approx(2.25)
    # A host that cannot read its identity (no /proc/cpuinfo) goes by the name too
    monkeypatch.setattr(host_speed, "this_cpu_identity", lambda: None)
    assert host_speed.scaled_by_name(300e-6, 200e-6, "AMD EPYC", wider)
