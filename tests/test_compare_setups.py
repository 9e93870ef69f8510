"""`runner compare`'s setups: what it says of the machines two runs were measured on."""
from __future__ import annotations

import pytest

from runner.report import compare, load

pytestmark = pytest.mark.slow


def test_compare_names_another_cpu_of_the_same_name(runs):
    """Two CPUs of one name (family and model apart) are a changed setup, said as such; one run without the CPU's
    identity (records older than it) is not taken for a change."""
    r1 = sorted((runs / "torch-current").glob("*.jsonl"))[0]
    a, b = load.load([r1], samples=True), load.load([r1], samples=True)
    cpu = next(iter(a.headers.values()))["host_cpu"]
    assert compare.compare(a, b).setups.iloc[0]["changed"] == "nothing"
    assert f"family {cpu['family']} model {cpu['model']}" in compare.compare(a, b).setups.iloc[0]["a"]
    for header in b.headers.values():
        header["host_cpu"] = dict(cpu, model=str(int(cpu["model"]) + 1))
    row = compare.compare(a, b).setups.iloc[0]
    assert row["changed"] == "cpu" and f"model {int(cpu['model']) + 1})" in row["b"]
    for header in b.headers.values():
        header.pop("host_cpu")
    assert compare.compare(a, b).setups.iloc[0]["changed"] == "nothing"
