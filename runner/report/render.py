"""Write the report's sections as report.md (figures beside it) and a self-contained report.html."""
from __future__ import annotations

import base64
import datetime
import html
import math
from pathlib import Path

import pandas as pd
from rich.table import Table as RichTable

from runner import files
from runner.report import figures, sections, tables
from runner.report.blocks import RERUN, Section, Table
from runner.report.load import Results
from runner.view import format_seconds


def cell_text(column: str, value: object) -> str:
    """One way to show a number everywhere: durations in human units (the columns of tables.SECONDS), ratios
    as 1.23x, percentages to 0.1."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (bool,)) or not isinstance(value, (int, float)):
        return str(value)
    if column in tables.SECONDS:
        return format_seconds(float(value))
    if ("ratio" in column or "/" in column) and "%" not in column:  # "|log ratio| %" is a percentage
        return f"{_significant(value)}x"
    if isinstance(value, float):
        return f"{value:.1f}" if "%" in column else _significant(value)
    return str(value)


def _significant(value: float) -> str:
    """Three significant digits, but whole numbers from 1000 on: 2,020 rather than 2.02e+03."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _texts(frame: pd.DataFrame) -> list[list[str]]:
    return [[cell_text(str(col), v) for col, v in zip(frame.columns, row)] for row in frame.itertuples(index=False)]


def rich(frame: pd.DataFrame, title: str = "") -> RichTable:
    """A frame as a terminal table, numbers formatted as in the report."""
    t = RichTable(title=title or None, title_justify="left")
    for col in frame.columns:
        numeric = pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])
        t.add_column(str(col), justify="right" if numeric else "left", overflow="fold")
    for row in _texts(frame):
        t.add_row(*row)
    return t


# --- folding --------------------------------------------------------------------------------------------------

FOLD = 25  # rows: a longer table is folded, its row count in the fold's summary, with a filter box
SHOWN = 50  # rows: a longer table shows its first rows in the page; all of them are in its CSV file beside it
# (at 200, the failure and declared-support tables of a matrix with compiled cells made the page 1.1 MB)


def _fold_label(t: Table) -> str:
    rows = len(t.frame)
    shown = f"; the first {SHOWN} shown, all in {t.csv}" if t.csv else ""
    return f"{t.caption or 'Table'} ({rows} rows{shown})"


# --- Markdown ----------------------------------------------------------------------------------------------

def _md_table(t: Table) -> str:
    frame = t.frame.head(SHOWN) if t.csv else t.frame
    head = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(v.replace("|", "\\|").replace("\n", "<br>") for v in row) + " |"
              for row in _texts(frame)]
    if len(t.frame) > FOLD:  # GitHub and most viewers fold <details> in Markdown too
        return "\n".join([f"<details><summary>{html.escape(_fold_label(t))}</summary>", "", *lines, "", "</details>"])
    return "\n".join(([f"*{t.caption}*", ""] if t.caption else []) + lines)


def markdown(secs: list[Section], title: str, out_dir: Path, banner: str | None = None) -> str:
    parts = [f"# {title}", ""] + ([f"> **{banner}**", ""] if banner else [])
    for s in secs:
        parts += [f"## {s.title}", ""] + ([f"**{s.summary}**", ""] if s.summary else [])
        for b in s.blocks:
            if isinstance(b, Table):
                parts += [_md_table(b), ""]
            elif isinstance(b, figures.Figure):
                parts += [f"![{b.caption}]({b.path.relative_to(out_dir).as_posix()})", ""]
            else:
                parts += [b, ""]
    return "\n".join(parts)


# --- HTML --------------------------------------------------------------------------------------------------

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; margin: .2em 0; } h2 { border-bottom: 1px solid #ccc; padding-top: .6em; }
table { border-collapse: collapse; margin: .6em 0 1.4em; font-size: 13px; }
caption { text-align: left; font-style: italic; padding: .2em 0; }
th, td { border: 1px solid #d4d4d4; padding: .25em .55em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } tr:nth-child(even) td { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } td.short { white-space: nowrap; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; } nav a { margin-right: 1em; } .note { color: #8a5a00; }
.scroll { overflow-x: auto; max-width: 100%; } .summary { font-weight: 600; }
.banner { background: #fff3cd; border: 1px solid #e0c36a; padding: .6em .9em; font-weight: 600; }
details { margin: .4em 0 1em; } details > summary { cursor: pointer; color: #1a4f8a; }
input.filter { margin: .4em 0; padding: .2em .4em; width: 24em; }
code.cmd { user-select: all; -webkit-user-select: all; background: #f4f4f4; padding: 0 .3em; cursor: copy; }
#grid td { white-space: pre-line; }
#grid td.pass { background: #e3f4e1; } #grid td.partial { background: #fff1cc; }
#grid td.fallback { background: #dff0f7; }
#grid td.complete-failure, #grid td.failed-to-run { background: #f9d7d4; }
#grid td.incompatible { background: #e4e4f4; } #grid td.not-run { background: #f2f2f2; color: #666; }
"""

# Lets a reader (and the screenshot test) see that every embedded figure decoded; filters a folded table's rows
# by the text typed above it (no network, no library).
_SCRIPT = """window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-figures', ok + '/' + imgs.length);
  // A link to a table folded away opens its fold (the counts link to the cases behind them).
  function reveal() {
    var at = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (var el = at; el; el = el.parentElement) { if (el.tagName === 'DETAILS') { el.open = true; } }
    if (at) { at.scrollIntoView(); }
  }
  window.addEventListener('hashchange', reveal);
  reveal();
  document.querySelectorAll('input.filter').forEach(function (box) {
    box.addEventListener('input', function () {
      var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean), shown = 0;
      var rows = box.parentNode.querySelectorAll('tbody tr');
      rows.forEach(function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        row.style.display = keep ? '' : 'none';
        if (keep) { shown += 1; }
      });
      box.nextElementSibling.textContent = shown + ' of ' + rows.length + ' rows';
    });
  });
});"""


_SHORT = 16  # characters: a cell this short is kept on one line


def _html_cell(t: Table, series: pd.Series, col: object, text: str) -> str:
    e = html.escape
    value = series[col]
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    anchor = t.link(series, str(col)) if t.link else None
    if col == RERUN and text != "-":
        inner = f'<code class="cmd" title="one click selects the command">{e(text)}</code>'
    else:
        inner = f'<a href="#{e(anchor)}">{e(text)}</a>' if anchor else e(text)
    # A short value ("20.0 % (1/5)", "29.1 ms") never breaks over two lines; messages and case ids may.
    css = [c for c in ("num" if numeric else "", "short" if len(text) <= _SHORT else "",
                       (t.classes(series, str(col)) or "") if t.classes else "") if c]
    return f'<td class="{" ".join(css)}">{inner}</td>' if css else f"<td>{inner}</td>"


def _html_table(t: Table) -> str:
    e = html.escape
    frame = t.frame.head(SHOWN) if t.csv else t.frame
    rows = ["<tr>" + "".join(_html_cell(t, series, col, text) for col, text in zip(frame.columns, texts)) + "</tr>"
            for (_, series), texts in zip(frame.iterrows(), _texts(frame))]
    ident = f' id="{e(t.anchor)}"' if t.anchor else ""
    folded = len(t.frame) > FOLD
    caption = f"<caption>{e(t.caption)}</caption>" if t.caption and not folded else ""
    head = "".join(f"<th>{e(str(c))}</th>" for c in t.frame.columns)
    # A table wider than the page scrolls within its own box instead of running past the page's edge.
    table = (f'<div class="scroll"><table{ident}>{caption}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
             "</tbody></table></div>")
    if not folded:
        return table
    csv = f' <a href="{e(t.csv)}">all rows as CSV</a>' if t.csv else ""
    return (f"<details><summary>{e(_fold_label(t))}</summary>"
            f'<input class="filter" type="search" placeholder="filter rows: words to match"> <span></span>{csv}'
            f"{table}</details>")


def _html_figure(f: figures.Figure) -> str:
    data = base64.b64encode(f.path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(f.caption)}">'
            f"<figcaption>{html.escape(f.caption)}</figcaption></figure>")


def page(secs: list[Section], title: str, banner: str | None = None) -> str:
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="banner">{html.escape(banner)}</p>' if banner else "",
            "<nav>" + "".join(f'<a href="#{s.anchor}">{html.escape(s.title)}</a>' for s in secs) + "</nav>"]
    for s in secs:
        body.append(f'<h2 id="{s.anchor}">{html.escape(s.title)}</h2>')
        if s.summary:
            body.append(f'<p class="summary">{html.escape(s.summary)}</p>')
        for b in s.blocks:
            if isinstance(b, Table):
                body.append(_html_table(b))
            elif isinstance(b, figures.Figure):
                body.append(_html_figure(b))
            else:
                css = ' class="note"' if b.startswith("Note:") else ""
                body.append(f"<p{css}>{html.escape(b)}</p>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{_CSS}</style><script>{_SCRIPT}</script></head><body>{''.join(body)}</body></html>\n")


def _write_csvs(secs: list[Section], out_dir: Path) -> None:
    """Every table too long to show whole gets its rows as CSV under tables/, named after its section."""
    folder = out_dir / "tables"
    for old in folder.glob("*.csv"):  # a table a new report no longer has must not linger
        old.unlink()
    for s in secs:
        long = [b for b in s.blocks if isinstance(b, Table) and len(b.frame) > SHOWN]
        for i, t in enumerate(long, 1):
            name = f"tables/{s.anchor}{'-' + str(i) if len(long) > 1 else ''}.csv"
            folder.mkdir(exist_ok=True)
            files.write_text(out_dir / name, t.frame.to_csv(index=False))
            t.csv = name


def write(r: Results, out_dir: Path) -> tuple[Path, Path, list[Path]]:
    """Write report.md, report.html and figures/*.png under out_dir; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figure_dir = out_dir / "figures"
    for old in figure_dir.glob("*.png"):  # a figure a new report no longer draws must not linger
        old.unlink()
    secs = sections.build(r, figure_dir)
    runs = ", ".join(sorted({str(x) for x in r.cases["run_id"].dropna().unique()}))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = f"Portability report: {runs or 'results'} ({stamp})"
    md = out_dir / "report.md"
    html_path = out_dir / "report.html"
    banner = sections.banner(r)
    _write_csvs(secs, out_dir)
    files.write_text(md, markdown(secs, title, out_dir, banner))
    files.write_text(html_path, page(secs, title, banner))
    return md, html_path, sorted(figure_dir.glob("*.png"))
