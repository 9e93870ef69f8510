"""The JSON Lines store: whole records, a torn last line detected and dropped, damage refused."""
from __future__ import annotations

import pytest

from runner.results import record, store


def test_append_read_and_torn_last_line(tmp_path):
    path = str(tmp_path / "r.jsonl")
    with store.Writer(path) as w:
        w.append(record.header(framework="jax"))
        w.append(record.case(function="f", module="m", case_id="a", params={}, outcome="passed"))
    with open(path, "a") as f:
        f.write('{"record": "case", "fun')
    contents = store.read(path)
    assert [r["record"] for r in contents.records] == ["header", "case"]
    assert contents.torn == '{"record": "case", "fun'
    assert store.repair(path) == '{"record": "case", "fun'
    assert store.read(path).torn is None
    with store.Writer(path) as w:
        w.append(record.case(function="f", module="m", case_id="b", params={}, outcome="failed", category="type"))
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
