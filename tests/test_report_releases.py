"""The report's "Over releases": change points in a latency series (runner/report/changepoints.py), and the
section built from records of one framework in two releases, written as the harness writes them; and, with the
same records, eager against compiled for a function whose compiled cases stopped at trace or at the timeout."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from portability_harness import declared
from portability_harness.records import schema, store

from conftest import runner_cli

from runner.report import changepoints, load, release_tables, render

RNG_SEED = 7


def timings_of(levels: list[float], cases: int, samples: int, spread: float, rng) -> pd.DataFrame:
    """Warm samples of `cases` cases per release around each release's level, cases of different sizes."""
    rows = [{"release": i, "case": c, "seconds": level * (1 + c) * np.exp(rng.normal(0, spread))}
            for i, level in enumerate(levels) for c in range(cases) for _ in range(samples)]
    return pd.DataFrame(rows)


def test_a_clear_step_is_found_with_its_size_and_a_small_p_value():
    rng = np.random.default_rng(RNG_SEED)
    levels = [1e-3 * np.exp(rng.normal(0, 0.02)) for _ in range(4)] + \
             [2e-3 * np.exp(rng.normal(0, 0.02)) for _ in range(4)]
    (point,) = changepoints.find(levels, timings_of(levels, cases=3, samples=20, spread=0.05, rng=rng))
    assert point.at == 4
    assert point.ratio == pytest.approx(2.0, rel=0.1)
    assert point.p_value < 1e-6
    assert point.observations == (4 * 3 * 20, 4 * 3 * 20)


def test_a_flat_noisy_series_has_no_change_point():
    rng = np.random.default_rng(RNG_SEED)
    levels = [1e-3 * np.exp(rng.normal(0, 0.05)) for _ in range(10)]
    assert changepoints.find(levels, timings_of(levels, cases=3, samples=20, spread=0.05, rng=rng)) == []


def test_two_releases_need_the_noise_from_elsewhere():
    rng = np.random.default_rng(RNG_SEED)
    timings = timings_of([1e-3, 1e-3], cases=4, samples=1, spread=0.01, rng=rng)
    # one step between two releases: kept when it is larger than the noise says two levels differ by
    assert changepoints.find([1e-3, 1.05e-3], timings, noise=0.05) == []
    (point,) = changepoints.find([1e-3, 1.5e-3], timings, noise=0.05)
    assert (point.at, point.ratio) == (1, pytest.approx(1.5))
    # the noise of many functions' differences, each pair of releases centred on its own median change
    assert changepoints.pooled_noise([[0.1, 0.1, 0.1, 0.1, 0.1]]) == 0.0  # all moved alike: no noise
    assert changepoints.pooled_noise([[0.1, 0.2]]) is None  # too few to tell


def test_releases_are_ordered_by_version_not_by_name():
    assert release_tables.ordered_releases(["2.13.0+cpu", "2.11.0+cu130", "2.9.1"]) == \
        ["2.9.1", "2.11.0+cu130", "2.13.0+cpu"]
    assert release_tables.ordered_releases(["0.10.0", "0.9.1", "nightly"]) == ["0.9.1", "0.10.0", "nightly"]


# --- the section, from records of two releases -------------------------------------------------------------

OLD, NEW = "0.9.1", "0.10.0"  # in that order by version, the other way round by name


def case(function: str, n: int, outcome: str, seconds: float | None = None) -> dict:
    timing = {}
    if seconds is not None:
        samples = [seconds * (1 + 0.01 * k) for k in range(10)]
        timing = {"warm_samples_s": samples, "warm_count": len(samples), "warm_median_s": float(np.median(samples)),
                  "cold_s": 10 * seconds}
    return schema.case(function=function, module=f"jax/test_{function.rsplit('.', 1)[1]}.py", params={},
                       case_id=f"jax/test_{function.rsplit('.', 1)[1]}.py::test_{n}", outcome=outcome,
                       category="type" if outcome == "failed" else None,
                       message={"failed": "TypeError: no", "missing_api": f"{function}: no attribute"}.get(outcome),
                       timing=timing)


def write_release(folder: Path, version: str, cases: list[dict]) -> None:
    with store.Writer(str(folder / f"jax-cpu-{version}.jsonl")) as w:
        w.append(schema.header(run_id=f"sweep-{version}", framework="jax", framework_version=version, device="cpu",
                               device_model="Same CPU", image="jax-cpu", profile=f"jax-{version}", mode="steady",
                               compiler="eager", repeat=1, quick=False))
        for c in cases:
            w.append(c)
        w.append(schema.footer(schema.count_outcomes(cases)))


def declared_table(folder: Path, version: str, ops: list[str]) -> None:
    table = declared.new_table("jax", version, "test")
    table["devices"] = {"cpu": {"known": True, "note": ""}, "tpu": {"known": False, "note": "cannot tell"}}
    table["ops"] = {op: {"cpu": ["float32"]} for op in ops}
    table["coverage"] = declared.coverage(table)
    declared.save(table, str(folder / "declared" / f"jax-{version}.json.gz"))


@pytest.fixture
def two_releases(tmp_path) -> Path:
    folder = tmp_path / "sweep"
    folder.mkdir()
    stable = [case("jax.numpy.add", n, "passed", 1e-5) for n in range(4)]
    write_release(folder, OLD, [*stable, *(case("jax.numpy.sort", n, "passed", 2e-5) for n in range(4)),
                                *(case("jax.numpy.slow", n, "passed", 1e-4) for n in range(4)),
                                case("jax.numpy.fresh", 0, "missing_api")])
    write_release(folder, NEW, [*stable,
                                case("jax.numpy.sort", 0, "passed", 2e-5), case("jax.numpy.sort", 1, "failed"),
                                *(case("jax.numpy.sort", n, "passed", 2e-5) for n in (2, 3)),
                                *(case("jax.numpy.slow", n, "passed", 1e-3) for n in range(4)),
                                case("jax.numpy.fresh", 0, "passed", 1e-5)])
    declared_table(folder, OLD, ["add", "sort", "gone"])
    return folder


def over_releases(folder: Path, out: Path) -> str:
    md, _, _ = render.write(load.load([folder]), out)
    text = md.read_text()
    start = text.index("## Over releases")
    return text[start:text.index("\n## ", start + 1)]


def table_rows(section: str, function: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|") and f" {function} " in line]


def test_the_section_lists_a_verdict_change_a_regression_and_a_latency_step(two_releases, tmp_path):
    section = over_releases(two_releases, tmp_path / "out")
    assert "1 regression (jax.numpy.sort)" in section and "2 functions changed verdict" in section
    # a function that passed and fails in part in the later release, and one that appears in it
    assert ["cpu eager", "jax.numpy.sort", "pass", "partial", OLD, f"since {NEW}"] in table_rows(section,
                                                                                                  "jax.numpy.sort")
    assert ["cpu eager", "jax.numpy.fresh", "missing", "pass", NEW, ""] in table_rows(section, "jax.numpy.fresh")
    assert "2 unchanged are not listed" in section
    header = next(line for line in section.splitlines() if line.startswith("| setup | function | "))
    assert header.index(OLD) < header.index(NEW)  # version order
    # 10x slower in the later release, its four cases all slower: a change point; the stable function has none
    (step,) = [row for row in table_rows(section, "jax.numpy.slow") if row[2] == OLD]
    assert step[3] == NEW and step[6] == "10x" and float(step[7]) < 0.05
    assert table_rows(section, "jax.numpy.add")[0][-1] == "none"
    assert "per-case warm medians" in section
    # the declared tables: one release has a table (the other says it has none), and the pass-rate figure
    assert f"| {NEW} | no table | no table | no table | no table |" in section
    assert f"| {OLD} | 3 | 3 | not known | not known |" in section
    assert "pass-rate-over-releases-jax.png" in section and (tmp_path / "out" / "figures" /
                                                             "pass-rate-over-releases-jax.png").exists()



def test_runner_report_of_a_sweeps_folder_tests_steps_on_the_warm_samples(two_releases):
    # sweep.json marks the folder as a sweep's: `runner report` then loads the samples (10 per case here), and
    # the slow function's step is tested on 4 x 10 timings a side instead of its 4 cases' medians.
    (two_releases / "sweep.json").write_text('{"framework": "jax", "releases": []}\n')
    proc = runner_cli("report", str(two_releases), timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = (two_releases / "report.md").read_text()
    section = text[text.index("## Over releases"):]
    (step,) = [row for row in table_rows(section, "jax.numpy.slow") if row[2] == OLD]
    assert step[8] == "40 / 40", step
    assert "on the warm samples of the releases" in section

def test_declared_ops_added_and_removed_step_over_a_release_without_a_table(tmp_path):
    declared_table(tmp_path, OLD, ["add", "sort", "gone"])
    declared_table(tmp_path, NEW, ["add", "sort", "new_op"])
    sweep = release_tables.Sweep("jax", [OLD, "0.9.5", NEW], {}, pd.DataFrame())
    counts, steps = release_tables.declared_tables(sweep, [tmp_path / "declared"])
    assert counts.set_index("release")["cpu ops"].to_dict() == {OLD: 3, "0.9.5": "no table", NEW: 3}
    assert set(counts["tpu ops"]) == {"not known", "no table"}
    (step,) = steps.to_dict("records")  # the tpu column is not known, so only the cpu's ops compare
    assert step == {"from": f"{OLD} (no table for 0.9.5)", "to": NEW, "device kind": "cpu", "added": 1,
                    "added ops": "new_op", "removed": 1, "removed ops": "gone"}


def test_a_device_kind_declared_per_op_says_so_instead_of_zero_pairs(tmp_path):
    # torch_xla registers a lowering per op: a release read with it declares tpu ops with no dtype listed.
    declared_table(tmp_path, OLD, ["add", "sort"])
    table = declared.load(str(tmp_path / "declared" / f"jax-{OLD}.json.gz"))
    table["devices"]["tpu"] = {"known": True, "note": "per op"}
    table["ops"]["add"]["tpu"] = []
    table["coverage"] = declared.coverage(table)
    declared.save(table, str(tmp_path / "declared" / f"jax-{OLD}.json.gz"))
    sweep = release_tables.Sweep("jax", [OLD], {}, pd.DataFrame())
    (row,) = release_tables.declared_tables(sweep, [tmp_path / "declared"])[0].to_dict("records")
    assert (row["tpu ops"], row["tpu op x dtype"], row["cpu op x dtype"]) == (1, "not per dtype", 2), row


def test_one_release_only_says_how_to_measure_several(tmp_path):
    folder = tmp_path / "one"
    folder.mkdir()
    write_release(folder, NEW, [case("jax.numpy.add", 0, "passed", 1e-5)])
    section = over_releases(folder, tmp_path / "out")
    assert "runner sweep --framework jax --releases 0.10.2,0.11.2" in section
    assert f"jax: {NEW} on cpu eager" in section


def test_eager_against_compiled_names_the_stages_reached_and_never_a_missing_one(tmp_path):
    # A function with one case failed at trace under jax.jit and one killed at the timeout (no stage reached is
    # recorded for it): "failed at" says trace, not "nan". (Same record-writing as the releases above.)
    folder = tmp_path / "run"
    folder.mkdir()
    for compiler in ("eager", "compiled"):
        cases = [case("jax.numpy.sort", n, "passed", 1e-5) for n in range(2)]
        if compiler == "compiled":
            cases = [dict(cases[0], outcome="failed", category="other", message="TypeError: traced", stage="trace"),
                     dict(cases[1], outcome="failed", category="timeout", message="exceeded", stage=None)]
        with store.Writer(str(folder / f"jax-cpu-current-{compiler}.jsonl")) as w:
            w.append(schema.header(run_id="forecast", framework="jax", framework_version="0.10.2", device="cpu",
                                   device_model="Same CPU", image="jax-cpu", profile="current", mode="steady",
                                   compiler=compiler, repeat=1, quick=False))
            for c in cases:
                w.append(c)
            w.append(schema.footer(schema.count_outcomes(cases)))
    md, _, _ = render.write(load.load([folder]), tmp_path / "out")
    text = md.read_text()
    start = text.index("## Eager against compiled")
    (row,) = table_rows(text[start:text.index("\n## ", start + 1)], "jax.numpy.sort")
    assert row[:5] == ["jax", "cpu compiled", "jax.numpy.sort", "trace", "other, timeout"], row
