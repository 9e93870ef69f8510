"""The atlas (`runner report --site`, `make atlas`): built from every committed folder of results/reference/, opened
in headless Chromium from file://, filtered to one function, a cell opened and its rerun command found; every
setup of the references in the grid with the report's own verdicts; the pages' sizes; and what a folder lacks said
in one line, never left out in silence."""
from __future__ import annotations

import gzip
import lzma
import re
import shlex
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, one_line_error, runner_cli

from runner.atlas import sources
from runner.report import load, tables

REFERENCE = ROOT / "results" / "reference"
FOLDERS = sorted(p for p in REFERENCE.iterdir() if p.is_dir())
FIRST_PAGE = 1_000_000  # bytes: the grid, with its style sheet and script
ANY_PAGE = 2_000_000
FUNCTION = "torch.linalg.matrix_rank"


def unpack(folder: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / sources.ARCHIVE) as archive:
        archive.extractall(into, filter="data")
    return into


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("atlas") / "site"
    proc = runner_cli("report", "--site", "--out", str(out), *map(str, FOLDERS))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return out


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict[tuple[str, str, str], dict[str, str]]:
    """Read apart from the atlas: (folder, framework, report column) -> function -> the report's verdict, for
    every reference folder that keeps records."""
    scratch = tmp_path_factory.mktemp("unpacked")
    out = {}
    for folder in FOLDERS:
        if not (folder / sources.ARCHIVE).exists():
            continue
        r = load.load([unpack(folder, scratch / folder.name)])
        for row in tables.function_verdicts(r).itertuples(index=False):
            out.setdefault((folder.name, row.framework, row.target), {})[row.function] = row.verdict
    return out


def grid(page) -> list[dict]:
    """The grid as the page shows it: per framework, its setup columns (setup page, folder) and per function the
    text of each cell, hidden ones marked."""
    return page.evaluate("""Array.from(document.querySelectorAll('section.framework')).map(s => ({
        framework: s.dataset.framework, hidden: s.hidden,
        setups: Array.from(s.querySelectorAll('thead th[data-device]:not(.study)')).map(th => ({
            href: th.querySelector('a').getAttribute('href'), folder: th.querySelector('small').textContent,
            device: th.dataset.device, hidden: th.hidden})),
        rows: Array.from(s.querySelectorAll('tbody tr')).map(tr => ({
            function: tr.dataset.function, hidden: tr.hidden,
            cells: Array.from(tr.querySelectorAll('td.v')).map(td => td.textContent.trim())}))}))""")


def facts(page_file: Path) -> dict[str, str]:
    """A setup page's facts table: fact -> value."""
    text = page_file.read_text()
    return dict(re.findall(r"<tr><td>([^<]+)</td><td>([^<]*)</td></tr>", text))


# --- every setup, with the report's verdicts ---------------------------------------------------------------------

def test_every_setup_of_the_references_is_a_column_with_the_reports_verdicts(site, measured, chromium):
    page = chromium.new_page()
    page.goto((site / "index.html").as_uri())
    shown = {}
    for section in grid(page):
        for i, setup in enumerate(section["setups"]):
            about = facts(site / setup["href"])
            assert about["folder"] == setup["folder"]
            key = (about["folder"], section["framework"], about["column in its report"])
            assert key not in shown, f"{key} is two columns"
            shown[key] = {row["function"]: row["cells"][i] for row in section["rows"] if row["cells"][i]}
    page.close()
    assert set(shown) == set(measured)
    for key, verdicts in measured.items():
        assert shown[key] == verdicts, key


def test_a_folder_without_records_is_named_with_what_it_lacks(site):
    html = (site / "index.html").read_text()
    left_out = re.search(r'<ul class="warnings">(.*?)</ul>', html, re.S)[1]
    for folder in FOLDERS:
        assert f"<b>{folder.name}</b>" in html  # every folder is listed where the data comes from
        head = sources.read_head(folder / "README.md")
        if not (folder / sources.ARCHIVE).exists():
            assert head.get("Not kept"), f"{folder.name}: no records and no Not kept line"
            assert f"<li>{folder.name}: records not kept" in left_out


def test_the_first_page_is_under_1_mb_and_no_page_over_2_mb(site):
    assets = sum((site / name).stat().st_size for name in ("atlas.css", "atlas.js"))
    weights = {p: p.stat().st_size + assets for p in site.rglob("*.html")}
    assert weights[site / "index.html"] < FIRST_PAGE, weights[site / "index.html"]
    heaviest = max(weights, key=weights.get)
    assert weights[heaviest] < ANY_PAGE, (heaviest, weights[heaviest])
    # every page links only to pages that exist: no dead link from file://
    for p in site.rglob("*.html"):
        for href in re.findall(r'href="([^"#?]+\.html)', p.read_text()):
            assert (p.parent / href).resolve().exists(), (p, href)


# --- a reader's path: filter, open a cell, copy the command --------------------------------------------------------

def test_filter_to_one_function_open_a_cell_and_find_its_rerun_command(site, tmp_path, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.goto((site / "index.html").as_uri())
    page.locator("#f-function").fill(FUNCTION)
    sections = grid(page)
    visible = [(s["framework"], r["function"]) for s in sections for r in s["rows"]
               if not r["hidden"] and not s["hidden"]]
    assert visible == [("torch", FUNCTION)]
    assert page.locator("#f-count").inner_text().startswith("1 of ")
    torch = next(s for s in sections if s["framework"] == "torch")
    # torch_xla on the CPU in the matrix run, where the function partly fails
    column = next(i for i, s in enumerate(torch["setups"])
                  if s["folder"] == "matrix-cpu-2026-11-26" and s["href"].endswith("-eager.html"))
    row = page.locator(f'tr[data-function="{FUNCTION}"]')
    row.locator("td.v").nth(column).locator("a").click()
    page.wait_for_load_state()
    command = page.locator("#rerun").inner_text()
    r = load.load([unpack(REFERENCE / "matrix-cpu-2026-11-26", tmp_path / "matrix")])
    eager = next(h for h in r.headers.values() if h.get("compiler") == "eager")
    assert command == shlex.join(["runner", "bench", "--image", eager["image"], "--profile", eager["profile"],
                                  "--functions", FUNCTION])
    cases = page.evaluate("Array.from(document.querySelectorAll('table.cases tbody tr'))"
                          ".map(tr => [tr.cells[0].textContent, tr.cells[1].textContent])")
    mine = r.cases[(r.cases["function"] == FUNCTION) & (r.cases["compiler"] == "eager")]
    assert sorted(c for c, _ in cases) == sorted(set(mine["case_id"]))
    outcomes = [o for _, o in cases]
    assert "failed" in outcomes and "passed" in outcomes
    assert outcomes == sorted(outcomes, key=lambda o: o == "passed")  # failures first
    page.close()


def test_the_device_and_verdict_filters(site, chromium):
    page = chromium.new_page()
    page.goto((site / "index.html").as_uri() + "?device=cuda&verdict=complete")
    sections = grid(page)
    columns = [c for s in sections for c in s["setups"]]
    assert {c["device"] for c in columns if not c["hidden"]} == {"cuda"}
    assert any(c["hidden"] for c in columns)
    shown = [(s, r) for s in sections for r in s["rows"] if not r["hidden"]]
    assert shown, "some function fails completely on a GPU in the references"
    for s, r in shown:  # each row kept has a complete failure in a column still shown
        assert any(v == "complete" and not c["hidden"] for v, c in zip(r["cells"], s["setups"]))
    hidden = [r for s in sections for r in s["rows"] if r["hidden"]]
    assert hidden and all("complete" not in [v for v, c in zip(r["cells"], s["setups"]) if not c["hidden"]]
                          for s in sections for r in s["rows"] if r["hidden"])
    page.close()


# --- a team's own runs, and what the atlas refuses -------------------------------------------------------------

def test_a_users_run_folder_becomes_a_site_and_a_rebuild_replaces_it(tmp_path):
    run = unpack(REFERENCE / "tf211-xla-cpu-2026-11-26", tmp_path / "my-run")  # a run folder as runner writes it
    proc = runner_cli("report", "--site", str(run))
    assert proc.returncode == 0, proc.stderr
    out = run / "site"
    index = (out / "index.html").read_text()
    assert index.count('<th data-device="cpu" title=') == 2  # TensorFlow 2.11 eager and under XLA
    stale = out / "functions" / "gone.html"
    stale.write_text("from an earlier build")
    assert runner_cli("report", "--site", "--out", str(out), str(run)).returncode == 0
    assert not stale.exists() and (out / "index.html").exists()


def test_a_folder_it_cannot_read_is_one_warning_line_and_the_rest_is_built(tmp_path):
    good = tmp_path / "good"
    unpack(REFERENCE / "xla-cpu-2026-11-26", good)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / sources.ARCHIVE).write_bytes(b"not xz at all")
    # An xz archive damaged inside (its header reads, its data does not) is one warning line too.
    inside = tmp_path / "inside"
    inside.mkdir()
    data = bytearray((REFERENCE / "xla-cpu-2026-11-26" / sources.ARCHIVE).read_bytes())
    data[200_000:200_010] = bytes(10)
    (inside / sources.ARCHIVE).write_bytes(bytes(data))
    # So is one gzip-compressed under the archive's name (tarfile finds the compression by itself) whose deflate
    # data is damaged: zlib's own error, raised while the members are read.
    gzipped = tmp_path / "gzipped"
    gzipped.mkdir()
    data = bytearray(gzip.compress(lzma.decompress(bytes((REFERENCE / "xla-cpu-2026-11-26" / sources.ARCHIVE)
                                                        .read_bytes())), mtime=0))
    data[5_000:5_010] = b"\xff" * 10
    (gzipped / sources.ARCHIVE).write_bytes(bytes(data))
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "README.md").write_text("# A run\n\nSome words, no head.\n")
    proc = runner_cli("report", "--site", "--out", str(tmp_path / "site"), str(good), str(damaged), str(bare),
                      str(inside), str(gzipped))
    assert proc.returncode == 0, proc.stderr
    warnings = [l for l in proc.stderr.splitlines() if l.startswith("warning:")]
    assert any(l.startswith(f"warning: damaged: {sources.ARCHIVE} cannot be unpacked") for l in warnings), warnings
    for name in ("inside", "gzipped"):
        assert any(l.startswith(f"warning: {name}: {sources.ARCHIVE} cannot be unpacked") for l in warnings), warnings
    assert any(l.startswith("warning: bare: README.md does not open with its Command, Date, Machine lines")
               for l in warnings), warnings
    assert any(l.startswith("warning: bare: no case records") for l in warnings), warnings
    assert "Traceback" not in proc.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<b>damaged</b>" in index and "<b>bare</b>" in index and 'title="torch 2.9.0' in index


def test_an_out_folder_holding_other_files_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    proc = runner_cli("report", "--site", "--out", str(out), str(REFERENCE / "xla-cpu-2026-11-26"))
    one_line_error(proc, str(out), "not an atlas")
    assert (out / "notes.txt").read_text() == "keep me" and len(list(out.iterdir())) == 1


def test_folders_without_any_records_are_an_error(tmp_path):
    proc = runner_cli("report", "--site", "--out", str(tmp_path / "site"), str(REFERENCE / "sweep-jax-2026-11-26"))
    one_line_error(proc, "no case records", "sweep-jax-2026-11-26")


def test_every_reference_folder_has_the_one_layout():
    for folder in FOLDERS:
        head = sources.read_head(folder / "README.md")
        assert all(head.get(k) for k in sources.REQUIRED), (folder.name, head)
        assert (folder / sources.ARCHIVE).exists() or head.get("Not kept"), folder.name
        assert [p.name for p in folder.glob("*.tar.*")] in ([sources.ARCHIVE], []), folder.name


def test_a_readme_head_is_the_list_under_its_title(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n\n- Command: `runner bench --image x`\n  then more of it\n- Date: 2026-11-26\n"
                      "- Not kept: the CPU cells\n\n- Machine: not in the head\n")
    assert sources.read_head(readme) == {"Command": "`runner bench --image x` then more of it",
                                         "Date": "2026-11-26", "Not kept": "the CPU cells"}
