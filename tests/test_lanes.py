"""Lanes (`runner matrix --lanes N`, runner/lanes.py): verdict cells (the TPU model's xla-cpu cells, a census) run
beside the timing cells on CPUs of their own; each header says which lane ran it, on which CPUs and what ran
beside it as it started, and the report flags the repeats measured while another lane ran."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import ROOT, runner_cli, small_matrix, start_runner, wait_for

from portability_harness.records import store
from runner import lanes, matrix
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project


def test_lane_0_keeps_the_first_cpus_and_the_others_share_at_most_half():
    assert lanes.split([0, 1], 1) == [[0, 1]]
    # Two CPUs: the verdict lane takes the host's CPU, which the timing worker leaves (cpus = "all-but-one")
    assert lanes.split([0, 1], 2) == [[0, 1], [0]]
    assert lanes.split([0, 1, 2], 2) == [[0, 1], [2]]
    assert lanes.split(list(range(16)), 2) == [list(range(8)), list(range(8, 16))]
    assert lanes.split(list(range(16)), 3) == [list(range(8)), [8, 9, 10, 11], [12, 13, 14, 15]]
    with pytest.raises(UserError, match="--lanes 3 needs 3 CPUs"):
        lanes.split([0, 1], 3)
    assert [lanes.default_lanes(n) for n in (1, 2, 3, 4, 16)] == [1, 2, 2, 2, 2]


def test_lane_0_keeps_every_timing_repeat_but_the_compiled_cells_cached_ones():
    """Beside lane 0 run the verdict cells (the TPU model's), then the compiled CPU cells' repeats after their
    first, which lane 0 runs (as --cached-beside moves them: movable without eager); every other repeat is lane 0's,
    each repeat in exactly one lane."""
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    assert all(c.part is None for lane in lanes.assign(cells, 2) for c in lane)  # none named, none moved
    main, side = lanes.assign(cells, 2, lanes.movable(cells, 2, eager=False))
    assert all(c.device != "xla-cpu" for c in main)
    verdicts = [c for c in side if c.device == "xla-cpu"]
    later = [c for c in side if c.device != "xla-cpu"]
    assert verdicts and side[:len(verdicts)] == verdicts  # the verdict cells first, which never wait
    compiled = [c for c in cells if c.device == "cpu" and c.compiler == "compiled"]
    assert compiled and all(c.repeats > 1 for c in compiled)
    assert [(c.key, c.part) for c in later] == [(c.key, (2, c.repeats)) for c in compiled]
    assert all(c.part_key != c.key and not c.continued for c in later)
    for cell in cells:  # every repeat of every cell in one lane, once
        parts = [p for p in main + side if p.key == cell.key]
        assert sorted(r for p in parts for r in p.own_repeats) == list(range(1, cell.repeats + 1)), cell.key
        assert all(p.part is None for p in parts) or [p.part for p in parts] == [(1, 1), (2, cell.repeats)]
    assert [p.continued for p in main if p.part] == [True] * len(compiled)
    # Their first repeats come first in lane 0, in the run's order: the side lane can take the later ones early.
    assert [(p.key, p.part) for p in main[:len(compiled)]] == [(c.key, (1, 1)) for c in compiled]
    assert lanes.where(compiled[0], [main, side]) == f" (repeats 2-{compiled[0].repeats} in lane 1)"
    assert lanes.where(verdicts[0], [main, side]) == " in lane 1"
    # The run's expected wall: a later part starts no sooner than its first part ends in lane 0 (a cold compiled
    # repeat of 1000 s, every other repeat 100).
    from runner.estimate import Expected
    from runner.lanes import lane_ends

    def seconds(c):
        return 1000.0 if c.continued else 100.0

    walls = {c.part_key: [Expected(seconds(c), "default")] * len(c.own_repeats) for c in main + side}
    ends, clock, side_clock = lane_ends([main, side], walls), 0.0, 0.0
    firsts = {}
    for c in main:
        clock += seconds(c) * len(c.own_repeats)
        firsts[c.key] = clock
    for c in side:
        side_clock = max(side_clock, firsts[c.key] if c.part_key != c.key else 0.0) + 100.0 * len(c.own_repeats)
    assert ends == [clock, side_clock] and side_clock > 100.0 * sum(len(c.own_repeats) for c in side)
    # One lane: nothing split; a GPU's compiled cell never shares its accelerator with a timing worker.
    assert lanes.assign(cells, 1) == [cells]
    assert not lanes.continued_later(replace(compiled[0], image=replace(compiled[0].image, device="cuda")))


def test_an_eager_cells_later_repeats_are_tried_last_and_run_in_a_side_lane_on_cpus_of_their_own():
    """The eager CPU cells' later repeats are timing work: the arrangement tries them after every compiled cell's
    cached ones (movable's order), and a side lane runs them on its own CPUs, never lane 0's worker's; each repeat
    still runs once, its first in lane 0. No accelerator cell's and no TPU-model cell's repeats move."""
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    cpu = [c for c in cells if c.device == "cpu"]
    order = lanes.movable(cells, 2)
    assert order == [c.key for c in cpu if c.compiler == "compiled"] + [c.key for c in cpu if c.compiler == "eager"]
    assert lanes.movable(cells, 1) == [] and lanes.movable(cells, 2, eager=False) == order[:len(order) // 2]
    eager = [c for c in cpu if c.compiler == "eager"]
    main, side = lanes.assign(cells, 2, [c.key for c in eager])
    assert [(c.key, c.part) for c in side if c.part] == [(c.key, (2, c.repeats)) for c in eager]
    assert [(c.key, c.part) for c in main[:len(eager)]] == [(c.key, (1, 1)) for c in eager]
    for cell in cells:
        parts = [p for p in main + side if p.key == cell.key]
        assert sorted(r for p in parts for r in p.own_repeats) == list(range(1, cell.repeats + 1)), cell.key
    cpus = lanes.split([0, 1], 2)
    assert not set(cpus[1]) & set(cpus[0][1:])  # lane 0's worker leaves its first CPU to the supervisor (all-but-one)
    model = next(c for c in cells if c.device == "xla-cpu")
    assert not lanes.continued_later(model) and not lanes.continued_later(replace(
        eager[0], image=replace(eager[0].image, device="cuda")))


def test_by_default_the_cached_repeats_move_beside_where_the_run_ends_sooner():
    """runner.arrangement.arrange's default (lanes.balance): each compiled CPU cell's later repeats move to lane 1, in
    the run's order, only where the lanes' expected ends come sooner. With the walls of the whole make matrix of
    2026-11-28 (minutes a repeat, results/reference/matrix-cpu-2026-11-28/), torch.compile's and TensorFlow's move;
    JAX's, whose cold repeat ends last in lane 0, would leave lane 1 the longer, and stays."""
    from runner.estimate import Expected
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager", "compiled"))) if c.runnable]
    minutes = {("torch-cpu", "eager"): [0.5, 0.4, 0.4], ("torch-cpu", "compiled"): [20.6, 3.0, 3.0],
               ("tf-cpu", "eager"): [1.3, 1.2, 1.2], ("tf-cpu", "compiled"): [3.7, 3.7, 3.7],
               ("jax-cpu", "eager"): [5.4, 2.6, 2.6], ("jax-cpu", "compiled"): [7.1, 2.8, 2.9],
               ("tf-xla-cpu", "eager"): [2.8], ("jax-xla-cpu", "eager"): [4.8], ("torch-xla-cpu", "eager"): [30.8]}
    assert sorted((c.name, c.compiler) for c in cells) == sorted(minutes)

    def walls_of(by_lane):
        return {c.part_key: [Expected(60 * minutes[c.name, c.compiler][r - 1], "default") for r in c.own_repeats]
                for lane in by_lane for c in lane}

    alone = lanes.assign(cells, 2)
    main, side = by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2), walls_of)[0]
    assert [(c.name, c.part) for c in side if c.part] == [("torch-cpu", (2, 3)), ("tf-cpu", (2, 3))]
    before, after = lanes.lane_ends(alone, walls_of(alone)), lanes.lane_ends(by_lane, walls_of(by_lane))
    assert round(max(before) / 60, 1) == 66.1 and max(after) < max(before) and max(after) < 60 * 60, (before, after)
    everything = lanes.assign(cells, 2, lanes.movable(cells, 2))
    assert max(lanes.lane_ends(everything, walls_of(everything))) > max(after)  # JAX's too: lane 1 the longer
    # The walls of the whole make matrix of 2026-12-07 (a fresh clone on a 2-core AMD EPYC, model 1; its lanes ended
    # at 64.1 and 47.5 min, lane 1 idle for the last 16): torch-xla-cpu 17.7 min, not 30.8, so JAX's cached repeats
    # move too, after its cold compiled repeat, which runs before the eager cells in lane 0.
    minutes.update({("torch-cpu", "eager"): [0.6, 0.5, 0.5], ("torch-cpu", "compiled"): [25.9, 4.7, 4.0],
                    ("tf-cpu", "eager"): [1.8, 1.7, 1.7], ("tf-cpu", "compiled"): [5.9, 4.6, 4.3],
                    ("jax-cpu", "eager"): [6.1, 3.2, 3.1], ("jax-cpu", "compiled"): [7.3, 2.6, 3.2],
                    ("tf-xla-cpu", "eager"): [1.4], ("jax-xla-cpu", "eager"): [3.1],
                    ("torch-xla-cpu", "eager"): [17.7]})
    main, side = by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2, eager=False), walls_of)[0]
    assert [(c.name, c.part) for c in side if c.part] == [(n, (2, 3)) for n in ("torch-cpu", "tf-cpu", "jax-cpu")]
    assert [(c.name, c.compiler, c.part) for c in main[:3]] == [(n, "compiled", (1, 1))
                                                                 for n in ("torch-cpu", "tf-cpu", "jax-cpu")]
    assert [round(end / 60, 1) for end in lanes.lane_ends(by_lane, walls_of(by_lane))] == [58.3, 49.3]
    # With the eager cells' later repeats tried after them, TensorFlow eager's two (3.4 min) move too: lane 0 ends
    # 3.4 minutes sooner, lane 1 the same later. torch eager's (1 min) would end the run less than TIMING_MOVE_S
    # sooner and stay, and JAX eager's (6.3) would make lane 1 the longer.
    main, side = by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2), walls_of)[0]
    assert [(c.name, c.compiler) for c in side if c.part] == [
        ("torch-cpu", "compiled"), ("tf-cpu", "eager"), ("tf-cpu", "compiled"), ("jax-cpu", "compiled")]
    assert [round(end / 60, 1) for end in lanes.lane_ends(by_lane, walls_of(by_lane))] == [54.9, 52.7]
    # The walls of the whole make matrix of 2026-12-07 11:51 (results/reference/matrix-cpu-2026-12-07/, the same
    # machine): lane 0's timing repeats alone were 60.5 min, with every compiled cell's cached repeats in lane 1. The
    # eager torch and TensorFlow cells' later repeats move as well, the run's expected end under the hour.
    minutes.update({("torch-cpu", "eager"): [0.53, 0.53, 0.53], ("torch-cpu", "compiled"): [27.9, 4.7, 4.3],
                    ("tf-cpu", "eager"): [1.8, 1.6, 1.6], ("tf-cpu", "compiled"): [4.6, 4.6, 4.6],
                    ("jax-cpu", "eager"): [6.8, 3.2, 3.3], ("jax-cpu", "compiled"): [8.1, 4.3, 3.6],
                    ("tf-xla-cpu", "eager"): [1.8], ("jax-xla-cpu", "eager"): [3.6],
                    ("torch-xla-cpu", "eager"): [19.5]})
    compiled_only = lanes.balance(cells, 2, lanes.movable(cells, 2, eager=False), walls_of)[0]
    by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2), walls_of)[0]
    assert [(c.name, c.compiler) for c in by_lane[1] if c.part and c.compiler == "eager"] == [
        ("torch-cpu", "eager"), ("tf-cpu", "eager")]
    before = lanes.lane_ends(compiled_only, walls_of(compiled_only))
    after = lanes.lane_ends(by_lane, walls_of(by_lane))
    assert round(max(before) / 60, 1) == 60.5 and max(after) < 58 * 60, (before, after)
    # Their first repeats run shortest first (balance tries both orders), torch.compile's cold one last of them: in
    # the run's order the side lane would wait for it, the eager TensorFlow and compiled JAX repeats queued behind.
    shortest = [(c.name, c.compiler) for c in by_lane[0] if c.continued]
    assert shortest == [("torch-cpu", "eager"), ("tf-cpu", "eager"), ("tf-cpu", "compiled"), ("jax-cpu", "compiled"),
                        ("torch-cpu", "compiled")]
    moved = [c.key for c in by_lane[0] if c.continued]
    in_order = lanes.assign(cells, 2, moved)
    assert [c.key for c in in_order[0] if c.continued] == [c.key for c in cells if c.key in moved]
    assert round(max(after) / 60, 1) == 56.2
    assert round(max(lanes.lane_ends(in_order, walls_of(in_order))) / 60, 1) == 57.7
    assert [c.key for c in by_lane[1] if c.part] == [c.key for c in by_lane[0] if c.continued]  # the same order
    # The walls of the same command that afternoon (the host 1.38 times slower; the morning's moves in the run's
    # order, the lanes ended at 78.2 and 80.2, lane 1 waiting 4.2 minutes for torch.compile's cold repeat): by these
    # walls lane 1 ends 78.9 in the run's order (the start-ups between its repeats left out) and 74.5 shortest first.
    minutes.update({("torch-cpu", "eager"): [0.8, 1.4, 0.8], ("torch-cpu", "compiled"): [35.6, 6.3, 5.7],
                    ("tf-cpu", "eager"): [2.5, 2.7, 2.5], ("tf-cpu", "compiled"): [6.6, 7.2, 7.1],
                    ("jax-cpu", "eager"): [10.2, 5.6, 5.3], ("jax-cpu", "compiled"): [11.6, 5.4, 5.6],
                    ("tf-xla-cpu", "eager"): [2.0], ("jax-xla-cpu", "eager"): [5.0],
                    ("torch-xla-cpu", "eager"): [22.8]})
    by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2), walls_of)[0]
    assert [(c.name, c.compiler) for c in by_lane[0] if c.continued] == shortest
    assert [round(end / 60, 1) for end in lanes.lane_ends(in_order, walls_of(in_order))] == [78.2, 78.9]
    assert [round(end / 60, 1) for end in lanes.lane_ends(by_lane, walls_of(by_lane))] == [78.2, 74.5]
    # Walls that make lane 1 the longer by far: no cached repeat moves there, but the TPU model's TensorFlow and
    # JAX cells are kept in lane 0, after its timing cells; torch-xla-cpu's would make lane 0 the longer, and stays.
    slow_side = lanes.balance(cells, 2, lanes.movable(cells, 2),
                              lambda b: {k: [Expected(e.seconds * (9 if "xla" in k else 1), "default") for e in v]
                                         for k, v in walls_of(b).items()})[0]
    assert [c.name for c in slow_side[1]] == ["torch-xla-cpu"] and not any(c.part for lane in slow_side for c in lane)
    assert [c.name for c in slow_side[0]] == [c.name for c in alone[0]] + ["tf-xla-cpu", "jax-xla-cpu"]


def test_the_eager_matrix_keeps_verdict_cells_in_lane_0_where_the_side_lane_is_the_longer():
    """`make matrix COMPILER=eager` on two cores: lane 0's timing cells take 16 minutes, torch-xla-cpu alone 21 in
    lane 1 (the 2026-11-28 reference's walls, torch-xla-cpu's with its 900 s case stopped at the model cells' 300 s
    timeout). The TPU model's TensorFlow and JAX cells run in lane 0 after the timing cells, and the run ends 5
    minutes sooner than with every verdict cell in lane 1 (22 minutes, not 27). The timing cells come first in lane 0:
    no latency is measured beside a model cell in the same lane."""
    from runner.estimate import Expected
    project = Project(ROOT, matrix.load(ROOT / "matrix.toml"))
    cells = [c for c in plan(project, Options(backend="local", compilers=("eager",))) if c.runnable]
    minutes = {"torch-cpu": [0.5, 0.4, 0.4], "tf-cpu": [1.3, 1.2, 1.2], "jax-cpu": [5.4, 2.6, 2.6],
               "tf-xla-cpu": [1.7], "jax-xla-cpu": [4.8], "torch-xla-cpu": [20.8]}

    def walls_of(by_lane):
        return {c.part_key: [Expected(60 * minutes[c.name][r - 1], "default") for r in c.own_repeats]
                for lane in by_lane for c in lane}

    alone = lanes.assign(cells, 2)
    by_lane = lanes.balance(cells, 2, lanes.movable(cells, 2), walls_of)[0]
    assert [[c.name for c in lane] for lane in by_lane] == [
        ["torch-cpu", "tf-cpu", "jax-cpu", "tf-xla-cpu", "jax-xla-cpu"], ["torch-xla-cpu"]]
    before, after = lanes.lane_ends(alone, walls_of(alone)), lanes.lane_ends(by_lane, walls_of(by_lane))
    assert round(max(before) / 60, 1) == 27.3 and round(max(after) / 60, 1) == 22.1, (before, after)
    # Without lanes, or kept there by name: the same cells, lane 0 in the run's order.
    assert lanes.assign(cells, 1) == [cells]
    jax_model = next(c for c in cells if c.name == "jax-xla-cpu")
    assert lanes.assign(cells, 2, kept=[jax_model.key])[0][-1] == jax_model


@pytest.mark.slow
def test_a_verdict_cell_runs_beside_the_timing_cell_on_cpus_of_its_own(venv_for, tmp_path):
    from runner.report import latency_tables, load

    venv_for("jax-cpu")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    small_matrix(tmp_path, 'frameworks = ["jax"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 2\n'
                 'include = ["jax-xla-cpu"]')
    out = tmp_path / "run"
    proc = runner_cli("matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--quick",
                      "--lanes", "2", "--functions", "jax.numpy.add", "--functions", "jax.numpy.cos",
                      "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "lane 1, jax-xla-cpu (current): started" in proc.stdout, proc.stdout[-2000:]
    headers = {p.name: json.loads(p.read_text().splitlines()[0]) for p in out.glob("*.jsonl")}
    assert set(headers) == {"jax-cpu-current-r1.jsonl", "jax-cpu-current-r2.jsonl", "jax-xla-cpu-current.jsonl"}
    timing = [headers["jax-cpu-current-r1.jsonl"], headers["jax-cpu-current-r2.jsonl"]]
    verdict = headers["jax-xla-cpu-current.jsonl"]
    assert all(h["engine"]["lane"] == 0 for h in timing) and verdict["engine"]["lane"] == 1
    # Each worker ran on its lane's CPUs, and no other lane has the timing worker's (on two CPUs the verdict lane
    # has the host's, which the timing worker leaves to its supervisor and the runner).
    main, side = timing[0]["engine"]["cpus"], verdict["engine"]["cpus"]
    assert all(set(h["cpus"]) <= set(main) and not set(h["cpus"]) & set(side) for h in timing), (timing, side)
    assert set(verdict["cpus"]) <= set(side)
    # Both lanes started at once. A header names what ran in the other lanes as its repeat started, so the one that
    # started second names the other (beside another suite, lane 1's started first once, and named nothing).
    besides = (timing[0]["engine"]["beside"], verdict["engine"]["beside"])
    assert besides[0] in ([], ["jax-xla-cpu/current"]) and besides[1] in ([], ["jax-cpu/current"]), besides
    assert besides != ([], []), besides
    merged = json.loads((out / "merged.json").read_text())
    assert {c["image"]: c["status"] for c in merged["cells"]} == {"jax-cpu": "done", "jax-xla-cpu": "done"}
    # The report flags the timing repeats measured while the verdict cell ran.
    flagged = latency_tables.beside(load.load([out]))
    assert "jax-xla-cpu" in set(flagged["beside"]) and 1 in set(flagged["repeat"])


def test_the_supervisor_keeps_off_its_workers_cpus():
    """The harness's process (the supervisor) moves onto the CPUs its worker leaves, every thread of it, so that
    the kernel does not wake it on the CPU whose call is being timed (all of them: a process's second thread kept
    the CPUs it started on)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    # A second thread that stays until the process ends (a timed one could end first on a busy machine).
    code = ("import json, os, threading\n"
            "from portability_harness.__main__ import keep_off\n"
            "t = threading.Thread(target=threading.Event().wait, daemon=True); t.start()\n"
            f"keep_off([{cpus[-1]}])\n"
            "print(json.dumps([sorted(os.sched_getaffinity(int(tid))) for tid in os.listdir('/proc/self/task')]))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "harness", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    threads = json.loads(proc.stdout)
    assert len(threads) == 2 and all(t == cpus[:-1] for t in threads), threads
    # cpus = "all": nothing is left to move to, and the process stays where it was
    code = code.replace(f"keep_off([{cpus[-1]}])", f"keep_off({cpus})")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "harness", capture_output=True, text=True,
                          timeout=60)
    assert all(t == cpus for t in json.loads(proc.stdout)), proc.stdout


def cached_beside_args(tmp_path, functions: str) -> list[str]:
    """`runner matrix` of JAX compiled on the CPU, 3 repeats, in two lanes with the cached repeats beside."""
    small_matrix(tmp_path, 'frameworks = ["jax"]\ndevices = ["cpu"]\nprofiles = ["current"]\nrepeats = 3')
    return ["matrix", "--matrix", str(tmp_path / "matrix.toml"), "--backend", "local", "--quick", "--lanes", "2",
            "--cached-beside", "--compiler", "compiled", "--functions", functions]


@pytest.mark.slow
def test_a_compiled_cells_cached_repeats_run_beside_lane_0_after_its_first(venv_for, tmp_path):
    """The first repeat of a compiled CPU cell runs in lane 0 with empty caches; the later ones wait for it, then
    run in lane 1, on lane 1's CPUs, reusing the caches it filled (their cold calls recorded as cold_cached); the
    cell ends once, done, with every repeat's file and its caches removed."""
    venv_for("jax-cpu")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    args = cached_beside_args(tmp_path, "jax.numpy.add")
    dry = runner_cli(*args, "--dry-run")
    assert dry.returncode == 0 and "(repeats 2-3 in lane 1)" in dry.stdout, dry.stdout[-2000:]
    out = tmp_path / "run"
    proc = runner_cli(*args, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    files = {r: out / f"jax-cpu-current-compiled-r{r}.jsonl" for r in (1, 2, 3)}
    headers = {r: json.loads(f.read_text().splitlines()[0]) for r, f in files.items()}
    assert [headers[r]["engine"]["lane"] for r in (1, 2, 3)] == [0, 1, 1]
    assert not set(headers[2]["engine"]["cpus"]) & set(headers[1]["cpus"])  # not the timing worker's CPU
    assert all(set(headers[r]["cpus"]) <= set(headers[r]["engine"]["cpus"]) for r in (1, 2, 3))
    cases = {r: [json.loads(line) for line in f.read_text().splitlines() if '"record": "case"' in line]
             for r, f in files.items()}
    assert cases[1] and not any(c.get("cold_cached") for c in cases[1])
    assert all(c.get("cold_cached") for r in (2, 3) for c in cases[r] if c.get("cold_s") is not None)
    assert any(c.get("cold_s") is not None for c in cases[2])
    # The later repeats began after the first had ended.
    ended = json.loads(files[1].read_text().splitlines()[-1])["supervisor_ended_at"]
    assert json.loads(files[2].read_text().splitlines()[-1])["supervisor_started_at"] >= ended - 1
    merged = json.loads((out / "merged.json").read_text())
    [cell] = merged["cells"]
    assert cell["status"] == "done" and [r["file"] for r in cell["runs"]] == [f.name for f in files.values()]
    footers = [json.loads(f.read_text().splitlines()[-1]) for f in files.values()]
    spans = sum(f["supervisor_ended_at"] - f["supervisor_started_at"] for f in footers)
    assert cell["expected_s"] and cell["wall_s"] >= spans - 1, (cell["wall_s"], spans)  # the parts' walls added
    assert not (out / ".caches").exists()


@pytest.mark.slow
def test_a_killed_run_with_the_cached_repeats_beside_resumes(venv_for, tmp_path):
    """Killed once the first repeat has ended, a --cached-beside run resumes: lane 0 has nothing left to run (the
    first repeat is not run again) and says so to lane 1, which does not wait for it; the later repeats end with
    each case once, the first of them compiling from empty caches again (the killed run's are not trusted)."""
    venv_for("jax-cpu")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    args = [*cached_beside_args(tmp_path, "jax.numpy.a*"), "--out", str(tmp_path / "run")]
    out = tmp_path / "run"
    files = {r: out / f"jax-cpu-current-compiled-r{r}.jsonl" for r in (1, 2, 3)}
    proc = start_runner(*args)
    wait_for(lambda: files[1].exists() and store.read(str(files[1])).footer is not None, "the first repeat's footer",
             600, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole run: lane 1's repeat (if it began) is cut short
    proc.wait()
    first = files[1].read_bytes()
    again = runner_cli(*args, "--resume", timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    assert files[1].read_bytes() == first
    ids = {r: [c["case_id"] for c in store.read(str(files[r])).cases] for r in (1, 2, 3)}
    assert ids[2] and sorted(ids[2]) == sorted(set(ids[2])) == sorted(ids[1]) == sorted(ids[3])
    headers = {r: json.loads(files[r].read_text().splitlines()[0]) for r in (2, 3)}
    assert [headers[r]["engine"]["lane"] for r in (2, 3)] == [1, 1]
    # The resumed run's first repeat of the cell empties the caches; the repeat after it reuses them.
    resumed = [json.loads(line) for line in files[3].read_text().splitlines() if '"record": "case"' in line]
    assert all(c.get("cold_cached") for c in resumed if c.get("cold_s") is not None)
    merged = json.loads((out / "merged.json").read_text())
    [cell] = merged["cells"]
    assert cell["status"] == "done" and len(cell["runs"]) == 3
    assert not (out / ".caches").exists()


def test_make_matrix_passes_the_lane_and_repeat_variables_to_the_runner():
    """`make matrix CACHED_BESIDE=1|0 REPEATS=N LANES=N BUDGET_S=S DRY_RUN=1` (README, docs/matrix.md) reach `runner matrix` as its flags,
    and without them the runner's defaults apply (the cached repeats that end the run sooner move beside)."""
    def command(*variables: str) -> list[str]:
        # --no-print-directory: under `make test` this make is a sub-make, which would name its folder
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        out = subprocess.run(["make", "--no-print-directory", "-n", "matrix", *variables], cwd=ROOT,
                             capture_output=True, text=True, timeout=60, env=env)
        assert out.returncode == 0, out.stderr
        words = out.stdout.replace("\\\n", " ").split()  # the recipe's continued lines as one
        start = max(i for i, w in enumerate(words[:-1]) if w.endswith("bin/runner") and words[i + 1] == "matrix")
        return words[start + 2:]

    assert command() == []
    assert command("CACHED_BESIDE=1", "REPEATS=1", "LANES=2") == ["--lanes", "2", "--cached-beside", "--repeats", "1"]
    assert command("CACHED_BESIDE=0") == ["--no-cached-beside"]
    assert command("CACHED_BESIDE=no", "COMPILER=eager") == ["--compiler", "eager", "--no-cached-beside"]
    assert command("BUDGET_S=480", "DRY_RUN=1") == ["--budget-s", "480", "--dry-run"]
