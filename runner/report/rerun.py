"""The command that measures a cell, or one failed function of it, again: what a reader of the report copies
to reproduce what they see. Built from the records' own headers (image, profile, mode, quick), never guessed."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from runner.report.blocks import RERUN
from runner.rundir import RUNNABLE

NONE = "-"  # no command: the records do not name their image (written before headers carried it)


def bench(image: str, profile: str, mode: str = "steady", quick: bool = False, functions: tuple[str, ...] = (),
          repeats: int = 1, resume_into: Optional[str] = None, compiler: str = "eager") -> str:
    """`runner bench` with the options that reproduce the setup. A new run goes to a new folder (bench's
    default, results/<run-id>), so a rerun never touches the folder the report was made from; `resume_into`
    continues a cell that did not finish in its own folder."""
    if not image:
        return NONE
    words = ["runner", "bench", "--image", image, "--profile", profile]
    if mode and mode != "steady":
        words += ["--mode", mode]
    if compiler and compiler != "eager":
        words += ["--compiler", compiler]
    if quick:
        words.append("--quick")
    if repeats > 1:
        words += ["--repeats", str(repeats)]
    for name in functions:
        words += ["--functions", name]
    if resume_into:
        words += ["--resume", "--out", resume_into]
    return shlex.join(words)


def for_function(row: pd.Series) -> str:
    """The command that runs a failed function again on its setup (a row of the case records, or of a table
    that kept their image, profile, mode and quick columns)."""
    return bench(str(row.get("image") or ""), str(row.get("profile") or "current"), str(row.get("mode") or ""),
                 bool(row.get("quick")), functions=(str(row["function"]),), compiler=str(row.get("compiler") or ""))


def for_cell(cell: dict[str, Any], quick: bool, cells_in_folder: int) -> str:
    """A matrix cell of merged.json: measured again (done), or continued where it stopped (a cell that did not
    finish: `--resume` into its folder; for a folder of several cells, the matrix run is resumed whole, since a
    one-cell run there would rewrite the folder's plan without the others)."""
    image, profile = str(cell.get("image") or ""), str(cell.get("profile") or "current")
    status = cell.get("status")
    folder = str(cell.get("source") or "")
    if status in RUNNABLE and folder:
        if cells_in_folder > 1:
            return shlex.join(["runner", "matrix", *(["--quick"] if quick else []), "--resume", "--out", folder])
        return bench(image, profile, str(cell.get("mode") or ""), quick, repeats=int(cell.get("repeats") or 1),
                     resume_into=folder, compiler=str(cell.get("compiler") or ""))
    if status != "done":  # excluded, or not runnable here: its reason says why; no command changes that
        return NONE
    if cell.get("task") == "census":
        return shlex.join(["runner", "census", "--framework", str(cell.get("framework")), "--image", image,
                           "--profile", profile, *(["--quick"] if quick else [])])
    return bench(image, profile, str(cell.get("mode") or ""), quick, repeats=int(cell.get("repeats") or 1),
                 compiler=str(cell.get("compiler") or ""))


def quick_folders(cases: pd.DataFrame) -> set[str]:
    """The results folders whose records were measured with --quick (a rerun keeps that)."""
    if cases.empty:
        return set()
    return {str(Path(f).parent) for f in cases.loc[cases["quick"].astype(bool), "file"]}


def with_commands(frame: pd.DataFrame, cases: pd.DataFrame) -> pd.DataFrame:
    """A table of failed functions (framework, target, function, ...) with the command that runs each again on
    its setup, in a last column."""
    if frame.empty:
        return frame.assign(**{RERUN: pd.Series(dtype=object)})
    facts = cases.drop_duplicates(["framework", "target"])[["framework", "target", "image", "profile", "mode",
                                                             "compiler", "quick"]]
    merged = frame.merge(facts, on=["framework", "target"], how="left")
    return frame.assign(**{RERUN: [for_function(row) for _, row in merged.iterrows()]})
