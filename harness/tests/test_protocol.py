"""The host <-> harness protocol: a config crosses as one JSON file, events in one vocabulary, named exit codes."""
from __future__ import annotations

import json

import pytest

from portability_harness.protocol import (EVENTS, CaseEnd, Config, ConfigError, Error, Exit, Finished, Notice, Plan,
                                          Restart, Start, decode)


def test_a_config_round_trips_through_its_file(tmp_path):
    cfg = Config(framework="jax", device="cpu", out="/r/jax.jsonl", curated_root="/c", functions=["jax.numpy.*"],
                 quick=True, timeout_s=30.0, repeat=2, git_commit="abc")
    assert Config.read(cfg.write(str(tmp_path / "c.json"))) == cfg
    assert cfg.log_path == "/r/jax.log"
    assert cfg.case_paths() == ["/c/jax"] and cfg.annotations_path() == "/c/annotations.json"


@pytest.mark.parametrize("change, words", [
    ({"framework": "mxnet"}, "unknown framework 'mxnet'"),
    ({"device": "gpu"}, "unknown device kind 'gpu'"),
    ({"mode": "fast"}, "unknown mode 'fast'"),
    ({"sampling": {}}, "unknown config keys sampling"),
])
def test_a_bad_config_is_one_line(tmp_path, change, words):
    data = {"framework": "jax", "device": "cpu", "out": "o.jsonl", "curated_root": "c", **change}
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=words):
        Config.read(str(tmp_path / "c.json"))


def test_a_missing_or_damaged_config_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        Config.read(str(tmp_path / "none.json"))
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="cannot read"):
        Config.read(str(tmp_path / "bad.json"))
    (tmp_path / "partial.json").write_text('{"framework": "jax"}')
    with pytest.raises(ConfigError, match="incomplete"):
        Config.read(str(tmp_path / "partial.json"))


def test_every_event_round_trips_and_anything_else_is_not_an_event():
    events = [Plan(pending=[["m::a", "f"]], done=[]), Start(case_id="m::a", function="f"),
              CaseEnd(case_id="m::a", function="f", outcome="failed", category="type"),
              Restart(reason="the worker died with SIGSEGV", restarts=1), Notice(message="torn line dropped"),
              Error(reason="device_unavailable", message="no GPU", code=Exit.DEVICE_UNAVAILABLE),
              Finished(counts={"passed": 3})]
    assert {e.kind for e in events} == set(EVENTS)  # one vocabulary, each kind covered
    for e in events:
        line = e.encode()
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert decode(line) == e
    for other in (b"", b"not json", b"[1, 2]", b'{"event": "unknown"}', b'{"no": "event"}', b'{"event": "pl'):
        assert decode(other) is None


def test_exit_codes_are_distinct():
    assert len({int(e) for e in Exit}) == len(Exit) and Exit.OK == 0


def test_the_worker_leaves_one_cpu_to_the_supervisor():
    cfg = Config(framework="jax", device="cpu", out="o", curated_root="c")
    assert cfg.worker_cpus([0, 1, 2, 3]) == [1, 2, 3] and cfg.worker_cpus([5]) == [5]
    assert Config(framework="jax", device="cpu", out="o", curated_root="c", cpus="all").worker_cpus([0, 1]) == [0, 1]
    assert Config(framework="jax", device="cpu", out="o", curated_root="c", cpus="2").worker_cpus([0, 1, 2]) == [1, 2]
