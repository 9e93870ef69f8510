"""A lane that has begun every cell of its own takes a verdict cell another lane has not begun (runner.lanes.claimable,
runner.scheduler.Scheduler.claim): the lanes are shared out by expected walls, and a lane that ends sooner than
expected would otherwise sit idle beside queued verdict work."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, processes_naming, small_matrix, wait_for

from runner import arrangement, lanes, matrix
from runner.plan import Options, plan
from runner.project import Project


def test_a_lane_done_with_its_own_cells_takes_the_verdict_cell_another_lane_would_begin_last():
    """The eager matrix as 2026-12-07's plan laid it out: lane 0 the timing cells, then the TensorFlow and JAX model
    cells; lane 1 torch-xla-cpu, which ended 5 minutes before lane 0. Lane 1, done, takes lane 0's last model cell
    not begun, never a timing cell; lane 0, done, takes lane 1's verdict cells not begun, never a compiled cell's
    later repeats (they wait for their first); with several lanes to take from, the one with the most left."""
    from runner.estimate import Expected
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = {c.name: c for c in plan(project, Options(backend="local", compilers=("eager",))) if c.runnable}
    by_lane = [[cells[n] for n in ("torch-cpu", "tf-cpu", "jax-cpu", "tf-xla-cpu", "jax-xla-cpu")],
               [cells["torch-xla-cpu"]]]
    walls = {c.part_key: [Expected(60.0, "default")] * len(c.own_repeats) for lane in by_lane for c in lane}
    begun = {c.part_key for c in by_lane[0][:3] + by_lane[1]}
    assert lanes.claimable(by_lane, begun, 1, walls).name == "jax-xla-cpu"
    assert lanes.claimable(by_lane, begun | {cells["jax-xla-cpu"].part_key}, 1, walls).name == "tf-xla-cpu"
    assert lanes.claimable(by_lane, begun | {c.part_key for c in by_lane[0]}, 1, walls) is None
    assert lanes.claimable(by_lane, {c.part_key for c in by_lane[0][:2]}, 1, walls).name == "jax-xla-cpu"
    # Lane 0 done: lane 1's verdict cells not begun, the last first; never the later repeats of a compiled cell.
    every = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    main, side = lanes.assign(every, 2, lanes.movable(every, 2))
    walls = {c.part_key: [Expected(60.0, "default")] * len(c.own_repeats) for c in main + side}
    done = {c.part_key for c in main}
    verdicts = [c for c in side if lanes.verdict_cell(c)]
    assert len(verdicts) == 3 and any(c.part for c in side)
    assert lanes.claimable([main, side], done | {verdicts[0].part_key}, 0, walls) == verdicts[-1]
    assert lanes.claimable([main, side], done | {c.part_key for c in verdicts}, 0, walls) is None
    # More lanes: from the one with the most expected time not begun, its last cell.
    four = [main, verdicts[:1], verdicts[1:], []]
    assert lanes.claimable(four, done, 3, walls) == verdicts[-1]
    assert lanes.claimable(four, done, 3, dict(walls, **{verdicts[0].part_key: [Expected(600.0, "default")]})) \
        == verdicts[0]


# The plan a long expectation of lane 1 gives (lanes.balance keeps a verdict cell in lane 0 after its timing cells),
# as `runner matrix` lays it out: the estimates cannot be made wrong to order.
KEPT_IN_LANE_0 = """
import sys
from runner import arrangement, cli
real = arrangement.arrange

def arrange(project, cells, lanes, cached_beside=None, rundir=None):
    main, side = real(project, cells, lanes, cached_beside, rundir)[0]
    kept = [c for c in side if c.mode == "paper"]
    by_lane = [main + kept, [c for c in side if c not in kept]]
    return by_lane, arrangement.expected(project, by_lane, rundir, arrangement.sources(project))

arrangement.arrange = arrange
cli.main()
"""


@pytest.mark.slow
def test_a_lane_that_ends_its_own_cells_takes_a_verdict_cell_lane_0_has_not_begun(venv_for, tmp_path):
    """Lane 0 holds six timing repeats and then a model cell the plan kept there; lane 1's one model cell ends
    first, and lane 1 takes lane 0's model cell, running it beside lane 0's timing repeats instead of lane 0 after
    them; lane 0 does not run it again, and every cell ends once, done."""
    venv_for("jax-cpu")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    small_matrix(tmp_path, 'frameworks = ["jax"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 3\n'
                 'mode = ["steady", "paper"]\ninclude = ["jax-xla-cpu"]')
    (tmp_path / "kept.py").write_text(KEPT_IN_LANE_0)
    out = tmp_path / "run"
    args = ["matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--quick", "--lanes", "2",
            "--compiler", "eager", "--functions", "jax.numpy.add", "--out", str(out)]
    proc = subprocess.run([sys.executable, str(tmp_path / "kept.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "lane 1 takes jax-xla-cpu (current, paper) from lane 0, which has not begun it" in proc.stdout, \
        proc.stdout[-3000:]
    lines = {p.name: p.read_text().splitlines() for p in out.glob("*.jsonl")}
    assert len(lines) == 8, sorted(lines)
    lane = {name: json.loads(text[0])["engine"]["lane"] for name, text in lines.items()}
    assert lane.pop("jax-xla-cpu-current-paper.jsonl") == 1 and lane.pop("jax-xla-cpu-current.jsonl") == 1
    assert set(lane.values()) == {0}
    span = {name: json.loads(text[-1]) for name, text in lines.items()}
    taken, own = span["jax-xla-cpu-current-paper.jsonl"], span["jax-xla-cpu-current.jsonl"]
    assert taken["supervisor_started_at"] >= own["supervisor_ended_at"] - 1  # after lane 1's own cell,
    assert taken["supervisor_started_at"] < span["jax-cpu-current-paper-r3.jsonl"]["supervisor_ended_at"]  # in time
    merged = json.loads((out / "merged.json").read_text())
    assert [c["status"] for c in merged["cells"]] == ["done"] * 4
    for name, text in lines.items():  # each case once: lane 0 did not run the taken cell as well
        ids = [json.loads(line)["case_id"] for line in text if '"record": "case"' in line]
        assert ids and len(ids) == len(set(ids)), name


@pytest.mark.slow
def test_a_taken_cell_started_ahead_in_lane_0_ends_there_and_writes_nothing(venv_for, tmp_path, monkeypatch):
    """Lane 0 starts the repeat after its running one ahead, on standby (Scheduler.start_next); where that is a
    verdict cell another lane then takes (Scheduler.claim), the standby ends with its worker and writes nothing, so
    that the cell runs once, in the lane that took it."""
    from runner.backends.local import compile_bytecode
    from runner.rundir import RunDir
    from runner.scheduler import Scheduler

    compile_bytecode(venv_for("jax-xla-cpu").venv)  # ready as start_next means it: built and byte-compiled
    small_matrix(tmp_path, 'frameworks = ["jax"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 1\n'
                 'mode = ["steady", "paper"]\ninclude = ["jax-xla-cpu"]')
    project = Project.find(tmp_path / "matrix.toml", ROOT / "curated")
    cells = [c for c in plan(project, Options(backend="local", quick=True, compilers=("eager",),
                                              functions=("jax.numpy.add",))) if c.runnable]
    real = arrangement.arrange

    def kept_in_lane_0(*args, **kwargs):  # the plan a long expectation of lane 1 gives, as above
        (main, side), walls = real(*args, **kwargs)  # walls by cell part: claim reads the kept cell's as they are
        kept = [c for c in side if c.mode == "paper"]
        return [main + kept, [c for c in side if c not in kept]], walls

    monkeypatch.setattr(arrangement, "arrange", kept_in_lane_0)
    said: list[str] = []
    s = Scheduler(project, RunDir.new(tmp_path / "results"), cells, said.append, lanes=2)
    try:
        before, kept = s.lanes[0][-2:]
        assert (kept.name, kept.mode, before.name) == ("jax-xla-cpu", "paper", "jax-cpu")
        s.start_next(before)
        assert s.started is not None and s.started.cell.key == kept.key
        standby = s.started.standby
        config_path = standby.proc.args[3]
        wait_for(lambda: len(processes_naming(config_path)) >= 2, "the standby's supervisor and worker", 120,
                 standby.proc)
        assert s.claim(1) == kept
        assert s.started is None and standby.proc.returncode == 0
        assert processes_naming(config_path) == []
        assert kept in s.lanes[1] and kept not in s.lanes[0] and s.lane_of(kept) == 1
        assert not s.begin(kept)  # lane 0, reaching it in its list, skips it
        assert said[-1] == "lane 1 takes jax-xla-cpu (current, paper) from lane 0, which has not begun it"
        assert not list(s.rundir.path.glob("*.jsonl")) and not list(s.rundir.path.glob("*.log"))
    finally:
        s.end_started()
