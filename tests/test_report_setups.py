"""How the report names its setups: a repeat is a case measured again, not a results file, and a device model is
named once (real CPU records; the model renamed on copies where a second GPU model is needed)."""
from __future__ import annotations

import json

import pytest
from conftest import copy_with_header

from runner.report import latency_tables, load, overview, precision_tables, tables

pytestmark = pytest.mark.slow


def test_one_repeat_split_over_two_files_by_function_is_one_repeat(runs, tmp_path):
    """A cell measured by two workers, each on half of the functions (a lent machine's lanes), is one repeat in two
    files: the setups table, the set-up line and the spread say 1, and no repeat agreement is made of it."""
    lines = [json.loads(l) for path in sorted((runs / "jax-steady").glob("*.jsonl"))
             for l in path.read_text().splitlines() if l.strip()]
    header = next(l for l in lines if l["record"] == "header")
    cases = [l for l in lines if l["record"] == "case"]
    names = sorted({c["function"] for c in cases})
    assert len(names) >= 2, "the jax run measures two functions or more"
    for part, chosen in (("a", names[: len(names) // 2]), ("b", names[len(names) // 2:])):
        kept = [c for c in cases if c["function"] in chosen]
        (tmp_path / f"jax-cpu-{part}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [header, *kept]))
    r = load.load([tmp_path])
    assert r.cases["file"].nunique() == 2
    assert tables.setups(r)["repeats"].tolist() == [1]
    assert latency_tables.spread(r)["repeats"].tolist() == [1]
    assert precision_tables.agreement(r).empty
    assert "1 repeat per setup" in overview.setup_line(r)
    # The same case in two files is two repeats (torch-current ran with --repeats 2).
    both = load.load([runs / "torch-current"])
    assert tables.setups(both)["repeats"].tolist() == [2]
    # Setups measured a different number of times (the matrix's torch-xla-cpu cell runs once) say so.
    mixed = load.load([runs / "torch-current", runs / "jax-steady"])
    assert "1 to 2 repeats per setup" in overview.setup_line(mixed)


def test_two_models_of_one_device_are_named_once_each_in_the_glance_grid(runs, tmp_path):
    """The same cell on two models of a device (an H100 and an H200 here; the records' model renamed on copies of a
    CPU run): each line of the grid names its model in one pair of parentheses."""
    for model in ("Model A", "Model B"):
        copy_with_header(runs / "jax-steady", tmp_path / model.replace(" ", "-"), device_model=model)
    r = load.load([tmp_path / "Model-A", tmp_path / "Model-B"])
    cell = overview.grid_frame(r).set_index("framework").loc["jax", "cpu"].split("\n")
    assert [l[l.index("("):] for l in cell if "functions pass" in l] == ["(Model A)", "(Model B)"]
