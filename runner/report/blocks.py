"""What a report is made of: sections of text, tables and figures. The section builders (sections.py and the
modules it gathers) fill them; render.py writes them out as Markdown and HTML."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import pandas as pd

from runner.report import figures
from runner.view import counted, first_of  # noqa: F401  (the report's sentences use them as the live summary does)

# (row, column) -> the anchor a table cell links to, or None
Link = Callable[[pd.Series, str], Optional[str]]
# A table column of this name holds a shell command that reproduces the row (a cell, a failed function): the
# page shows it so that one click selects all of it.
RERUN = "rerun"


@dataclass
class Table:
    frame: pd.DataFrame
    caption: str = ""
    link: Optional[Link] = None
    anchor: Optional[str] = None
    classes: Optional[Link] = None  # (row, column) -> a CSS class for the cell (the grid's states), or None
    csv: Optional[str] = None  # set by render.write for a long table: its file beside the report, all rows


Block = Union[str, Table, figures.Figure]


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)
    # Two or three lines in words and numbers: what the section found, read before any table.
    summary: str = ""

    @property
    def anchor(self) -> str:
        return figures.slug(self.title)


def percent(value: object) -> str:
    """A percentage column's value in a sentence: "12.5 %", or "-" where there is none."""
    return "-" if value is None or pd.isna(value) else f"{value} %"


