"""The atlas's pages, each from the data it shows (model.Atlas) and nothing more: the grid (index.html), a
function, a setup, a cell's cases and the study side by side."""
from __future__ import annotations

from collections import Counter

import pandas as pd
from portability_harness.records.verdicts import VERDICTS

from runner.atlas import html as h
from runner.atlas.model import CASE_COLUMNS, Atlas, Setup, case_rows, short_model
from runner.atlas.releases import Declared, over_releases
from runner.atlas.study import COLUMNS, Side
from runner.report.load import DEVICE_ORDER
from runner.view import format_seconds

LEGEND = ("pass: every case passed; fallback: every case ran, some partly off the compiler or the device; "
          "partial: some cases failed; complete: every case failed; missing: the name does not exist in that "
          "release; skipped: no case could run there; case_error: only our own broken cases. An empty cell: not "
          "measured on that setup.")


def function_href(atlas: Atlas, fw: str, fn: str) -> str:
    return f"functions/{atlas.slugs[(fw, fn)]}.html"


def cell_href(atlas: Atlas, setup: Setup, fw: str, fn: str) -> str:
    return f"cells/{setup.id}--{atlas.slugs[(fw, fn)]}.html"


def setup_href(setup: Setup) -> str:
    return f"setups/{setup.id}.html"


# --- the grid -----------------------------------------------------------------------------------------------

def index(atlas: Atlas, studied: dict[tuple[str, str], dict[str, float]]) -> str:
    setups = len(atlas.setups)
    functions = len(atlas.rows)
    devices = sorted({s.device for s in atlas.setups} | {d for _, d, _ in COLUMNS},
                     key=lambda d: DEVICE_ORDER.get(d, len(DEVICE_ORDER)))
    verdicts = [v for v in VERDICTS if any(r.verdict == v for rows in atlas.rows.values() for r in rows.values())]
    names = "".join(f'<option value="{h.e(fn)}">' for _, fn in sorted(atlas.rows))

    def options(ident: str, label: str, values: list[str]) -> str:
        return (f'<label>{label} <select id="{ident}"><option value="">all</option>'
                + "".join(f'<option value="{h.e(v)}">{h.e(v)}</option>' for v in values) + "</select></label>")

    body = [f"<h1>{h.TITLE}</h1>",
            f'<p class="summary">{functions} functions on {setups} setups from '
            f"{sum(1 for s in atlas.sources if s.results is not None)} folders of records: every function's "
            "verdict per setup (framework version, device, compiler), the 2023 study's columns beside them. A "
            "cell links to its cases and the command that measures them again.</p>",
            '<form id="filters" onsubmit="return false">', options("f-framework", "framework", atlas.frameworks()),
            options("f-device", "device", devices), options("f-verdict", "verdict", verdicts),
            '<label>function <input id="f-function" type="search" list="function-names" size="32" '
            'placeholder="a name, or part of one"></label> <span id="f-count"></span></form>',
            f'<datalist id="function-names">{names}</datalist>', f'<p class="legend">{h.e(LEGEND)}</p>']
    body += [_grid(atlas, fw, studied) for fw in atlas.frameworks()]
    body.append(_sources(atlas))
    return h.page("the grid", "\n".join(body))


def _grid(atlas: Atlas, fw: str, studied: dict) -> str:
    setups = atlas.of(fw)
    head = ['<th class="fn">function</th>']
    for s in setups:
        forecast = '<span class="tag" title="the TPU model on this CPU: the forecast of the TPU">TPU forecast</span>' \
            if s.forecast else ""
        head.append(f'<th data-device="{h.e(s.device)}" title="{h.e(s.label)}, {h.e(s.source)}">'
                    f'<a href="{h.e(setup_href(s))}">{h.e(s.version)}<br>{h.e(s.device)} '
                    f'{h.e(short_model(s.model))}<br>{h.e(s.compiler)}</a>{forecast}'
                    f'<small>{h.e(s.source)}</small></th>')
    head += [f'<th data-device="{d}" class="study">{h.e(c)}<small>published latency</small></th>'
             for c, d, _ in COLUMNS]
    rows = []
    for fn in atlas.functions(fw):
        mine = atlas.rows[(fw, fn)]
        cells = [f'<th class="fn"><a href="{h.e(function_href(atlas, fw, fn))}">{h.e(fn)}</a></th>']
        for s in setups:
            row = mine.get(s.id)
            cells.append(h.verdict(row.verdict, cell_href(atlas, s, fw, fn)) if row else '<td class="v"></td>')
        study = studied.get((fw, fn))
        cells += [f'<td class="study">{"timed " + format_seconds(study[c]) if study else ""}</td>'
                  for c, _, _ in COLUMNS]
        rows.append(f'<tr data-function="{h.e(fn)}">{"".join(cells)}</tr>')
    return (f'<section class="framework" data-framework="{h.e(fw)}"><h2>{h.e(fw)}</h2><div class="scroll">'
            f'<table class="grid"><thead><tr>{"".join(head)}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            "</div></section>")


def _sources(atlas: Atlas) -> str:
    rows = []
    for s in atlas.sources:
        mine = [x for x in atlas.setups if x.source == s.name]
        listed = "<br>".join(h.link(setup_href(x), x.label) for x in mine) or '<span class="none">none</span>'
        rows.append([f"<b>{h.e(s.name)}</b>", h.e(s.head.get("Command", "")), h.e(s.head.get("Date", "")),
                     h.e(s.head.get("Machine", "")), listed])
    warnings = [w for s in atlas.sources for w in s.warnings]
    notes = [n for s in atlas.sources for n in s.notes]
    out = ['<h2 id="sources">Where the data comes from</h2>',
           h.table(["folder", "command", "date", "machine", "setups with records"], rows, "sources")]
    if warnings:
        out.append('<h3 id="warnings">Left out</h3><ul class="warnings">'
                   + "".join(f"<li>{h.e(w)}</li>" for w in warnings) + "</ul>")
    if notes:
        out.append(f"<details><summary>Read with notes ({len(notes)})</summary><ul>"
                   + "".join(f"<li>{h.e(n)}</li>" for n in notes) + "</ul></details>")
    return "\n".join(out)


# --- a function -----------------------------------------------------------------------------------------------

def function(atlas: Atlas, declared: Declared, studied: dict[tuple[str, str], dict[str, float]], fw: str,
             fn: str) -> str:
    mine = atlas.rows[(fw, fn)]
    facts = atlas.catalog.get((fw, fn), {})
    study = studied.get((fw, fn))
    about = []
    if pd.notna(facts.get("decile")):
        about.append(f"in the 2023 study's sample: usage decile {int(facts['decile'])} (100: the most used tenth)"
                     + (", one of the 20 most used" if facts.get("top20") else ""))
        if isinstance(facts.get("paper_label"), str) and facts["paper_label"]:
            about.append(f"the study's name for it: {facts['paper_label']}")
        about.append(("the study timed it on both its devices: "
                      + ", ".join(f"{c} {format_seconds(study[c])}" for c, _, _ in COLUMNS)) if study else
                     "the study published no latency for it (it failed on its T4 or its v3-8, or was not timed)")
    else:
        about.append("not in the 2023 study's sample")
    rows = []
    for s in (s for s in atlas.of(fw) if s.id in mine):
        r = mine[s.id]
        rows.append([h.link("../" + setup_href(s), s.label), h.e(s.source),
                     h.verdict(r.verdict, "../" + cell_href(atlas, s, fw, fn)), h.e(r.cases), h.e(r.failed),
                     h.e(format_seconds(r.warm_median_s)), h.e(declared.on_setup(s, fn)), h.command(s.rerun(fn))])
    releases = over_releases(atlas, declared, fw, fn)
    body = [f"<h1>{h.e(fn)}</h1>", f'<p class="summary">{h.e(fw)}; ' + h.e("; ".join(about)) + ".</p>",
            f'<p><a href="../index.html?function={h.e(fn)}">the grid, filtered to it</a></p>',
            "<h2>Every setup</h2>",
            h.table(["setup", "folder", "verdict", "cases", "failed", "warm median", "declared on its device",
                     "run it again"], rows),
            "<h2>Over releases: declared against measured</h2>",
            "<p>What each release declares for it per device kind (its declared-support table, `runner "
            "declared`: declared, dtype_not_declared, op_not_declared, unknown; no table: none was read for that "
            "release), beside the verdicts of the setups measured on that release.</p>",
            h.frame(releases)]
    return h.page(fn, "\n".join(body), depth=1)


# --- a setup --------------------------------------------------------------------------------------------------

def setup(atlas: Atlas, s: Setup) -> str:
    source = next(x for x in atlas.sources if x.name == s.source)
    mine = {fn: atlas.rows[(s.framework, fn)][s.id] for fn in atlas.functions(s.framework)
            if s.id in atlas.rows[(s.framework, fn)]}
    rows = [[h.link("../" + function_href(atlas, s.framework, fn), fn),
             h.verdict(r.verdict, "../" + cell_href(atlas, s, s.framework, fn)), h.e(r.cases), h.e(r.failed),
             h.e(format_seconds(r.warm_median_s))] for fn, r in mine.items()]
    counts = Counter(r.verdict for r in mine.values())
    body = [f"<h1>{h.e(s.label)}</h1>",
            f'<p class="summary">{len(mine)} functions: ' + h.e(", ".join(f"{n} {v}" for v, n in counts.items()))
            + (". The TPU's execution model on this CPU: the atlas's forecast of the TPU." if s.forecast else ".") + "</p>",
            "<h2>Facts</h2>", h.facts([("folder", s.source), ("column in its report", s.target),
                                       ("repeats", str(s.repeats)), ("records", ", ".join(s.files)), *s.facts]),
            "<h2>The folder</h2>",
            h.facts(source.head.items()) if source.head else "<p>Its folder has no README head.</p>",
            "<h2>Functions</h2>", h.table(["function", "verdict", "cases", "failed", "warm median"], rows)]
    if s.packages:
        body.append(f"<details><summary>Packages of its environment ({len(s.packages)})</summary><p>"
                    + h.e(", ".join(s.packages)) + "</p></details>")
    return h.page(s.label, "\n".join(body), depth=1)


# --- a cell ---------------------------------------------------------------------------------------------------

def cell(atlas: Atlas, s: Setup, fw: str, fn: str) -> str:
    r = atlas.rows[(fw, fn)][s.id]
    # The failures first: what a reader came for.
    cases = sorted(case_rows(s.records[fn]), key=lambda row: row["outcome"] == "passed")
    body = [f"<h1>{h.e(fn)}: {h.e(s.label)}</h1>",
            f'<p class="summary">Verdict <span class="v-{h.e(r.verdict)} badge">{h.e(r.verdict)}</span>: '
            f"{r.cases} cases, {r.failed} failed in some repeat ({s.repeats} repeat{'s' * (s.repeats > 1)}); "
            f"warm median {h.e(format_seconds(r.warm_median_s))}.</p>",
            f'<p>{h.link("../" + function_href(atlas, fw, fn), "every setup of " + fn)} &middot; '
            f'{h.link("../" + setup_href(s), "the setup")} ({h.e(s.source)})</p>',
            f"<p>Run it again (a new results folder): {h.command(s.rerun(fn), 'rerun')}</p>",
            h.table(CASE_COLUMNS, ([h.e(row[c]) for c in CASE_COLUMNS] for row in cases), "cases")]
    return h.page(f"{fn}: {s.label}", "\n".join(body), depth=1)


# --- the study ----------------------------------------------------------------------------------------------

def study(side: Side) -> str:
    body = ["<h1>The 2023 study beside ours</h1>",
            '<p class="summary">"The Grand Illusion" (Mince et al., 2023) measured the functions of its sample on a '
            "T4 GPU and a v3-8 TPU (A100: Table 3). Its published figures (runner/report/data/) are set here beside "
            "every setup of the atlas, counted over the same functions: those of its sample. It published no "
            "per-function verdict and nothing per function on a CPU; per function it published the latency of those "
            "that ran on both its devices.</p>"]
    if not side.portability.empty:
        body += ["<h2>Functions passing, partly and completely failing (Tables 1, 3 and 8)</h2>",
                 h.frame(side.portability, css="study-table"),
                 "<h2>Failure rate: the 20 most used functions against all (Table 4)</h2>",
                 h.frame(side.top20, css="study-table")]
    body.append("<h2>Latency per function: the study's T4 and v3-8 (Tables 5-7) beside our GPUs and TPUs</h2>")
    for fw, frame in side.latency.items():
        shown = frame.copy()
        for col in shown.columns[1:]:
            shown[col] = shown[col].map(format_seconds)
        body.append(h.frame(shown, caption=f"{fw}: mean latency (the study) and warm median (ours)"))
    if not side.latency:
        body.append("<p>No function the study timed was measured here.</p>")
    body += [f'<p class="note">{h.e(n)}</p>' for n in side.notes]
    return h.page("the 2023 study", "\n".join(body))
