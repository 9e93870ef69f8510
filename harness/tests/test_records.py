"""The JSON Lines store: whole records, a torn last line detected and dropped, damage refused."""
from __future__ import annotations

import json
import os

import pytest

from portability_harness.records import schema, store


def test_append_read_and_torn_last_line(tmp_path):
    path = str(tmp_path / "r.jsonl")
    with store.Writer(path) as w:
        w.append(schema.header(framework="jax"))
        w.append(schema.case(function="f", module="m", case_id="a", params={}, outcome="passed"))
    with open(path, "a") as f:
        f.write('{"record": "case", "fun')
    contents = store.read(path)
    assert [r["record"] for r in contents.records] == ["header", "case"]
    assert contents.torn == '{"record": "case", "fun'
    assert store.repair(path) == '{"record": "case", "fun'
    assert store.read(path).torn is None
    with store.Writer(path) as w:
        w.append(schema.case(function="f", module="m", case_id="b", params={}, outcome="failed", category="type"))
    assert [c["case_id"] for c in store.read(path).cases] == ["a", "b"]


def test_a_damaged_line_in_the_middle_is_left_out_and_said(tmp_path):
    path = tmp_path / "r.jsonl"
    good = [schema.case(function="f", module="m", case_id=f"c{i}", params={}, outcome="passed") for i in range(710)]
    lines = [json.dumps(schema.header(framework="jax"))] + [json.dumps(c) for c in good]
    lines.insert(300, "garbage {")
    path.write_text("\n".join(lines + [json.dumps(schema.footer({"passed": 710}))]) + "\n")
    contents = store.read(str(path))
    assert len(contents.cases) == 710 and contents.header and contents.footer  # every good record kept
    assert contents.damaged == [301] and contents.torn is None
    assert contents.problems() == ["1 damaged line left out (line 301)"]


def test_records_written_twice_are_read_once_and_said(tmp_path):
    path = str(tmp_path / "r.jsonl")
    with store.Writer(path) as w:
        for _ in range(2):  # two runs appending to one file
            w.append(schema.header(framework="jax"))
            for case_id in ("a", "b"):
                w.append(schema.case(function="f", module="m", case_id=case_id, params={}, outcome="passed"))
    contents = store.read(path)
    assert [c["case_id"] for c in contents.cases] == ["a", "b"]
    assert sum(r["record"] == "header" for r in contents.records) == 1
    assert contents.duplicates == ["header", "a", "b"] and "3 duplicate records left out" in contents.problems()[0]


def test_an_interrupted_case_gives_way_to_its_rerun(tmp_path):
    path = str(tmp_path / "r.jsonl")
    with store.Writer(path) as w:
        w.append(schema.header(framework="jax"))
        w.append(schema.case(function="f", module="m", case_id="a", params={}, outcome="passed"))
        w.append(schema.case(function="f", module="m", case_id="b", params={}, outcome="interrupted"))
    assert store.read(path).done == {"a"}  # a resumed run runs b again
    with store.Writer(path) as w:
        w.append(schema.case(function="f", module="m", case_id="b", params={}, outcome="failed", category="type"))
    contents = store.read(path)
    assert [(c["case_id"], c["outcome"]) for c in contents.cases] == [("a", "passed"), ("b", "failed")]
    assert contents.done == {"a", "b"} and not contents.duplicates


def test_a_file_of_nothing_but_damage_cannot_be_resumed(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("not json\nnor this\n")
    with pytest.raises(store.CorruptResults, match="no readable record"):
        store.repair(str(path))


def test_the_lock_refuses_a_second_writer(tmp_path):
    path = str(tmp_path / "r.jsonl")
    fd = store.lock(path)
    with pytest.raises(store.Locked, match="another run"):
        store.lock(path)
    os.close(fd)  # released with the descriptor, as when the process dies
    os.close(store.lock(path))


def test_complete_last_record_without_newline_is_kept(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"record": "header"}\n{"record": "footer", "counts": {}}')
    assert len(store.read(str(path)).records) == 2
    store.repair(str(path))
    assert path.read_text().endswith("}\n")


def test_resume_needs_the_same_framework_version_device_mode_and_profile():
    a = schema.header(framework="jax", framework_version="0.10.2", device="cpu", mode="steady", profile="current")
    assert schema.incompatibility(a, dict(a, started_at="later", repeat=2)) is None
    why = schema.incompatibility(a, dict(a, framework_version="0.4.8", mode="paper"))
    assert "framework_version='0.10.2' not '0.4.8'" in why and "mode='steady' not 'paper'" in why


def test_older_schemas_read_in_the_current_shape(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text('{"record": "header", "schema": 1, "framework": "jax"}\n'
                    '{"record": "case", "function": "f", "case_id": "a", "outcome": "passed"}\n')
    header = store.read(str(path)).header
    assert header["schema"] == 1 and "catalog" in header and header["catalog"] is None
    current = schema.header(framework="jax", catalog={"f": {"decile": 10}})
    assert schema.migrate(current) is current  # the current schema passes through untouched


def test_holds_results(tmp_path):
    path = tmp_path / "r.jsonl"
    assert not store.holds_results(str(path))
    path.write_text("")
    assert not store.holds_results(str(path))
    path.write_text('{"record": "header"}\n')
    assert store.holds_results(str(path))


def test_cases_before_schema_6_read_as_forward_and_new_ones_say_their_pass(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text('{"record": "header", "schema": 5, "framework": "jax"}\n'
                    '{"record": "case", "function": "f", "case_id": "a", "outcome": "passed", "compiler": "eager"}\n')
    (old,) = store.read(str(path)).cases
    assert old["pass"] == "forward"
    new = schema.case(function="f", module="m", case_id="b", params={}, outcome="passed", layout="sparse_coo",
                      **{"pass": "backward"})
    assert (new["pass"], new["layout"]) == ("backward", "sparse_coo")
    assert schema.case(function="f", module="m", case_id="c", params={}, outcome="failed")["pass"] == "forward"
