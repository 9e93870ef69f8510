"""The atlas's HTML, by hand and small: a page's frame, a table, a link, a command. Values are escaped here, once;
numbers print as the report prints them (render.cell_text)."""
from __future__ import annotations

import html
from typing import Iterable, Optional

import pandas as pd

from runner.report import render

TITLE = "Portability atlas"


def e(text: object) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, body: str, depth: int = 0) -> str:
    """A whole page; `depth`: how many folders below the site's root it lies (its links climb back up)."""
    up = "../" * depth
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)} - {TITLE}</title>"
            f'<link rel="stylesheet" href="{up}atlas.css"><script src="{up}atlas.js" defer></script></head>'
            f'<body><nav class="top"><a href="{up}index.html">{TITLE}: the grid</a>'
            f'<a href="{up}study.html">the 2023 study beside ours</a></nav>\n{body}\n</body></html>\n')


def link(href: str, text: object, css: str = "") -> str:
    return f'<a href="{e(href)}"{f" class={chr(34)}{css}{chr(34)}" if css else ""}>{e(text)}</a>'


def command(text: str, ident: str = "") -> str:
    """A shell command a reader copies: one click selects all of it."""
    if not text or text == "-":
        return '<span class="none">no command: the records do not name their image</span>'
    return f'<code class="cmd"{f" id={chr(34)}{ident}{chr(34)}" if ident else ""}>{e(text)}</code>'


def table(head: Iterable[str], rows: Iterable[Iterable[str]], css: str = "", caption: str = "") -> str:
    """A table of cells already in HTML (each a `<td>`'s inner HTML, or a whole `<td ...>...</td>`)."""
    cells = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in row) + "</tr>"
                   for row in rows)
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    return (f'<div class="scroll"><table{f" class={chr(34)}{css}{chr(34)}" if css else ""}>{cap}'
            f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>")


def frame(df: pd.DataFrame, caption: str = "", css: str = "") -> str:
    """A frame as a table, numbers as the report prints them."""
    columns = [str(c) for c in df.columns]
    rows = [[e(render.cell_text(col, value)) for col, value in zip(columns, values)]
            for values in df.itertuples(index=False, name=None)]
    return table(columns, rows, css, caption)


def verdict(text: str, href: Optional[str] = None) -> str:
    """A verdict's cell, coloured by it, linking to its cases where it has them."""
    inner = link(href, text) if href else e(text)
    return f'<td class="v v-{e(text.split(" ")[0])}">{inner}</td>'


def facts(pairs: Iterable[tuple[str, str]]) -> str:
    return table(["fact", "value"], [[e(k), e(v)] for k, v in pairs], "facts")
