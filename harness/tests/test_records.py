"""The JSON Lines store: whole records, a torn last line detected and dropped, damage refused."""
from __future__ import annotations

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


def test_damage_before_the_last_line_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"record": "header"}\nnot json\n{"record": "footer"}\n')
    with pytest.raises(store.CorruptResults, match="line 2"):
        store.read(str(path))


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
