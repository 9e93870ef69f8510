"""Write an atlas: read the folders (sources), make the data (model), write every page into one folder.

The folder is the atlas's own: a rebuild replaces its pages, and a folder holding anything else is refused, so
that no results are ever written over.
"""
from __future__ import annotations

import datetime
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from runner import files
from runner.atlas import pages, sources as reading
from runner.atlas.model import Atlas, build as build_model
from runner.atlas.releases import Declared
from runner.atlas.study import side_by_side, timed
from runner.errors import UserError

STATIC = Path(__file__).parent / "static"
MANIFEST = "atlas.json"  # marks a folder as an atlas (a rebuild may replace it) and lists what it holds
PAGES = ("functions", "setups", "cells")  # the page folders a rebuild empties first
ROOT_FILES = ("index.html", "study.html", "atlas.css", "atlas.js", MANIFEST)


@dataclass
class Built:
    out: Path
    atlas: Atlas
    pages: int


def build(paths: list[Path], out: Path, curated_root: Optional[Path] = None) -> Built:
    _claim(out)
    with tempfile.TemporaryDirectory(prefix="atlas-") as scratch:
        found = reading.collect(paths, Path(scratch).resolve(), curated_root)
        atlas = build_model(found)
        if not atlas.setups:
            raise UserError(f"no case records in {', '.join(map(str, paths))}: nothing to show ("
                            + "; ".join(w for s in found for w in s.warnings) + ")")
        written = _write(atlas, out)
    return Built(out, atlas, written)


def _claim(out: Path) -> None:
    """Make `out` ready for a new atlas: created, or an earlier atlas's pages removed; anything else is refused."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; choose a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).exists():
        raise UserError(f"--out {out} holds files that are not an atlas; choose an empty or new folder for the site")
    out.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        shutil.rmtree(out / name, ignore_errors=True)
    for name in ROOT_FILES:
        (out / name).unlink(missing_ok=True)


def _write(atlas: Atlas, out: Path) -> int:
    declared = Declared(atlas)
    studied = timed(atlas)
    for name in PAGES:
        (out / name).mkdir()
    written = [files.write_text(out / "index.html", pages.index(atlas, studied)),
               files.write_text(out / "study.html", pages.study(side_by_side(atlas)))]
    for (fw, fn) in atlas.rows:
        written.append(files.write_text(out / pages.function_href(atlas, fw, fn),
                                        pages.function(atlas, declared, studied, fw, fn)))
    for s in atlas.setups:
        written.append(files.write_text(out / pages.setup_href(s), pages.setup(atlas, s)))
        for (fw, fn), rows in atlas.rows.items():
            if s.id in rows:
                written.append(files.write_text(out / pages.cell_href(atlas, s, fw, fn), pages.cell(atlas, s, fw, fn)))
    for asset in ("atlas.css", "atlas.js"):
        shutil.copy(STATIC / asset, out / asset)
    files.write_json(out / MANIFEST, {
        "built_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "sources": [{"name": s.name, "path": str(s.path), "head": s.head, "warnings": s.warnings,
                     "setups": [x.id for x in atlas.setups if x.source == s.name]} for s in atlas.sources],
        "setups": [{"id": s.id, "source": s.source, "framework": s.framework, "target": s.target,
                    "version": s.version, "device": s.device, "model": s.model, "compiler": s.compiler,
                    "forecast": s.forecast} for s in atlas.setups],
        "functions": len(atlas.rows), "pages": len(written)})
    return len(written)
