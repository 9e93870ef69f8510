"""The report a reader opens: report.md and report.html from the four real runs of conftest's `runs`, the page
opened in Chromium (figures decoded, the grid and findings on the first screen, a folded table opened and
filtered), the rerun command of a failed function run again, and sections that say plainly what is not there."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import pandas as pd
import pytest
from conftest import RUNS, headless, runner_cli

from runner.report import latency_tables, load, render, tables

pytestmark = pytest.mark.slow
cli = runner_cli


def test_report_writes_markdown_html_and_figures(everything, runs, tmp_path):
    proc = cli("report", *(str(runs / n) for n in RUNS), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "report.md").read_text()
    r, _ = everything
    for row in tables.portability(r).itertuples(index=False):
        assert f"| {row.framework} | {row.target} | {row.version} | {row.functions} |" in md
    pngs = sorted((tmp_path / "figures").glob("*.png"))
    names = {p.stem.split("-cpu")[0] for p in pngs}
    assert {"latency-scatter", "latency-density", "failure-by-decile", "failure-top20", "failure-categories"} <= names
    for p in pngs:
        image = matplotlib.image.imread(p)
        assert image.shape[0] > 200 and image.shape[1] > 200 and image[..., :3].std() > 0.05, p
    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(pngs)
    assert "src=\"figures/" not in html  # self-contained


def test_report_html_renders_in_headless_chromium(runs, tmp_path):
    assert cli("report", *(str(runs / n) for n in RUNS), "--out", str(tmp_path)).returncode == 0
    page = (tmp_path / "report.html").as_uri()
    flags = headless(tmp_path / "profile")
    dom = subprocess.run([*flags, "--virtual-time-budget=10000", "--dump-dom", page], capture_output=True,
                         text=True, timeout=300).stdout
    figures = len(list((tmp_path / "figures").glob("*.png")))
    # The page's own check: every embedded figure decoded to a non-empty image.
    assert f'data-figures="{figures}/{figures}"' in dom
    assert dom.count("<table") >= 10 and "Portability" in dom and "Latency across setups" in dom
    shot = tmp_path / "screenshot.png"
    subprocess.run([*flags, "--window-size=1300,5000", f"--screenshot={shot}", page], capture_output=True,
                   timeout=300, check=True)
    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (5000, 1300)
    not_white = (pixels.min(axis=2) < 0.9).mean()
    colored = (pixels.max(axis=2) - pixels.min(axis=2) > 0.35).mean()  # the figures' bars, lines and points
    assert not_white > 0.03 and colored > 0.002, (not_white, colored)
    kept = Path(os.environ.get("REPORT_SCREENSHOT", tmp_path / "kept.png"))
    shutil.copy(shot, kept)  # to look at by eye: REPORT_SCREENSHOT=/some/path.png


def test_one_setup_only_says_there_are_no_pairs(runs, tmp_path):
    r = load.load([runs / "torch-paper2023"])
    assert latency_tables.pairs(r) == []
    md, _, _ = render.write(r, tmp_path)
    assert "measured on one setup only" in md.read_text()


# --- reading right at a glance ------------------------------------------------------------------------------

def section(md: str, title: str) -> str:
    """The text of one `## title` section of report.md."""
    start = md.index(f"## {title}\n")
    end = md.find("\n## ", start + 1)
    return md[start:end if end > 0 else len(md)]


def test_a_run_where_nothing_fails_says_so_and_draws_no_empty_chart(runs, tmp_path):
    # jax-steady: jax.numpy.add and jax.lax.erf pass, jax.core.get_aval is missing: nothing fails.
    r = load.load([runs / "jax-steady"])
    assert (r.cases["outcome"] != "failed").all()
    md, _, pngs = render.write(r, tmp_path)
    text = md.read_text()
    top = section(text, "Most used functions")
    assert "no failure rate to chart" in top and "![" not in top
    deciles = section(text, "Failure by usage decile")
    assert "no failure rate to chart" in deciles and "![" not in deciles
    assert not [p.name for p in pngs if p.name.startswith(("failure-top20", "failure-by-decile"))]
    assert "No case failed." in section(text, "Failure categories")
    ours = section(text, "Bugs in our own cases")
    assert "No case failed at all" in ours and "framework's" not in ours


def test_the_top20_chart_starts_at_zero_and_labels_its_bars(everything):
    r, _ = everything
    t = tables.top20(r)
    assert (t["all failure %"] > 0).any()  # the 2023 pins fail torch.round
    from runner.report import figures

    ax = figures.top20_chart(t).axes[0]
    low, high = ax.get_ylim()
    assert low == 0 and high >= t[["top-20 failure %", "all failure %"]].max().max()
    labels = [text.get_text() for text in ax.texts]
    assert f"{t['all failure %'].iloc[0]:.1f} %" in labels


def test_decile_columns_read_as_deciles(everything, tmp_path):
    r, _ = everything
    md, _, _ = render.write(r, tmp_path)
    table = [l for l in section(md.read_text(), "Failure by usage decile").splitlines() if l.startswith("|")]
    head = [c.strip() for c in table[0].strip("|").split("|")]
    deciles = sorted(tables.deciles(r)["decile"].unique())
    assert head[2:] == [f"decile {d}" + {10: " (least used)", 100: " (most used)"}.get(d, "") for d in deciles]
    assert not [h for h in head if h.endswith("%")]
    # Each cell: the failure rate with its unit, then failing / ran ("-" where a setup ran none of that decile).
    cells = [c.strip() for row in table[2:] for c in row.strip("|").split("|")[2:]]
    assert cells and all(re.fullmatch(r"\d+\.\d % \(\d+/\d+\)|-", c) for c in cells), cells


def test_duration_columns_carry_no_unit_in_their_name(everything, runs, tmp_path):
    r, _ = everything
    md = render.write(r, tmp_path)[0].read_text()
    heads = [l for l in md.splitlines() if l.startswith("| framework")]
    assert heads and not [h for h in heads if "(s)" in h]
    pair = next(p for p in latency_tables.pairs(r) if p.framework == "torch")
    assert {"warm a", "warm b", "cold a", "cold b"} <= set(pair.table.columns)
    unit = re.compile(r"[\d.]+ (s|ms|µs|ns)")
    for frame in (pair.table, latency_tables.cold_warm(r)):
        for column in tables.SECONDS & set(frame.columns):
            assert all(unit.fullmatch(render.cell_text(column, v)) for v in frame[column].dropna()), column
    assert render.cell_text("study T4", 0.0123) == "12.3 ms"  # the study's milliseconds, read as seconds
    assert render.cell_text("median cold/warm", 2058.4) == "2,058x"  # not 2.06e+03x
    # runner compare shares the formatting: its latency columns print their unit too.
    r1, r2 = sorted((runs / "torch-current").glob("*.jsonl"))
    proc = cli("compare", str(r1), str(r2), "--all")
    assert proc.returncode == 0, proc.stderr
    assert "warm a" in proc.stdout and "(s)" not in proc.stdout and unit.search(proc.stdout)


def test_no_schema1_note_for_records_that_carry_their_usage_facts(runs, tmp_path):
    # Schema 2 and later records carry the catalog: read without any curated/ folder, nothing says schema 1.
    r = load.load([runs / "jax-steady"], curated_root=None)
    text = render.write(r, tmp_path)[0].read_text()
    assert "schema 1" not in text
    assert "every function of these records is in it" in section(text, "Failure by usage decile")


def test_failures_that_are_all_the_frameworks_are_said_plainly(runs, tmp_path):
    r = load.load([runs / "torch-paper2023"])
    failing = r.cases[r.cases["outcome"] == "failed"].drop_duplicates(["case_id"])
    assert len(failing) and (failing["category"] != "case_error").all()
    ours = section(render.write(r, tmp_path)[0].read_text(), "Bugs in our own cases")
    n = len(failing)
    said = "the one failing case" if n == 1 else f"all {n} failing cases"
    assert f"None of ours: {said} failed in the framework" in ours


# --- the page a reader opens: first screen, folds, filters, rerun commands -----------------------------------

@pytest.fixture(scope="module")
def report(runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    proc = cli("report", *(str(runs / n) for n in RUNS), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_grid_and_the_findings_are_on_the_first_screen(report, chromium):
    page = chromium.new_page(viewport={"width": 1366, "height": 768})
    page.goto((report / "report.html").as_uri())
    for ident in ("grid", "findings"):
        box = page.locator(f"#{ident}").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768, (ident, box)
    grid = page.locator("#grid").inner_text()
    # Every framework measured is a row; a device nobody measured says so, beside the study's figure.
    assert "torch" in grid and "jax" in grid and "not run" in grid and "study 2023 (T4)" in grid
    # torch on the CPU: all pass with today's pins, torch.round fails with 2023's: the cell is partial.
    torch_cpu = page.locator("#grid tbody tr", has_text="torch").locator("td").nth(1)
    assert "partial" in torch_cpu.inner_text() and "partial" in torch_cpu.get_attribute("class")
    shot = report / "first-screen.png"
    page.screenshot(path=str(shot))
    assert matplotlib.image.imread(shot).shape[:2] == (768, 1366)
    kept = os.environ.get("REPORT_FIRST_SCREEN")
    if kept:  # to look at by eye
        shutil.copy(shot, kept)
    page.close()


def test_no_table_shows_more_than_25_rows_before_it_is_opened(report, chromium):
    page = chromium.new_page()
    page.goto((report / "report.html").as_uri())
    visible = page.evaluate("""Array.from(document.querySelectorAll('table'))
        .filter(t => !t.closest('details')).map(t => t.tBodies[0].rows.length)""")
    assert visible and max(visible) <= render.FOLD, visible
    folded = page.evaluate("Array.from(document.querySelectorAll('details')).map(d => d.open)")
    assert not any(folded)
    assert (report / "report.html").stat().st_size <= 600_000
    page.close()


def test_a_folded_table_opens_and_its_filter_keeps_the_rows_that_match(runs, tmp_path, chromium):
    # The records of the four runs as one long table: a real table too long to show whole.
    r = load.load([runs / n for n in RUNS])
    frame = r.cases[["framework", "target", "function", "case_id", "outcome"]]
    assert len(frame) > render.SHOWN
    from runner.report.blocks import Section, Table

    secs = [Section("Cases", [Table(frame, "Every case")], summary="All the cases.")]
    render._write_csvs(secs, tmp_path)
    (tmp_path / "page.html").write_text(render.page(secs, "cases"))
    assert pd.read_csv(tmp_path / secs[0].blocks[0].csv).shape == frame.shape  # every row, beside the page
    page = chromium.new_page()
    page.goto((tmp_path / "page.html").as_uri())
    rows = page.locator("details tbody tr")
    assert rows.count() == render.SHOWN and not rows.first.is_visible()
    summary = page.locator("details > summary").inner_text()
    assert f"({len(frame)} rows; the first {render.SHOWN} shown" in summary
    page.locator("details > summary").click()
    assert rows.first.is_visible()
    expected = frame.head(render.SHOWN)
    word = expected["function"].iloc[len(expected) // 2]  # a function among the rows shown, not all of them
    assert (expected["function"] != word).any()
    page.locator("input.filter").fill(word)
    shown = page.evaluate("Array.from(document.querySelectorAll('details tbody tr'))"
                          ".filter(r => r.style.display !== 'none').map(r => r.textContent)")
    assert len(shown) == int(expected.apply(lambda row: word in " ".join(map(str, row)), axis=1).sum()) > 0
    assert all(word in text for text in shown)
    assert page.locator("input.filter + span").inner_text() == f"{len(shown)} of {render.SHOWN} rows"
    page.close()


def test_every_failed_case_carries_a_rerun_command_that_reproduces_its_verdict(runs, report, tmp_path):
    r = load.load([runs / n for n in RUNS])
    failed = tables.failed_cases(r)
    assert len(failed), "the 2023 pins fail torch.round: the runs must hold a failure"
    md = (report / "report.md").read_text()
    categories = section(md, "Failure categories")
    commands = {}
    for _, row in failed.iterrows():
        line = next(l for l in categories.splitlines() if f"| {row['case_id']} |" in l)
        commands[(row["framework"], row["target"], row["case_id"])] = re.search(r"(runner bench [^|]+?) \|", line)[1]
    (framework, target, case_id), command = next(iter(commands.items()))
    words = shlex.split(command)
    assert words[:2] == ["runner", "bench"] and "--out" not in words  # a new folder: the runs stay as they are
    proc = cli(*words[1:], "--backend", "local", "--out", str(tmp_path / "again"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    again = load.load([tmp_path / "again"]).cases
    before = r.cases[(r.cases["framework"] == framework) & (r.cases["target"] == target)
                     & (r.cases["case_id"] == case_id)]
    assert set(again.loc[again["case_id"] == case_id, "outcome"]) == set(before["outcome"]) == {"failed"}


def test_a_report_of_plain_runs_has_no_empty_section(runs, tmp_path):
    # One steady run: no census, no paper mode, no second setup to compare.
    md, _, _ = render.write(load.load([runs / "torch-current"]), tmp_path)
    text = md.read_text()
    titles = re.findall(r"^## (.+)$", text, flags=re.M)
    assert "Census: the frameworks' own test databases" in titles and "At a glance" in titles
    for title in titles:
        body = [l for l in section(text, title).splitlines()[1:] if l.strip()]
        assert body, f"{title} is empty"
    assert "runner census --framework" in section(text, "Census: the frameworks' own test databases")
    assert "runner bench --mode paper" in section(text, "Method: the study's against ours")
