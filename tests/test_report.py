"""`runner report` and `runner compare` on results the harness wrote for real on this machine.

Four small runs, each a real cell on the CPU: PyTorch of today (two repeats) and of 2023 (two setups that
differ by profile), and JAX measured by the steady protocol and by the study's method (two setups that
differ by mode), made once for the session by conftest's `runs`. Every table is checked against an independent
count over the JSONL records; test_report_page.py checks the page a reader sees.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from conftest import CURATED, JAX, ROOT, TORCH, one_line_error, records, runner_cli

from runner.report import compare, latency_tables, load, method_tables, precision_tables, tables

pytestmark = pytest.mark.slow
cli = runner_cli


def target_of(header: dict) -> str:
    # The four runs vary in profile and in mode, so a setup is named by device, profile and mode.
    return f"{header['device']} {header['profile']} {header['mode']}"


def independent_verdicts(recs: list[tuple[dict, dict]], backward: bool = False) -> dict[tuple[str, str, str], str]:
    """Per (framework, setup, function), the verdict over its forward cases (the study's tables), or over its backward
    cases (`pass` == "backward", training) with backward=True; a function without such cases has none."""
    outcomes: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for h, c in recs:
        if (c.get("pass") == "backward") == backward:
            outcomes[(h["framework"], target_of(h), c["function"])].append(c)
    verdicts = {}
    for key, cases in outcomes.items():
        ran = [c["outcome"] == "passed" for c in cases
               if c["outcome"] in ("passed", "failed") and c["category"] != "case_error"]
        if ran:
            verdicts[key] = "pass" if all(ran) else "complete" if not any(ran) else "partial"
        elif any(c["outcome"] == "missing_api" for c in cases):
            verdicts[key] = "missing"
        else:
            verdicts[key] = "skipped"
    return verdicts


def test_setups_are_named_by_what_varies(everything):
    r, recs = everything
    assert set(r.cases["target"]) == {target_of(h) for h, _ in recs}
    assert len(r.cases) == len(recs)


def test_portability_counts_match_the_records(everything):
    r, recs = everything
    expected = Counter((fw, t, v) for (fw, t, _), v in independent_verdicts(recs).items())
    table = tables.portability(r)
    assert len(table) == len({(fw, t) for fw, t, _ in expected})
    for _, row in table.iterrows():
        key = (row["framework"], row["target"])
        for v in ("pass", "partial", "complete", "missing", "skipped"):
            assert row[v] == expected[(*key, v)], (key, v)
        ran = sum(expected[(*key, v)] for v in ("pass", "partial", "complete"))
        assert row["functions"] == ran
        for v in ("pass", "partial", "complete"):
            assert row[f"{v} %"] == round(100 * expected[(*key, v)] / ran, 1)
    # The 2023 pins fail torch.round on half precision; today's pass it: the table must show the difference.
    paper = table[(table["framework"] == "torch") & (table["target"] == "cpu paper2023 steady")].iloc[0]
    assert paper["partial"] + paper["complete"] >= 1
    assert table[table["framework"] == "jax"]["missing"].tolist() == [1, 1]  # jax.core.get_aval is gone


def test_top20_and_deciles_match_the_catalog_in_the_headers(everything):
    r, recs = everything
    verdicts = independent_verdicts(recs)
    catalog = {(h["framework"], name): facts for h, _ in recs for name, facts in h["catalog"].items()}
    top = tables.top20(r).set_index(["framework", "target"])
    dec = tables.deciles(r).set_index(["framework", "target", "decile"])
    groups: dict = defaultdict(list)
    for (fw, t, fn), v in verdicts.items():
        if v in ("pass", "partial", "complete"):
            groups[(fw, t)].append((catalog[(fw, fn)], v != "pass"))
    for (fw, t), items in groups.items():
        top_items = [failed for facts, failed in items if facts["top20"]]
        assert top.loc[(fw, t), "top-20 functions"] == len(top_items)
        assert top.loc[(fw, t), "all failure %"] == round(100 * sum(f for _, f in items) / len(items), 1)
        for decile in {facts["decile"] for facts, _ in items}:
            in_decile = [failed for facts, failed in items if facts["decile"] == decile]
            assert dec.loc[(fw, t, decile), "functions"] == len(in_decile)
            assert dec.loc[(fw, t, decile), "failed"] == sum(in_decile)


def test_failure_categories_count_each_failing_case_once(everything):
    r, recs = everything
    seen = {(h["framework"], target_of(h), c["category"], c["case_id"])
            for h, c in recs if c["outcome"] == "failed" and c["category"] != "case_error"}
    expected = Counter((fw, t, cat) for fw, t, cat, _ in seen)
    assert expected, "the 2023 pins should fail some torch.round cases"
    cats = tables.categories(r)
    got = {(row["framework"], row["target"], col): row[col]
           for _, row in cats.iterrows() for col in cats.columns[2:] if row[col]}
    assert got == dict(expected)


def test_latency_pairs_use_the_cases_that_passed_on_both(everything):
    r, recs = everything
    pair = next(p for p in latency_tables.pairs(r) if p.framework == "torch")
    assert (pair.a, pair.b) == ("cpu current steady", "cpu paper2023 steady")
    medians: dict = defaultdict(list)
    for h, c in recs:
        if c["outcome"] == "passed" and c["warm_median_s"] is not None and h["framework"] == "torch":
            medians[(target_of(h), c["function"], c["case_id"])].append(c["warm_median_s"])
    for row in pair.table.itertuples(index=False):
        common = [k[2] for k in medians if k[0] == pair.a and k[1] == row.function
                  and (pair.b, row.function, k[2]) in medians]
        a = statistics.median(statistics.median(medians[(pair.a, row.function, cid)]) for cid in common)
        b = statistics.median(statistics.median(medians[(pair.b, row.function, cid)]) for cid in common)
        assert row.cases == len(common)
        assert row[2] == pytest.approx(a) and row[3] == pytest.approx(b) and row[4] == pytest.approx(b / a)
    ratios = pair.table["warm ratio"].tolist()
    assert ratios == sorted(ratios, reverse=True)
    share = latency_tables.faster_share([pair]).iloc[0]
    assert share["functions"] == len(pair.table)
    assert share["faster on a %"] == round(100 * sum(x > 1.1 for x in ratios) / len(ratios), 1)


def test_spread_missing_fallbacks_and_cold_warm(everything):
    r, recs = everything
    spread = latency_tables.spread(r).set_index(["framework", "target"])
    files = Counter((h["framework"], target_of(h)) for h in {json.dumps(h, sort_keys=True): h for h, _ in recs}.values())
    for key, n in files.items():
        if key in spread.index:
            assert spread.loc[key, "repeats"] == n
    assert spread.loc[("torch", "cpu current steady"), "repeats"] == 2
    missing = tables.missing(r)
    expected = {(h["framework"], c["function"]) for h, c in recs if c["outcome"] == "missing_api"}
    assert set(zip(missing["framework"], missing["function"])) == expected
    assert len(tables.fallbacks(r)) == len({(h["framework"], target_of(h), c["case_id"])
                                            for h, c in recs if c.get("fallback")})
    cw = latency_tables.cold_warm(r).set_index(["framework", "target"])
    both = {(h["framework"], target_of(h), c["case_id"]) for h, c in recs
            if c["outcome"] == "passed" and c["cold_s"] is not None and c["warm_median_s"] is not None}
    for (fw, t), row in cw.iterrows():
        assert row["cases"] == sum(1 for k in both if k[:2] == (fw, t))


def test_repeat_agreement_matches_the_records(everything):
    """torch-current's two repeats: the agreement row recomputed from the raw records (minimum sample, and the
    minimum where the calibration before the case was within HOST_SLOW of its repeat's 10th percentile)."""
    r, recs = everything
    by_repeat: dict = defaultdict(dict)
    for h, c in recs:
        if h["framework"] == "torch" and target_of(h) == "cpu current steady" and c["outcome"] == "passed" \
                and c["warm_median_s"] is not None:
            by_repeat[h["repeat"]][c["case_id"]] = c
    one, two = by_repeat[1], by_repeat[2]
    usual = {k: np.percentile([c["calibration_s"] for c in cases.values()], 10) * precision_tables.HOST_SLOW
             for k, cases in by_repeat.items()}
    common = [cid for cid in one if cid in two and min(one[cid]["warm_median_s"], two[cid]["warm_median_s"]) >= 100e-6]
    logs = {cid: abs(np.log(two[cid]["warm_min_s"] / one[cid]["warm_min_s"])) for cid in common}
    calm = [cid for cid in common if one[cid]["calibration_s"] <= usual[1] and two[cid]["calibration_s"] <= usual[2]]
    row = precision_tables.agreement(r).set_index(["framework", "target"]).loc[("torch", "cpu current steady")]
    assert common, "the torch run has cases above 100 us to compare"
    assert row["repeats"] == 2 and row["cases"] == len(common)
    assert row["|log ratio| % (minimum)"] == round(100 * float(np.median(list(logs.values()))), 1)
    assert row["pairs with the host slow %"] == round(100 * (len(common) - len(calm)) / len(common), 1)
    if calm:
        assert row["|log ratio| % (minimum, host at usual speed)"] == round(
            100 * float(np.median([logs[cid] for cid in calm])), 1)


def test_method_section_counts_match_the_records(everything, runs, tmp_path):
    """jax-steady and jax-paper are the same cell measured both ways: the Method tables, recomputed from the
    raw records with nothing but json, and the section in report.md."""
    r, recs = everything
    verdicts = independent_verdicts(recs)
    steady = {k[2]: v for k, v in verdicts.items() if k[:2] == ("jax", "cpu current steady")}
    paper = {k[2]: v for k, v in verdicts.items() if k[:2] == ("jax", "cpu current paper")}
    both = set(steady) & set(paper)
    m = method_tables.method(r)
    row = m.verdicts[m.verdicts["framework"] == "jax"].iloc[0]
    assert (row["steady"], row["paper"]) == ("cpu current steady", "cpu current paper")
    assert row["functions"] == len(both) == len(JAX)
    assert row["verdicts that differ"] == sum(steady[f] != paper[f] for f in both)
    assert len(m.verdicts) == 1  # torch has no setup measured both ways

    def medians(target: str) -> dict[str, list[float]]:
        found: dict[str, list[float]] = defaultdict(list)
        for h, c in recs:
            if h["framework"] == "jax" and target_of(h) == target and c["outcome"] == "passed" \
                    and c["warm_median_s"] is not None:
                found[c["function"]].append(c["warm_median_s"])
        return {f: float(np.median(v)) for f, v in found.items()}

    a, b = medians("cpu current steady"), medians("cpu current paper")
    ratios = m.ratios.set_index("function")["paper / steady"]
    assert set(ratios.index) == set(a) & set(b) and len(ratios) >= 1
    for function, ratio in ratios.items():
        assert ratio == pytest.approx(b[function] / a[function], rel=1e-9)
    assert cli("report", str(runs / "jax-steady"), str(runs / "jax-paper"), "--out", str(tmp_path)).returncode == 0
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Method: the study's against ours", 1)[1].split("\n## ", 1)[0]
    differ = sum(steady[f] != paper[f] for f in both)
    rows = [line for line in section.splitlines() if line.startswith("| jax |")]
    assert any(line.endswith(f"| {len(both)} | {differ} |") for line in rows), rows


def test_bad_input_is_one_line_or_a_note(runs, tmp_path):
    one_line_error(cli("report", str(tmp_path / "nowhere")), "does not exist")
    (tmp_path / "empty").mkdir()
    one_line_error(cli("report", str(tmp_path / "empty")), "no case records")
    one_line_error(cli("compare", str(runs / "jax-steady")), "--baseline")

    damaged = tmp_path / "damaged"
    shutil.copytree(runs / "torch-current", damaged)
    first, second = sorted(damaged.glob("*.jsonl"))
    lines = first.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["schema"] = 1  # an older writer: no catalog in the header
    del header["catalog"]
    first.write_text(json.dumps(header) + "\n" + "".join(lines[1:]) + '{"record": "case", "funct')  # torn
    lines = second.read_text().splitlines(keepends=True)
    second.write_text("".join(lines[:2]) + "not json\n" + "".join(lines[2:]))  # damaged in the middle
    before = {p.name: p.read_bytes() for p in damaged.glob("*.jsonl")}
    proc = cli("report", str(damaged))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    notes = proc.stderr
    # The damaged line alone is left out (and said); the rest of that file is read.
    assert "torn" in notes and "schema 1" in notes and f"{second}: 1 damaged line left out (line 3)" in notes
    assert {p.name: p.read_bytes() for p in damaged.glob("*.jsonl")} == before  # a report never rewrites records
    md = (damaged / "report.md").read_text()
    assert "torn" in md and "| torch | cpu |" in md and "1 damaged line left out (line 3)" in md
    # Nothing was removed, only a torn line and a damaged one added: every case record of both repeats is read.
    setups = md[md.index("## Setups"):md.index("## Portability")]
    assert f"| {len(records(runs / 'torch-current'))} |" in setups
    # Deciles of the old records came from the checkout's curated/ folder.
    assert "No usage deciles" not in md


def test_compare_two_runs_of_the_same_cell(runs):
    r1, r2 = sorted((runs / "torch-current").glob("*.jsonl"))
    a = load.load([r1], samples=True)
    # A run against itself: nothing changed, every ratio is exactly 1.
    same = compare.compare(a, load.load([r1], samples=True))
    assert same.verdicts.empty and len(same.latency) == len(TORCH)
    assert (same.latency["change"] == "no change").all() and (same.latency["ratio"] == 1).all()
    # The same samples made 1.5x slower: every function is found slower, by the samples of most of its cases.
    slow = load.load([r1], samples=True)
    slow.cases["warm_samples_s"] = [[1.5 * x for x in s] for s in slow.cases["warm_samples_s"]]
    for column in ("warm_median_s", "warm_q1_s", "warm_q3_s", "warm_min_s"):
        slow.cases[column] = slow.cases[column] * 1.5
    slower = compare.compare(a, slow).latency
    assert (slower["change"] == "slower").all() and np.allclose(slower["ratio"], 1.5)
    # Two repeats: the same verdicts, and each latency verdict follows from its ratio and its cases.
    # (How many functions move between repeats depends on how quiet the machine is: the closing note
    # quotes it from a real run; a loaded CI machine may move several.)
    c = compare.compare(a, load.load([r2], samples=True))
    assert c.verdicts.empty
    for _, row in c.latency.iterrows():
        if row["change"] == "slower":
            assert row["ratio"] > 1.1 and 2 * row["cases slower"] > row["cases"]
        elif row["change"] == "faster":
            assert row["ratio"] < 1 / 1.1 and 2 * row["cases faster"] > row["cases"]
        else:
            assert not (row["ratio"] > 1.1 and 2 * row["cases slower"] > row["cases"])
    proc = cli("compare", str(r1), str(r2))
    assert proc.returncode == 0 and "Latency" in proc.stdout, proc.stderr


def test_cases_a_budget_cut_short_are_no_verdict_change(runs, tmp_path):
    """A run cut short by its time budget (`--budget-s`) has no result for the cases it did not reach: compare shows
    those functions as "cut short" where they lack a verdict, never as a change; a case that did change still is."""
    r1 = sorted((runs / "torch-current").glob("*.jsonl"))[0]
    lines = [json.loads(l) for l in r1.read_text().splitlines() if l.strip()]
    cases = [l for l in lines if l["record"] == "case"]
    trained = next(c["function"] for c in cases if c.get("pass") == "backward")
    other = next(c["function"] for c in cases if c["function"] != trained and c["outcome"] == "passed")
    edited = []
    for line in lines:
        if line["record"] == "case" and line["function"] == trained and line.get("pass") == "backward":
            line = {k: line[k] for k in ("record", "function", "module", "case_id", "params", "pass")}
            line.update(outcome="interrupted", cut_short="run", message="cut short: the run's time budget ended",
                        category_source="supervisor")
        elif line["record"] == "case" and line["function"] == other and line["outcome"] == "passed":
            line = dict(line, outcome="failed", category="precision", message="an edited failure")
            other = None  # one case of it
        edited.append(line)
    (tmp_path / r1.name).write_text("".join(json.dumps(l) + "\n" for l in edited))
    c = compare.compare(load.load([r1], samples=True), load.load([tmp_path / r1.name], samples=True))
    changed = c.verdicts.set_index("function")
    assert trained not in changed.index, changed  # its backward cases were cut short, not changed
    assert len(changed) == 1 and changed.iloc[0]["verdict a"] != changed.iloc[0]["verdict b"]
    # Without the cut-short records' meaning, the function's backward verdict would read as gone.
    unmarked = load.load([tmp_path / r1.name], samples=True)
    unmarked.cut_short = set()
    assert trained in set(compare.compare(load.load([r1], samples=True), unmarked).verdicts["function"])


def test_compare_two_profiles_reports_the_verdict_changes(runs):
    a, b = runs / "torch-current", runs / "torch-paper2023"
    c = compare.compare(load.load([a], samples=True), load.load([b], samples=True))
    # A change forward (the study's verdict) or backward (training: torch 1.12 fails Linear's sparse-weight backward)
    changed = set()
    for backward in (False, True):
        va = {fn: v for (_, _, fn), v in independent_verdicts(records(a), backward).items()}
        vb = {fn: v for (_, _, fn), v in independent_verdicts(records(b), backward).items()}
        changed |= {fn for fn in va.keys() | vb.keys() if va.get(fn) != vb.get(fn)}
    assert changed and set(c.verdicts["function"]) == changed
    assert c.setups.iloc[0]["changed"].startswith("framework_version")
    proc = cli("compare", str(a), str(b))
    assert proc.returncode == 0, proc.stderr
    for fn in changed:
        assert fn in proc.stdout


def test_compare_with_the_study(runs):
    proc = cli("compare", str(runs / "torch-current"), "--baseline", "paper2023")
    assert proc.returncode == 0, proc.stderr
    study = pd.read_csv(ROOT / "runner" / "report" / "data" / "paper2023-portability.csv")
    t4 = study[(study["framework"] == "pytorch") & (study["device"] == "gpu_t4")].iloc[0]
    assert f"{t4['pass_pct']:.1f}" in proc.stdout and "this run: cpu" in proc.stdout
    assert "no CUDA and TPU setups" in proc.stderr
    one_line_error(cli("compare", str(runs / "torch-current"), "--baseline", "paper2099"), "unknown baseline")


def test_two_runs_of_different_frameworks_share_nothing(runs):
    one_line_error(cli("compare", str(runs / "torch-current"), str(runs / "jax-steady")), "nothing to compare")


def test_percent_columns_read_as_percent_even_when_they_name_a_ratio():
    from runner.report.render import cell_text

    assert cell_text("|log ratio| % (median)", 6.234) == "6.2"
    assert cell_text("median paper/steady", 4.0) == "4x" and cell_text("warm ratio", 1.25) == "1.25x"


def test_ratio_statistics_agree_with_numpy():
    # Quartile fallback: few samples whose ranges do not overlap count as a change; overlapping ones do not.
    x = pd.Series({"samples": [1.0, 1.1, 1.2], "median": 1.1, "q1": 1.0, "q3": 1.2})
    y = pd.Series({"samples": [2.0, 2.1, 2.2], "median": 2.1, "q1": 2.0, "q3": 2.2})
    ratio, change = compare.case_change(x, y)
    assert change == "slower" and ratio == pytest.approx(np.median([2.0, 2.1, 2.2]) / np.median([1.0, 1.1, 1.2]))
    assert compare.case_change(x, x)[1] == "no change"
    # With minima recorded, they give the ratio: a run whose samples all moved (a slow stretch of the host) but
    # whose minimum held still has not changed; one whose minimum moved too has.
    rng = np.random.default_rng(0)
    base = 1.0 + rng.exponential(0.05, 40)
    drifted = np.concatenate([[base.min()], 1.5 * base[1:]])
    a = pd.Series({"samples": base, "median": np.median(base), "q1": 0, "q3": 0, "minimum": base.min()})
    b = pd.Series({"samples": drifted, "median": np.median(drifted), "q1": 0, "q3": 0, "minimum": drifted.min()})
    assert compare.case_change(a, b) == (pytest.approx(1.0), "no change")
    c = b.copy()
    c["samples"], c["minimum"] = 1.5 * base, 1.5 * base.min()
    assert compare.case_change(a, c) == (pytest.approx(1.5), "slower")


def test_report_without_arguments_takes_the_latest_run(runs, tmp_path, tmp_path_factory):
    # A checkout with two runs under results/: the one written last is reported.
    (tmp_path / "curated").symlink_to(CURATED)
    for name in ("images", "matrix.toml"):
        (tmp_path / name).symlink_to(ROOT / name)
    older, newer = tmp_path / "results" / "b-older", tmp_path / "results" / "a-newer"
    shutil.copytree(runs / "jax-steady", older)
    shutil.copytree(runs / "torch-paper2023", newer)
    for path in newer.glob("*.jsonl"):
        os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 60))
    proc = cli("report", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (newer / "report.html").exists() and not (older / "report.html").exists()
    one_line_error(cli("report", cwd=tmp_path_factory.mktemp("no-checkout")), "no run under")


@pytest.mark.parametrize("numerics, said", [("vendor", True), ("strict", False)])
def test_a_precision_failure_under_the_vendors_arithmetic_says_so(tmp_path, numerics, said):
    from portability_harness.records import schema, store

    from runner.report import sections

    path = tmp_path / "jax-cpu-current.jsonl"
    with store.Writer(str(path)) as w:  # records made by the harness's own builders
        w.append(schema.header(run_id="r", framework="jax", framework_version="0.10.2", device="cpu",
                               device_model="cpu", image="jax-cpu", profile="current", mode="steady", repeat=1,
                               numerics={"numerics": numerics, "default_matmul_precision": None}))
        w.append(schema.case(function="jax.numpy.matmul", module="jax/test_matmul.py", params={}, outcome="failed",
                             case_id="jax/test_matmul.py::test_f32", category="precision",
                             message="AssertionError: Not equal to tolerance rtol=1e-06"))
    r = load.load([tmp_path])
    (table,) = [b for s in sections.build(r, tmp_path) if s.title == "Failure categories" for b in s.blocks
                if getattr(b, "anchor", None) and "precision" in b.anchor]
    assert ("numerics = vendor" in table.caption) is said
